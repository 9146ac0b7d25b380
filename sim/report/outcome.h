// What `lockstep test` and `explore --report` say of one scenario's search:
// its outcome against the one it expects, in a form every report format
// (junit, github, sarif) reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/trace/trace.h"

namespace lockstep::report {

struct Outcome {
  std::string file;      // the scenario, as it was named
  std::string name;      // its "name", or its file's stem
  std::string expected;  // scenario::Expectation::Text(): "safe", "vacuous", "violation:P"
  // What the search found: "safe", "vacuous", "violation:P", "incomplete"
  // (it stopped at a bound) or "error" (it could not run).
  std::string found;
  bool passed = false;  // found is what the scenario expects
  std::string summary;  // one line: what was found, and why it fails if it does
  std::string details;  // more lines: an error's text, or the counterexample's timeline
  double seconds = 0;   // the search's own time
  uint64_t states = 0;
  std::optional<trace::Trace> counterexample;  // when found is a violation
  std::string counterexample_file;             // where explore saved it
  std::string one_line;                        // its pin (trace::OneLine)
};

// The outcome of `lockstep explore FILE --json`: its report (empty when it
// printed none), its exit code and what it said on stderr. The
// counterexample is read back from the file the report names.
Outcome FromExploreReport(const std::string& file, const nlohmann::json& report, int exit_code,
                          const std::string& errors);

// An outcome that failed before any report: `why` says what happened.
Outcome Failed(const std::string& file, const std::string& found, const std::string& why);

}  // namespace lockstep::report
