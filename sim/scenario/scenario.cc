#include "sim/scenario/scenario.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include <sys/stat.h>

#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/scenario/sections.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/seed.h"
#include "sim/trace/trace.h"

namespace lockstep::scenario {
namespace {

namespace jr = lockstep::json;
using nlohmann::json;
using namespace internal;  // the loader's parts, sections.h

// A trace given where a scenario is expected: say so, and how to use it.
void RejectTrace(const jr::ObjectReader& o, const std::string& prefix) {
  if (prefix.empty() && o.Has("scenario") && o.Has("steps")) {
    if (!o.Has("format")) {
      throw jr::JsonError("",
                          "missing field \"format\": this is a trace (it has \"scenario\" and "
                          "\"steps\"), and a trace says \"format\": \"" +
                              trace::FormatName(trace::kFormatVersion) + "\"");
    }
    throw jr::JsonError("", "this is a trace, not a scenario; replay it with `lockstep replay`");
  }
}

Scenario Load(const json& doc, const std::string& file, const std::string& prefix) {
  jr::ObjectReader o(doc, prefix);
  RejectTrace(o, prefix);
  o.RejectUnknown({"name", "description", "clients", "lock", "keyspace", "clock", "assumptions",
                   "faults", "server", "servers", "resource", "properties", "expect", "schedule",
                   "seed", "max_steps", "probabilistic"});
  Scenario s;
  s.file = file;
  s.document = doc;  // ReadClients puts Lua files in it
  s.document.erase("schedule");
  s.name = o.OptString("name").value_or("");
  s.description = o.OptString("description").value_or("");
  s.expect = ReadExpect(o);

  algo::WorldFacts facts;
  const LockFields lock = ReadSharedLock(o, s, facts);
  ReadServers(o, s, facts);
  world::WorldConfig& w = s.world;
  ReadClock(o, w);
  const std::set<std::string> timestamp_lock_keys = ReadClients(o, lock, facts, s);
  ReadKeyspace(o, timestamp_lock_keys, w);
  ReadAssumptions(o, w);
  ReadFaults(o, w);
  s.properties = ReadProperties(o);
  CheckWhole(o, s);
  CheckAllTime(o, s);
  WarnTimestampValues(o, timestamp_lock_keys, s);

  w.probabilistic = o.Bool("probabilistic", false);
  if (o.Has("seed")) w.seed = trace::ReadSeed(o.Raw("seed"), o.PointerOf("seed"));
  s.max_steps = static_cast<int>(
      o.OptInt("max_steps", 1, base::Limits::kMaxSteps).value_or(base::Limits::kDefaultMaxSteps));

  std::vector<std::string> names;
  for (const auto& c : w.clients) names.push_back(c.name);
  std::vector<std::string> server_names;
  if (w.servers.size() > 1) {
    for (const auto& sv : w.servers) server_names.push_back(sv.name);
  }
  if (o.Has("schedule")) {
    const json& sched = o.Array("schedule");
    s.has_schedule = true;
    for (size_t i = 0; i < sched.size(); ++i) {
      std::string ptr = o.PointerOf("schedule") + "/" + std::to_string(i);
      std::string text = jr::ReadString(sched[i], ptr);
      try {
        s.schedule.push_back(world::ParseAction(text, names, server_names));
      } catch (const base::InputError& e) {
        throw jr::JsonError(ptr, e.expected);
      }
      s.schedule_text.push_back(text);
    }
  }
  return s;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  // The limit holds while reading, whatever the file is: a device, a FIFO or
  // a /proc file has no size to check beforehand.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ScenarioError(path, "cannot open the file for reading");
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    throw ScenarioError(path, std::string("cannot read the file: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw ScenarioError(path, "is a directory; expected a file");
  if (S_ISREG(st.st_mode) && st.st_size > static_cast<off_t>(kMaxInputBytes)) {
    throw ScenarioError(
        path, "file is " + std::to_string(st.st_size) + " bytes; expected at most 16 MiB");
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ScenarioError(path, std::string("cannot read the file: ") + std::strerror(errno));
    }
    if (text.size() + static_cast<size_t>(n) > kMaxInputBytes) {
      throw ScenarioError(path, "more than 16 MiB to read; expected at most 16 MiB");
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

Scenario LoadScenario(const json& document, const std::string& file,
                      const std::string& pointer_prefix, LoadPurpose purpose) {
  Scenario s;
  try {
    s = Load(document, file, pointer_prefix);
  } catch (const jr::JsonError& e) {
    throw ScenarioError(file, e.what());
  }
  GatePrograms(s.programs, purpose, file, s.first_program_place);
  return s;
}

Scenario LoadScenarioFile(const std::string& path, LoadPurpose purpose) {
  json doc;
  try {
    doc = jr::Parse(ReadFile(path));
  } catch (const jr::JsonError& e) {
    throw ScenarioError(path, e.what());
  }
  return LoadScenario(doc, path, "", purpose);
}

}  // namespace lockstep::scenario
