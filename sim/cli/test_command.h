// `lockstep test [PATH...]`: every scenario under the paths that says what
// it expects, explored as `lockstep explore` would, each outcome held to its
// "expect"; a summary, an exit code CI reads, and --report files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/report/report_files.h"

namespace lockstep::cli {

struct TestOptions {
  std::vector<std::string> paths;     // files and folders; none: the working folder
  size_t jobs = 1;                    // searches at once
  std::optional<double> max_seconds;  // per scenario; reaching it fails the scenario
  std::string out = "counterexamples";
  uint64_t max_memory = 0;  // the whole run's bound, shared among the jobs
  std::vector<report::ReportFile> reports;
};

// Registers `lockstep test` on `app`, its options read into `o`.
CLI::App* AddTestCommand(CLI::App& app, TestOptions& o);

// Gives `command` the option --report FORMAT:FILE (repeatable), read into
// `reports`.
void AddReportOption(CLI::App* command, std::vector<report::ReportFile>& reports);

// Runs it; returns the exit code: 0 every scenario's outcome is the one it
// expects, 1 some scenario failed, 2 bad input, 3 stopped by a signal
// first. Throws base::InputError for a path that is not there.
int Test(const TestOptions& o);

}  // namespace lockstep::cli
