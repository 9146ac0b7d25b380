#include "sim/report/outcome.h"

#include <filesystem>

#include "sim/base/input_error.h"
#include "sim/base/join.h"
#include "sim/run/trace_file.h"

namespace lockstep::report {
namespace {

using nlohmann::json;

std::string Stem(const std::string& file) { return std::filesystem::path(file).stem().string(); }

// The last line `text` says that is not empty: what ended a failed run.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return "";
  const size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// What a violation says of itself: "mutual_exclusion: C1 and C2 ...".
std::string ViolationText(const json& counterexample) {
  const json violation = counterexample.value("violation", json::object());
  return violation.value("property", std::string("?")) + ": " +
         violation.value("message", std::string());
}

// Reads the counterexample saved at `path` into `o`; a file that cannot be
// read is said in the details, not lost.
void ReadCounterexample(const std::string& path, Outcome& o) {
  if (path.empty()) return;
  o.counterexample_file = path;
  try {
    o.counterexample = run::LoadTraceFile(path);
    trace::TimelineStyle style;
    style.width = 120;
    o.details = trace::Timeline(*o.counterexample, style);
  } catch (const base::InputError& e) {
    o.details = std::string("the counterexample could not be read back: ") + e.what() + "\n";
  }
  o.details += "replay it: lockstep replay " + path + "\n";
  if (!o.one_line.empty()) o.details += "pin: " + o.one_line + "\n";
}

}  // namespace

Outcome Failed(const std::string& file, const std::string& found, const std::string& why) {
  Outcome o;
  o.file = file;
  o.name = Stem(file);
  o.expected = "not known";
  o.found = found;
  o.summary = why;
  return o;
}

Outcome FromExploreReport(const std::string& file, const json& report, int exit_code,
                          const std::string& errors) {
  if (!report.is_object() || !report.contains("verdict") || !report["verdict"].is_string()) {
    const std::string last = LastLine(errors);
    Outcome o =
        Failed(file, "error",
               last.empty() ? "explore ended with exit code " + std::to_string(exit_code) : last);
    o.details = errors;
    return o;
  }
  Outcome o;
  o.file = file;
  o.name = report.value("name", std::string());
  if (o.name.empty()) o.name = Stem(file);
  const json expect = report.value("expect", json());
  o.expected = expect.is_string() ? expect.get<std::string>() : "not stated";
  o.seconds = report.value("elapsed_s", 0.0);
  o.states = report.value("states", uint64_t{0});
  const std::string verdict = report["verdict"];
  if (verdict == "violation" && report.contains("counterexample")) {
    const json& c = report["counterexample"];
    o.found = "violation:" + c.value("violation", json::object()).value("property", std::string());
    o.one_line = c.value("one_line", std::string());
    o.summary =
        "violation of " + ViolationText(c) + " (" + std::to_string(c.value("steps", 0)) + " steps)";
    ReadCounterexample(c.value("file", std::string()), o);
  } else if (verdict == "safe") {
    const bool vacuous = report.value("vacuous", false);
    o.found = vacuous ? "vacuous" : "safe";
    o.summary =
        std::string(vacuous ? "vacuous SAFE: " : "SAFE") +
        (vacuous ? base::JoinWithAnd(report.value("never_entered", std::vector<std::string>{})) +
                       " never entered the critical section"
                 : "") +
        " (" + base::Thousands(o.states) + (o.states == 1 ? " state" : " states") + ")";
  } else {
    o.found = "incomplete";
    o.summary = "did not finish: " + report.value("incomplete", std::string("stopped")) +
                "; no violation found in " + base::Thousands(o.states) +
                (o.states == 1 ? " state" : " states");
  }
  o.passed = o.found == o.expected || (o.expected == "not stated" && o.found == "safe");
  if (o.passed) {
    o.summary += o.expected == "not stated" ? "" : ", as expected";
  } else if (o.expected != "not stated") {
    o.summary = "expected " + o.expected + ", found " + o.summary;
  }
  return o;
}

}  // namespace lockstep::report
