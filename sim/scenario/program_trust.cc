#include "sim/scenario/program_trust.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/kv/sha1.h"
#include "sim/process/process_program.h"
#include "sim/scenario/scenario.h"

namespace lockstep::scenario {
namespace {

std::atomic<bool> g_allowed{false};

// What would start, as one text: the hash is of this.
std::string Identity(const process::ProcessProgram& p) {
  return nlohmann::json{{"program", p.program}, {"argv", p.command}, {"env", p.env}, {"cwd", p.cwd}}
      .dump();
}

}  // namespace

void SetProgramsAllowed(bool allowed) { g_allowed.store(allowed); }

bool ProgramsAllowedByUser() {
  const char* env = std::getenv("LOCKSTEP_ALLOW_PROGRAMS");
  return g_allowed.load() || (env != nullptr && std::string_view(env) == "1");
}

std::string AllowedProgramsFile() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  if (config != nullptr && config[0] == '/')
    return std::string(config) + "/lockstep/allowed-programs";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && home[0] == '/' ? home : "/nonexistent") +
         "/.config/lockstep/allowed-programs";
}

std::string TrustLine(const process::ProcessProgram& p) {
  const std::string identity = Identity(p);
  return kv::Sha1Hex(identity) + " " + identity;
}

bool MayStart(const process::ProcessProgram& p) {
  if (ProgramsAllowedByUser()) return true;
  std::ifstream in(AllowedProgramsFile());
  const std::string hash = kv::Sha1Hex(Identity(p));
  for (std::string line; std::getline(in, line);) {
    if (line.size() > hash.size() && line.compare(0, hash.size(), hash) == 0 &&
        line[hash.size()] == ' ') {
      return true;
    }
  }
  return false;
}

std::string DescribeStart(const NamedProgram& named) {
  const process::ProcessProgram& p = *named.program;
  std::string text = named.client + " would run " + p.program + " with argv " +
                     nlohmann::json(p.command).dump() + "\n    in the folder " + p.cwd +
                     "\n    with the environment PATH, LANG, HOME (a path that does not exist), "
                     "LD_PRELOAD (lockstep's liblockstep_client.so) and LOCKSTEP_* (the "
                     "servers' addresses and the lock settings)";
  if (!p.env.empty()) text += ", and from the file " + nlohmann::json(p.env).dump();
  return text;
}

ProgramsNotAllowed::ProgramsNotAllowed(const std::string& file_in, const std::string& place_in,
                                       const std::vector<NamedProgram>& refused_in)
    : ScenarioError(
          file_in,
          [&] {
            std::string text =
                (place_in.empty() ? "" : "at " + place_in + ": ") +
                "this file names programs to run, and lockstep starts a program a file names "
                "only when you say so:";
            for (const NamedProgram& p : refused_in) text += "\n  " + DescribeStart(p);
            return text +
                   "\n  Start them with --allow-programs (or LOCKSTEP_ALLOW_PROGRAMS=1), or trust "
                   "exactly these with `lockstep allow " +
                   file_in + "`";
          }()),
      refused(refused_in) {}

void GatePrograms(const std::vector<NamedProgram>& programs, LoadPurpose purpose,
                  const std::string& file, const std::string& place) {
  std::vector<NamedProgram> refused;
  for (const NamedProgram& p : programs) {
    p.program->allowed = purpose == LoadPurpose::kRun && MayStart(*p.program);
    if (purpose == LoadPurpose::kRun && !p.program->allowed) refused.push_back(p);
  }
  if (!refused.empty()) throw ProgramsNotAllowed(file, place, refused);
}

}  // namespace lockstep::scenario
