#include "sim/cli/allow_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "sim/base/printable.h"
#include "sim/process/process_program.h"
#include "sim/run/exit_codes.h"
#include "sim/run/output_file.h"
#include "sim/run/trace_file.h"
#include "sim/scenario/scenario.h"

namespace lockstep::cli {

void AddAllowPrograms(CLI::App* command) {
  command->add_flag_callback(
      "--allow-programs", [] { scenario::SetProgramsAllowed(true); },
      "Start the programs the file names (process clients): lockstep starts none without "
      "this, LOCKSTEP_ALLOW_PROGRAMS=1, or `lockstep allow FILE`");
}

namespace {

// The programs `file` would start, as a scenario or as a trace's scenario.
std::vector<scenario::NamedProgram> ProgramsOf(const std::string& file) {
  const nlohmann::json doc = run::ReadJsonFile(file);
  const bool trace = run::IsTrace(doc);
  return scenario::LoadScenario(trace ? doc.value("scenario", nlohmann::json()) : doc, file,
                                trace ? "/scenario" : "", scenario::LoadPurpose::kDescribe)
      .programs;
}

}  // namespace

int Allow(const std::vector<std::string>& files) {
  std::vector<std::string> lines;
  for (const std::string& file : files) {
    const std::vector<scenario::NamedProgram> programs = ProgramsOf(file);
    if (programs.empty()) {
      std::cout << base::Printable(file) << ": starts no program; nothing to allow\n";
    }
    for (const scenario::NamedProgram& p : programs) {
      std::cout << base::Printable(file + ": allowed: " + scenario::DescribeStart(p),
                                   /*keep_newlines=*/true)
                << "\n";
      lines.push_back(scenario::TrustLine(*p.program));
    }
  }
  if (lines.empty()) return run::kExitSafe;
  const std::string list = scenario::AllowedProgramsFile();
  std::stringstream kept;
  kept << std::ifstream(list).rdbuf();
  std::string text = kept.str();
  std::set<std::string> have;
  for (std::string line; std::getline(kept, line);) have.insert(line);
  if (!text.empty() && text.back() != '\n') text += '\n';
  for (const std::string& line : lines) {
    if (have.insert(line).second) text += line + "\n";
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(list).parent_path(), ec);
  run::WriteOutput(list, text);
  std::cout << "lockstep starts these without asking, until any of them changes (its "
               "program, argv, environment or folder); the list is "
            << base::Printable(list) << "\n";
  return run::kExitSafe;
}

}  // namespace lockstep::cli
