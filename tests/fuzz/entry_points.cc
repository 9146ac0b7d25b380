#include "tests/fuzz/entry_points.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/printable.h"
#include "sim/cli/command_line.h"
#include "sim/explore/replay_strategy.h"
#include "sim/kv/dispatch.h"
#include "sim/kv/keyspace.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/trace.h"

namespace lockstep::fuzz {
namespace {

using nlohmann::json;
namespace jr = lockstep::json;

constexpr const char* kFile = "fuzz.json";

void Require(bool ok, const std::string& what) {
  if (!ok) throw Finding(what);
}

// A refusal must read "at /POINTER: ..." (after the file name, for a
// scenario) and be valid UTF-8, so that `--json` output can carry it.
void CheckRefusal(const std::string& message, const std::string& prefix) {
  Require(message.rfind(prefix + "at /", 0) == 0, "a refusal without its location: " + message);
  try {
    (void)json(message).dump();
  } catch (const json::exception&) {
    throw Finding("a refusal that is not valid UTF-8: " + message);
  }
}

// Parses like the CLI does; nullopt if refused (cleanly).
std::optional<json> ParseOrRefuse(std::string_view bytes) {
  try {
    return jr::Parse(std::string(bytes));
  } catch (const jr::JsonError& e) {
    CheckRefusal(e.what(), "");
    return std::nullopt;
  }
}

std::optional<scenario::Scenario> LoadOrRefuse(const json& doc, const std::string& prefix) {
  try {
    // Described only: no program it names may start.
    return scenario::LoadScenario(doc, kFile, prefix, scenario::LoadPurpose::kDescribe);
  } catch (const scenario::ScenarioError& e) {
    CheckRefusal(e.what(), std::string(kFile) + ": ");
    return std::nullopt;
  }
}

// Whether a scenario document names a program as a client's algorithm:
// running it would run whatever command line the fuzzer wrote. Such a
// scenario is loaded, never run.
bool NamesProgram(const json& scenario) {
  if (!scenario.is_object() || !scenario.contains("clients")) return false;
  const json& clients = scenario["clients"];
  if (!clients.is_array()) return false;
  return std::any_of(clients.begin(), clients.end(), [](const json& c) {
    return c.is_object() && c.contains("algorithm") && c["algorithm"].is_object() &&
           c["algorithm"].contains("process");
  });
}

// A trace written by lockstep reads back as the same trace.
void CheckRoundTrip(const trace::Trace& t) {
  json j = trace::ToJson(t);
  try {
    Require(trace::ToJson(trace::FromJson(j, "")) == j,
            "a trace changes on a round trip through FromJson");
  } catch (const base::InputError& e) {
    throw Finding(std::string("lockstep cannot read back a trace it wrote: ") + e.what());
  }
}

}  // namespace

void ScenarioInput(std::string_view bytes) {
  std::optional<json> doc = ParseOrRefuse(bytes);
  if (!doc) return;
  std::optional<scenario::Scenario> s = LoadOrRefuse(*doc, "");
  if (!s || NamesProgram(s->document)) return;
  Require(
      !s->world.clients.empty() && (!s->world.horizon || *s->world.horizon >= s->world.start_time),
      "a scenario outside the documented ranges loaded");
  trace::Trace t;
  if (s->has_schedule && s->schedule.size() > kMaxFuzzSteps) return;
  try {
    if (s->has_schedule) {
      t = run::ReplaySchedule(*s);
    } else {
      t = run::RunSeeded(*s, s->world.seed, static_cast<int>(kMaxFuzzSteps));
    }
  } catch (const explore::ScheduleError&) {
    return;  // refused, at /schedule/N, as `lockstep replay` reports it
  } catch (const std::runtime_error& e) {
    // An algorithm written in Lua in the scenario may fail: a clean refusal
    // (exit 2) if it names the client, as `lockstep run` reports it.
    Require(std::string(e.what()).starts_with("the algorithm of "),
            std::string("a run failed: ") + e.what());
    return;
  }
  CheckRoundTrip(t);
}

void TraceInput(std::string_view bytes) {
  std::optional<json> doc = ParseOrRefuse(bytes);
  if (!doc) return;
  std::optional<trace::Trace> saved;
  try {
    saved = trace::FromJson(*doc, "");
  } catch (const base::InputError& e) {
    CheckRefusal(e.what(), "");
    return;
  }
  CheckRoundTrip(*saved);
  if (saved->schedule.size() > kMaxFuzzSteps || NamesProgram(doc->value("scenario", json()))) {
    return;
  }
  // What `lockstep replay TRACE` does next.
  try {
    run::ReplaySavedTrace(kFile, *doc);
  } catch (const base::InputError& e) {
    CheckRefusal(e.what(), std::string(kFile) + ": ");
    return;
  }
  // A trace that replays is exactly what lockstep writes for it.
  Require(trace::ToJson(*saved, saved->format_version) == *doc,
          "a trace that replays does not read back as written");
}

namespace {

// One command a line; arguments separated by tabs if the line has one, else
// by spaces; a backslash then "n" in an argument is a newline (Lua scripts).
std::vector<std::vector<std::string>> SplitCommands(std::string_view bytes) {
  std::vector<std::vector<std::string>> commands;
  while (!bytes.empty()) {
    size_t eol = bytes.find('\n');
    std::string_view line = bytes.substr(0, eol);
    bytes = eol == std::string_view::npos ? std::string_view() : bytes.substr(eol + 1);
    const char sep = line.find('\t') != std::string_view::npos ? '\t' : ' ';
    std::vector<std::string> argv(1);
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == sep) {
        argv.emplace_back();
      } else if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') {
        argv.back() += '\n';
        ++i;
      } else {
        argv.back() += line[i];
      }
    }
    commands.push_back(std::move(argv));
  }
  return commands;
}

// A scenario small enough that every command runs in milliseconds.
constexpr const char* kCommandLineScenario =
    R"({"name": "fuzz", "clients": [{"name": "C1", "algorithm": "setnx-naive"},
    {"name": "C2", "algorithm": "setnx-naive"}], "lock": {"key": "lock.foo", "timeout": 2,
    "rounds": 1, "retry_delay": 0, "release_with_leave": true}, "keyspace": [{"key": "lock.foo",
    "value": "0", "writer": "C0"}], "clock": {"start": 0, "horizon": 8}, "assumptions":
    {"max_arg_delay": 0, "max_hold_ticks": 1}, "expect": "violation:mutual_exclusion"})";

// A command line whose every file is inside the current folder: no absolute
// path, no "..", not even after "--option=", no Redis server to reach.
bool StaysInside(const std::vector<std::string>& args) {
  static const std::vector<std::string> commands = {"run", "replay", "render", "explore", "list"};
  if (args.empty() || std::find(commands.begin(), commands.end(), args[0]) == commands.end()) {
    return false;
  }
  for (const std::string& a : args) {
    // --allow-programs would start what the input names.
    if (a.find("..") != std::string::npos || a.rfind("--redis", 0) == 0 ||
        a.rfind("--allow", 0) == 0) {
      return false;
    }
    size_t value = a.rfind("--", 0) == 0 && a.find('=') != std::string::npos ? a.find('=') + 1 : 0;
    if (value < a.size() && (a[value] == '/' || a[value] == '~')) return false;
  }
  return true;
}

// Runs `lockstep ARGS...` in a fresh temporary folder holding the scenario
// s.json (and whatever earlier lines of the input wrote), then comes back.
class CommandLineFolder {
 public:
  CommandLineFolder() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "lockstep-fuzz-XXXXXX").string();
    Require(mkdtemp(tmpl.data()) != nullptr, "cannot make a temporary folder");
    path_ = tmpl;
    home_ = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    Require(home_ >= 0 && chdir(path_.c_str()) == 0, "cannot enter the temporary folder");
    std::ofstream("s.json") << kCommandLineScenario;
  }
  ~CommandLineFolder() {
    if (fchdir(home_) != 0) std::abort();
    close(home_);
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int home_ = -1;
};

// Lines "lockstep ARGS...": the CLI's option parsing with paths, each run
// inside a temporary folder. Exit codes stay documented, and no temporary
// output file is ever left behind.
void CommandLines(const std::vector<std::vector<std::string>>& lines) {
  std::optional<CommandLineFolder> folder;
  for (const auto& line : lines) {
    if (line.empty() || line[0] != "lockstep") continue;
    std::vector<std::string> args(line.begin() + 1, line.end());
    if (!StaysInside(args)) continue;
    if (!folder) folder.emplace();
    int code = cli::RunCommandLine(args);
    Require(code >= 0 && code <= 3, "undocumented exit code " + std::to_string(code));
    for (const auto& e : std::filesystem::recursive_directory_iterator(folder->path())) {
      Require(e.path().filename().string().find(".tmp-") == std::string::npos,
              "a temporary output file was left behind: " + e.path().string());
    }
  }
}

}  // namespace

void LuaInput(std::string_view bytes) {
  constexpr std::string_view kEval = "--eval\n";
  if (bytes.starts_with(kEval)) {
    const std::vector<std::string> eval = {"EVAL", std::string(bytes.substr(kEval.size())), "1",
                                           "lock.foo", "token"};
    kv::Keyspace ks, twin;
    for (kv::Millis now : {kv::Millis{0}, kv::Millis{5}}) {
      const kv::Reply r = kv::Execute(ks, eval, now);
      Require(kv::Execute(twin, eval, now) == r, "a script replied differently on a twin");
      Require(ks == twin, "a script left twin keyspaces different");
    }
    return;
  }
  // A scenario is JSON text, so its Lua source is UTF-8 (what the source
  // writes with escapes need not be).
  if (!base::IsUtf8(bytes)) return;
  const json doc = {{"name", "fuzz-lua"},
                    {"clients",
                     {{{"name", "C1"}, {"algorithm", {{"lua_inline", std::string(bytes)}}}},
                      {{"name", "C2"}, {"algorithm", {{"lua_inline", std::string(bytes)}}}}}},
                    {"lock", {{"key", "lock.foo"}, {"ttl", 2}}},
                    {"clock", {{"horizon", 3}}},
                    {"expect", "safe"}};
  std::optional<scenario::Scenario> s = LoadOrRefuse(doc, "");
  if (!s) return;
  std::optional<std::string> first;
  for (int run = 0; run < 2; ++run) {
    std::string text;
    try {
      text = trace::ToJsonText(run::RunSeeded(*s, 1, static_cast<int>(kMaxLuaSteps)));
    } catch (const std::runtime_error& e) {
      // The algorithm's error, its line named: a clean refusal (exit 2).
      Require(std::string(e.what()).starts_with("the algorithm of "),
              std::string("a run failed: ") + e.what());
      text = e.what();
    }
    if (first) Require(text == *first, "the same Lua run twice gave different traces");
    first = text;
  }
}

void CommandInput(std::string_view bytes) {
  std::vector<std::vector<std::string>> commands = SplitCommands(bytes);
  if (commands.size() > 256) commands.resize(256);
  CommandLines(commands);

  // From an empty keyspace at the start of time, and at a late time; each
  // time the same commands a second time later on, against the state left.
  for (kv::Millis start : {kv::Millis{0}, kv::Millis{1'000'000'000'000}}) {
    kv::Keyspace ks, twin;
    for (int round = 0; round < 2; ++round) {
      kv::Millis now = start + round * 10'000;
      for (const auto& cmd : commands) {
        kv::Effect effect;
        kv::Reply r = kv::Execute(ks, cmd, now, &effect);
        Require(kv::Execute(twin, cmd, now) == r,
                "the same command on the same keyspace replied differently");
        for (const kv::Entry& e : ks.Live(now)) {
          Require(!e.deadline || *e.deadline >= now, "an expired key is live: " + e.key.str());
          Require(ks.Find(e.key, now) != nullptr, "a live key is not found: " + e.key.str());
        }
        now += cmd.size() % 3;  // time moves on, sometimes not at all
      }
      kv::Keyspace purged = ks;
      purged.PurgeExpired(now);
      Require(purged.Live(now).size() == purged.size(), "PurgeExpired left an expired key");
      Require(ks == twin && ks.Hash() == twin.Hash(), "two identical runs differ");
    }
  }
}

}  // namespace lockstep::fuzz
