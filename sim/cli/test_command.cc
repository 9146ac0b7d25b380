#include "sim/cli/test_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "sim/base/input_error.h"
#include "sim/base/printable.h"
#include "sim/cli/explore_jobs.h"
#include "sim/cli/memory_bound.h"
#include "sim/run/exit_codes.h"
#include "sim/run/stop_signals.h"
#include "sim/run/trace_file.h"
#include "sim/scenario/program_trust.h"
#include "sim/trace/json_reader.h"

namespace lockstep::cli {
namespace {

namespace fs = std::filesystem;

// A file found under the paths: a scenario to search, or one that cannot
// be (`broken` says why: it is a failure, never skipped).
struct Found {
  std::string file;
  std::string broken;
};

// Whether a folder's walk goes into `dir`: not hidden ones, nor npm's.
bool Walked(const fs::path& dir) {
  const std::string name = dir.filename().string();
  return name.empty() || (name[0] != '.' && name != "node_modules");
}

// What `file` is: a scenario that expects an outcome, one that does not
// (`named`: given by name, so that is a failure), or something else
// (nullopt: a trace, a course, a package file).
std::optional<Found> Classify(const std::string& file, bool named) {
  nlohmann::json doc;
  try {
    doc = run::ReadJsonFile(file);
  } catch (const base::InputError& e) {
    return Found{file, e.what()};
  }
  const bool scenario = doc.is_object() && !doc.contains("format") && doc.contains("clients");
  if (scenario && doc.contains("expect")) return Found{file, ""};
  if (named) {
    return Found{file, file + ": " +
                           (scenario ? "states no \"expect\": lockstep test holds a scenario to "
                                       "the outcome it expects"
                                     : "expected a scenario (an object with \"clients\")")};
  }
  return std::nullopt;
}

std::vector<Found> Collect(const std::vector<std::string>& paths) {
  std::vector<Found> found;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      throw base::InputError(path, "",
                             "expected a scenario file or a folder of them; none is there");
    }
    if (!fs::is_directory(status)) {
      if (auto f = Classify(path, true)) found.push_back(*f);
      continue;
    }
    std::vector<std::string> files;
    fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !Walked(it->path())) {
        it.disable_recursion_pending();
      } else if (it->is_regular_file(ec) && it->path().extension() == ".json") {
        files.push_back(it->path().string());
      }
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      if (auto f = Classify(file, false)) found.push_back(*f);
    }
  }
  return found;
}

// Where a scenario's counterexample goes: under --out, in the folders the
// scenario is in, so that two scenarios of one name never share a file.
std::string OutFor(const std::string& out, const std::string& file) {
  fs::path folder = out;
  for (const fs::path& part : fs::path(file).parent_path().relative_path()) {
    const std::string name = part.string();
    if (name == "." || name.empty()) continue;
    folder /= name == ".." ? "up" : name;
  }
  return folder.string();
}

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

// The live line on a terminal: "[3/37] a.json, b.json".
void ShowJobs(const JobsProgress& p) {
  if (!isatty(STDERR_FILENO)) return;
  std::string line = "[" + std::to_string(p.done) + "/" + std::to_string(p.total) + "] ";
  for (size_t i = 0; i < p.running.size(); ++i) line += (i ? ", " : "") + p.running[i];
  line = base::Printable(line);
  if (line.size() > 79) line = line.substr(0, 76) + "...";
  std::fprintf(stderr, "\r%-79s\r%s", "", line.c_str());
}

void ClearJobs() {
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%-79s\r", "");
}

// The outcome of job `end` of scenario `file`, as the report formats take it.
report::Outcome OutcomeOf(const std::string& file, const JobEnd& end,
                          std::optional<double> max_seconds) {
  if (!end.started) {
    return report::Failed(file, "incomplete",
                          std::string("not run: stopped by ") + run::SignalName(run::StopSignal()));
  }
  const nlohmann::json report = nlohmann::json::parse(end.out, nullptr, false);
  report::Outcome o = report::FromExploreReport(file, report, end.exit_code, end.err);
  o.seconds = end.seconds;  // the whole process's, shrinking and saving included
  if (end.timed_out) {
    o.passed = false;
    o.found = "incomplete";
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", *max_seconds);
    o.summary = "did not end within --max-seconds " + std::string(limit) + ": " + o.summary;
  } else if (end.stopped && !o.passed) {
    o.summary = std::string("stopped by ") + run::SignalName(run::StopSignal()) + ": " + o.summary;
  }
  return o;
}

void Print(const report::Outcome& o) {
  std::cout << (o.passed ? "PASS " : "FAIL ") << base::Printable(o.file) << ": "
            << base::Printable(o.summary) << " (" << Seconds(o.seconds) << ")\n";
  if (o.passed) return;
  if (!o.counterexample_file.empty()) {
    std::cout << "  replay it: lockstep replay " << base::Printable(o.counterexample_file) << "\n";
  }
  if (!o.one_line.empty()) std::cout << "  pin: " << base::Printable(o.one_line) << "\n";
  // An error's whole text, when it is more than the summary's one line.
  if (o.found == "error" && !o.details.empty() && o.details.find('\n') + 1 < o.details.size()) {
    std::cout << base::Printable(o.details, /*keep_newlines=*/true);
  }
}

}  // namespace

CLI::App* AddTestCommand(CLI::App& app, TestOptions& o) {
  auto* test = app.add_subcommand(
      "test", "Explore every scenario under the paths and hold each to the outcome it expects");
  test->add_option("PATH", o.paths,
                   "Scenario files, and folders searched for the *.json scenarios that state "
                   "\"expect\" (default: the working folder)");
  test->add_option("--jobs", o.jobs, "Searches run at once (default 1)")
      ->check(CLI::Range(size_t{1}, size_t{64}));
  test->add_option("--max-seconds", o.max_seconds,
                   "A scenario whose search has not ended after this many seconds fails, "
                   "saying so")
      ->check(CLI::PositiveNumber);
  test->add_option("--out", o.out,
                   "Folder for counterexamples, each under its scenario's folders (default: "
                   "counterexamples)");
  AddReportOption(test, o.reports);
  return test;
}

void AddReportOption(CLI::App* command, std::vector<report::ReportFile>& reports) {
  // A bad value is a usage error, said as CLI11 says the others.
  const CLI::Validator format(
      [](std::string& text) {
        try {
          report::ParseReportFile(text);
          return std::string();
        } catch (const base::InputError& e) {
          return e.expected;
        }
      },
      "");
  command
      ->add_option_function<std::vector<std::string>>(
          "--report",
          [&reports](const std::vector<std::string>& texts) {
            for (const std::string& text : texts) reports.push_back(report::ParseReportFile(text));
          },
          "Also write a report, FORMAT:FILE with FORMAT " + report::FormatNames() + " (repeatable)")
      ->check(format)
      ->type_name("FORMAT:FILE")
      ->allow_extra_args(false);
}

int Test(const TestOptions& given) {
  TestOptions o = given;
  if (o.paths.empty()) o.paths.push_back(".");
  const std::vector<Found> found = Collect(o.paths);
  if (found.empty()) {
    std::string paths;
    for (const std::string& p : o.paths) paths += (paths.empty() ? "" : ", ") + p;
    throw base::InputError("", "",
                           "found no scenario stating \"expect\" under " +
                               base::Printable(lockstep::json::Shorten(paths)));
  }
  std::vector<std::string> inputs, names;
  std::vector<std::vector<std::string>> jobs;
  std::vector<size_t> file_of_job;  // each job's index in `found`
  const uint64_t memory = std::max<uint64_t>(o.max_memory / o.jobs, 64 << 20);
  for (size_t i = 0; i < found.size(); ++i) {
    inputs.push_back(found[i].file);
    if (!found[i].broken.empty()) continue;
    file_of_job.push_back(i);
    names.push_back(fs::path(found[i].file).filename().string());
    jobs.push_back({"lockstep", "explore", found[i].file, "--json", "--out",
                    OutFor(o.out, found[i].file), "--max-memory", std::to_string(memory)});
    if (scenario::ProgramsAllowedByUser()) jobs.back().push_back("--allow-programs");
  }
  report::CheckReportFiles(o.reports, inputs);

  // Each scenario's outcome, printed in the files' order as they come.
  std::vector<std::optional<report::Outcome>> known(found.size());
  size_t printed = 0;
  auto print_known = [&] {
    for (; printed < known.size() && known[printed]; ++printed) {
      ClearJobs();
      Print(*known[printed]);
    }
  };
  for (size_t i = 0; i < found.size(); ++i) {
    if (!found[i].broken.empty())
      known[i] = report::Failed(found[i].file, "error", found[i].broken);
  }
  run::CooperativeStop cooperative;
  print_known();
  RunExploreJobs(
      jobs, names, o.jobs, o.max_seconds,
      [&](size_t job, const JobEnd& end) {
        const size_t i = file_of_job[job];
        known[i] = OutcomeOf(found[i].file, end, o.max_seconds);
        print_known();
      },
      ShowJobs);
  std::vector<report::Outcome> outcomes;
  for (auto& k : known) outcomes.push_back(std::move(*k));
  ClearJobs();
  report::WriteReports(o.reports, outcomes);
  size_t passed = 0;
  for (const report::Outcome& out : outcomes) passed += out.passed;
  const bool stopped = run::StopRequested().load();
  if (stopped) {
    std::cout << "stopped by " << run::SignalName(run::StopSignal())
              << ": the scenarios not searched to their end are failures\n";
  }
  std::cout << passed << " passed, " << outcomes.size() - passed << " failed\n";
  if (stopped) return run::kExitBound;
  return passed == outcomes.size() ? run::kExitSafe : run::kExitViolation;
}

}  // namespace lockstep::cli
