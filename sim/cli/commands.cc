#include "sim/cli/commands.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "sim/base/limits.h"
#include "sim/base/printable.h"
#include "sim/cli/memory_bound.h"
#include "sim/explore/replay_strategy.h"
#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/run/output_file.h"
#include "sim/run/runner.h"
#include "sim/run/stop_signals.h"
#include "sim/run/trace_folders.h"
#include "sim/trace/json_reader.h"

namespace lockstep::cli {
namespace {

namespace jr = lockstep::json;
using nlohmann::json;

json Summary(const trace::Trace& t, const scenario::Scenario& s) {
  json j = {{"verdict", t.violation ? "violation" : "no_violation"},
            {"steps", t.steps.size() - 1},
            {"end", t.end},
            {"schedule", t.schedule},
            {"expect", s.expect.stated ? json(s.expect.Text()) : json(nullptr)}};
  j["matches_expectation"] = s.expect.Matches(t.violation ? t.violation->property : "");
  if (t.violation) {
    j["violation"] = {{"property", t.violation->property},
                      {"clients", t.violation->clients},
                      {"step", t.violation->step},
                      {"message", t.violation->message}};
  } else {
    j["violation"] = nullptr;
  }
  return j;
}

// Prints the result and writes the trace; returns the exit code. The
// report goes to stderr when the trace goes to stdout. `conclusive`: see
// Unexpected.
int Report(const trace::Trace& t, const scenario::Scenario& s, const OutputOptions& out,
           bool conclusive) {
  run::Warn(s.file, s.warnings);
  run::Warn(s.file, {run::Unexpected(s, t.violation ? t.violation->property : "", conclusive)});
  std::ostream& report = run::IsStandardOutput(out.trace_out) ? std::cerr : std::cout;
  if (!out.trace_out.empty()) {
    std::string text = run::TraceTextFor(t, s.file, out.trace_out);
    if (text.size() > scenario::kMaxInputBytes) {
      // lockstep writes no trace it could not read back.
      PrintError("the trace of these " + std::to_string(t.schedule.size()) + " steps is " +
                 std::to_string(text.size()) + " bytes, more than the " +
                 std::to_string(scenario::kMaxInputBytes >> 20) +
                 " MiB that lockstep reads: not written to " + out.trace_out +
                 " (bound the run with --max-steps)");
      return kExitBound;
    }
    run::WriteOutput(out.trace_out, text);
  }
  if (out.json) {
    report << Summary(t, s).dump(2) << "\n";
  } else {
    report << trace::Timeline(t, out.timeline);
    if (s.expect.stated) report << "expected: " << s.expect.Text() << "\n";
    if (!conclusive && !t.violation && !s.expect.safe) {
      // One seeded schedule missed what the scenario expects: not a failure.
      report << trace::WrapText("this seeded run is one schedule of many and missed the " +
                                    s.expect.property + " the scenario expects; lockstep explore " +
                                    s.file + " searches them all",
                                out.timeline.width);
    }
    if (!out.trace_out.empty()) report << "trace written to " << out.trace_out << "\n";
  }
  return t.violation ? kExitViolation : kExitSafe;
}

// Refuses an output that cannot be written, before any work.
void CheckTraceOut(const std::string& file, const OutputOptions& out) {
  if (!out.trace_out.empty()) run::CheckOutput("--trace-out", out.trace_out, {file});
}

// The text of `replayed`, the replay of the trace `doc` in `file`, naming
// its programs' folders as the file does.
std::string TextAsRecorded(trace::Trace replayed, const json& doc, const std::string& file) {
  if (doc.contains("scenario")) run::AdoptRecordedFolders(replayed.scenario, doc["scenario"], file);
  return trace::ToJsonText(replayed);
}

// Replays a saved trace and checks that it reproduces exactly.
int ReplayTrace(const std::string& file, const std::string& text, const json& doc,
                const OutputOptions& out) {
  std::optional<run::ReplayedTrace> replayed_trace;
  try {
    replayed_trace = run::ReplaySavedTrace(file, doc);
  } catch (const scenario::ProgramsNotAllowed& e) {
    // Replaying would start its programs: the steps it records are shown,
    // as for any trace, and the replay refused.
    if (!out.json) std::cout << trace::Timeline(trace::FromJson(doc, file), out.timeline);
    PrintError(std::string(e.what()) +
               "\nThe steps above are as the trace records them: not replayed.");
    return kExitBadInput;
  }
  const run::ReplayedTrace& again = *replayed_trace;
  const trace::Trace& replayed = again.trace;
  const scenario::Scenario& s = again.scenario;
  // The embedded scenario has no schedule: its expectation is about every one.
  int code = Report(replayed, s, out, false);
  if (!out.json && code != kExitBound) {
    (run::IsStandardOutput(out.trace_out) ? std::cerr : std::cout)
        << (TextAsRecorded(replayed, doc, file) == text
                ? "replay reproduces the trace byte for byte\n"
                : "replay reproduces the trace's content (its formatting differs)\n");
  }
  return code;
}

}  // namespace

std::string DefaultScenarioDir() {
  if (std::filesystem::is_directory("scenarios")) return "scenarios";
  // Installed: PREFIX/bin/lockstep beside PREFIX/share/lockstep/scenarios.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path shared =
        exe.parent_path().parent_path() / LOCKSTEP_INSTALLED_SCENARIOS;
    if (std::filesystem::is_directory(shared, ec)) return shared.string();
  }
  return std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios";
}

int Replay(const std::string& file, const OutputOptions& out) {
  CheckTraceOut(file, out);
  std::string text = scenario::ReadFile(file);
  json doc;
  try {
    doc = jr::Parse(text);
  } catch (const jr::JsonError& e) {
    throw base::InputError(file, e.place, e.expected);
  }
  if (doc.is_object() && doc.contains("format")) return ReplayTrace(file, text, doc, out);
  scenario::Scenario s = scenario::LoadScenario(doc, file);
  if (!s.has_schedule) {
    throw base::InputError(file, "/",
                           "missing field \"schedule\" (replay needs a schedule; "
                           "use `lockstep run " +
                               file + " --seed N` for a random one)");
  }
  trace::Trace t;
  try {
    t = run::ReplaySchedule(s);
  } catch (const explore::ScheduleError& e) {
    throw base::InputError(file, "/schedule/" + std::to_string(e.position), e.what());
  }
  const size_t ran = t.schedule.size();
  if (ran < s.schedule.size()) {
    const std::string at = "/schedule/" + std::to_string(ran);
    if (!t.violation) {
      // Nothing was enabled: the entry cannot happen.
      throw base::InputError(
          file, at,
          "'" + s.schedule_text[ran] +
              "' is not possible here: nothing can happen (every client finished or waits)");
    }
    run::Warn(file, {"at " + at + ": the violation at step " + std::to_string(t.violation->step) +
                     " ends the replay; the " + std::to_string(s.schedule.size() - ran) +
                     " entries from here on are not run"});
  }
  return Report(t, s, out, true);
}

int Run(const std::string& file, uint64_t seed, std::optional<int> max_steps,
        const OutputOptions& out) {
  CheckTraceOut(file, out);
  scenario::Scenario s = scenario::LoadScenarioFile(file);
  s.world.seed = seed;
  std::optional<MemoryWatch> watch;
  if (out.max_memory) watch.emplace(out.max_memory);
  // A stop in the execution or in its recording is reported with the
  // steps run and recorded so far.
  size_t steps_run = 0;
  trace::Trace t =
      run::RunSeeded(s, seed, max_steps.value_or(s.max_steps), &run::StopRequested(), &steps_run);
  if (watch && watch->exceeded()) {
    // Stopped between two steps: what ran is reported, nothing is written.
    const std::string bound = "--max-memory " + SizeText(out.max_memory);
    const std::string counts = std::to_string(steps_run) + " steps run, " +
                               std::to_string(t.schedule.size()) + " recorded";
    if (out.json) {
      std::cout << json{{"verdict", "incomplete"},
                        {"incomplete", "stopped at the memory bound (" + bound + ")"},
                        {"max_memory", out.max_memory},
                        {"steps_run", steps_run},
                        {"steps_recorded", t.schedule.size()}}
                       .dump(2)
                << "\n";
    }
    PrintError("run stopped at the memory bound (" + bound + ") after " + counts +
               "; no trace written");
    return kExitBound;
  }
  return Report(t, s, out, false);
}

int List(const std::string& dir, bool as_json) {
  json algos = json::array();
  for (const auto& a : algo::Algorithms()) {
    json settings = json::array();
    for (const algo::Setting& d : a.settings) settings.push_back(d.name);
    algos.push_back({{"name", a.name}, {"summary", a.summary}, {"settings", settings}});
  }
  json scenarios = json::array();
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    PrintError("--dir " + dir + ": not a folder of scenarios (" +
               (std::filesystem::exists(dir, ec) ? "not a directory" : "no such directory") + ")");
    return kExitBadInput;
  }
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  if (ec) {
    PrintError("--dir " + dir + ": cannot read the folder: " + ec.message());
    return kExitBadInput;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      scenario::Scenario s =
          scenario::LoadScenarioFile(f.string(), scenario::LoadPurpose::kDescribe);
      // Algorithms the scenarios bring (Lua), each once, with where it is.
      for (const std::string& name : s.algorithms) {
        if (!name.starts_with("lua:")) continue;
        const bool known = std::any_of(algos.begin(), algos.end(),
                                       [&](const json& a) { return a["name"] == name; });
        if (!known) {
          algos.push_back({{"name", name},
                           {"summary", "written in Lua, in " + f.string()},
                           {"scenario", f.string()}});
        }
      }
      scenarios.push_back({{"file", f.string()},
                           {"name", s.name},
                           {"expect", s.expect.stated ? json(s.expect.Text()) : json(nullptr)},
                           {"has_schedule", s.has_schedule},
                           {"starts_programs", !s.programs.empty()},
                           {"description", s.description}});
    } catch (const scenario::ScenarioError& e) {
      scenarios.push_back({{"file", f.string()}, {"error", e.expected}});
    }
  }
  if (as_json) {
    std::cout << json{{"algorithms", algos}, {"scenarios", scenarios}}.dump(2) << "\n";
    return kExitSafe;
  }
  std::cout << "Algorithms:\n";
  for (const auto& a : algos) {
    std::cout << "  " << base::Printable(a["name"].get<std::string>()) << "\n      "
              << base::Printable(a["summary"].get<std::string>()) << "\n";
    if (a.contains("settings") && !a["settings"].empty()) {
      std::string names;
      for (const auto& n : a["settings"])
        names += (names.empty() ? "" : ", ") + n.get<std::string>();
      std::cout << "      lock settings: " << names << "\n";
    }
  }
  std::cout << "Scenarios (" << dir << "):\n";
  for (const auto& s : scenarios) {
    std::cout << "  " << base::Printable(s["file"].get<std::string>());
    if (s.contains("error")) {
      std::cout << "\n      ERROR: " << base::Printable(s["error"].get<std::string>()) << "\n";
      continue;
    }
    std::cout << "  [expect "
              << (s["expect"].is_null() ? "not stated" : s["expect"].get<std::string>())
              << (s["has_schedule"].get<bool>() ? ", with schedule" : "")
              << (s["starts_programs"].get<bool>() ? ", starts programs" : "") << "]\n      "
              << base::Printable(s["description"].get<std::string>()) << "\n";
  }
  return kExitSafe;
}

}  // namespace lockstep::cli
