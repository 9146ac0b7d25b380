#include "sim/cli/explore_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <sys/ioctl.h>

#include "sim/base/hash.h"
#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/check/liveness.h"
#include "sim/cli/commands.h"
#include "sim/cli/explore_report.h"
#include "sim/cli/memory_bound.h"
#include "sim/cli/search_progress.h"
#include "sim/explore/communicator.h"
#include "sim/explore/strategy_registry.h"
#include "sim/kv/text.h"
#ifdef LOCKSTEP_HAVE_MPI
#include "sim/mpi/mpi_session.h"
#endif
#include "sim/run/explore.h"
#include "sim/run/messages.h"
#include "sim/run/output_file.h"
#include "sim/run/runner.h"
#include "sim/run/stop_signals.h"
#include "sim/run/trace_folders.h"
#include "sim/scenario/overrides.h"
#include "sim/trace/json_reader.h"

namespace lockstep::cli {
namespace {

using nlohmann::json;

// A file name from a scenario's name: any text, so only its first 64
// characters, each made safe, so that the file can always be created.
std::string SafeName(std::string s) {
  constexpr size_t kMaxLength = 64;
  if (s.size() > kMaxLength) s.resize(kMaxLength);
  for (char& c : s) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '-';
  }
  return s.empty() ? "scenario" : s;
}

// Where the counterexample of a violation of `property` is saved.
std::string CounterexamplePath(const ExploreOptions& o, const scenario::Scenario& s,
                               const std::string& property) {
  std::string base =
      SafeName(s.name.empty() ? std::filesystem::path(o.file).stem().string() : s.name);
  return o.out + "/" + base + "-" + property + "-" + std::to_string(s.world.clients.size()) +
         "clients.json";
}

// "dfs, random or pct": the strategies' names, for a message.
std::string StrategyChoices() {
  const std::vector<std::string> names = explore::StrategyNames();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

// The scenario as it will be searched: loaded, with the command line's
// overrides, every file a violation could be saved to checked. Throws
// base::InputError.
scenario::Scenario Prepare(ExploreOptions& o) {
  scenario::Scenario s = scenario::LoadScenarioFile(o.file);
  scenario::ApplyOverrides(s, {.clients = o.clients,
                               .horizon = o.horizon,
                               .max_arg_delay = o.max_arg_delay,
                               .faults = o.faults,
                               .probabilistic = o.probabilistic});
  run::Warn(o.file, s.warnings);
  if (o.strategy.empty()) {
    o.strategy = DefaultStrategy(o, s);
    o.default_strategy = true;
  }
  if (!explore::FindStrategy(o.strategy)) {
    throw base::InputError(
        "", "", "--strategy: expected " + StrategyChoices() + ", got \"" + o.strategy + "\"");
  }
  for (const std::string& property : s.properties) {
    run::CheckOutput("--out", CounterexamplePath(o, s, property), {o.file});
  }
  report::CheckReportFiles(o.reports, {o.file});
  const std::vector<std::string> liveness = check::LivenessIn(s.properties);
  if (o.strategy == "distributed" && !liveness.empty()) {
    throw base::InputError(o.file, "properties",
                           "the distributed search checks safety properties; " + liveness.front() +
                               " is a liveness property, judged on the whole graph in one "
                               "process: explore it without --distributed");
  }
  // Weighed draws are judged on the whole state graph, in one process, over
  // whole runs: a search that samples it, splits it or cuts its runs short
  // cannot give their verdicts or odds.
  const explore::StrategyEntry* strategy = explore::FindStrategy(o.strategy);
  std::string refused;
  if (strategy->kind != explore::StrategyKind::kExhaustive) refused = "--strategy " + o.strategy;
  if (o.strategy == "distributed") refused = "--strategy distributed";
  if (o.preemptions) refused = "--preemptions";
  if (o.max_steps) refused = "--max-steps";
  if (s.world.probabilistic && !refused.empty()) {
    throw base::InputError("", "",
                           refused +
                               ": draws weighed (--probabilistic or \"probabilistic\": true) "
                               "are judged on the whole state graph, in one process, over "
                               "whole runs: drop " +
                               refused + ", or weigh no draws");
  }
  return s;
}

// How visited states are kept, from --storage and --bitstate-bits. Throws
// base::InputError for a combination that cannot be honoured.
explore::StorageOptions StorageFrom(const ExploreOptions& o) {
  explore::StorageOptions storage;
  storage.kind = *explore::ParseStorage(o.storage);
  const bool bits = storage.kind == explore::Storage::kBitstate;
  if (o.bitstate_bits && !bits) {
    throw base::InputError("", "", "--bitstate-bits: expected --storage bitstate with it");
  }
  if (bits && o.max_steps) {
    throw base::InputError("", "",
                           "--storage bitstate: cannot bound the steps (--max-steps): a state "
                           "reached again sooner must be explored again, and a bit array keeps "
                           "no depths; use --storage hash-compact");
  }
  if (o.bitstate_bits) storage.bitstate_log2_bits = *o.bitstate_bits;
  // The array is allocated whole at the start: refused here, before any of
  // it is touched, if it alone passes the memory bound.
  const uint64_t array_bytes = (uint64_t{1} << storage.bitstate_log2_bits) / 8;
  if (bits && o.max_memory && array_bytes > o.max_memory) {
    throw base::InputError("", "--bitstate-bits",
                           "an array of 2^" + std::to_string(storage.bitstate_log2_bits) +
                               " bits takes " + SizeText(array_bytes) +
                               ", more than the memory bound (--max-memory " +
                               SizeText(o.max_memory) + "); give fewer bits or a larger bound");
  }
  return storage;
}

// What the strategy is given, from the command line and the scenario.
// Throws base::InputError.
explore::StrategyRequest MakeRequest(const ExploreOptions& o, const scenario::Scenario& s) {
  explore::StrategyRequest request;
  explore::SearchOptions& options = request.search;
  options.reductions = o.reductions;
  options.bounds.max_steps = o.max_steps;
  options.bounds.preemptions = o.preemptions;
  options.storage = StorageFrom(o);
  if (o.strategy == "distributed" && !o.reductions.cache) {
    throw base::InputError("", "",
                           "--no-cache: the distributed search partitions the visited states "
                           "among its ranks, so it keeps them");
  }
  if (o.strategy == "distributed" && o.preemptions) {
    throw base::InputError("", "",
                           "--preemptions: the distributed search cannot bound preemptions (each "
                           "state's identity would need the switches of the path to it); use "
                           "--strategy dfs");
  }
  options.jobs = o.jobs;
  options.interrupted = &run::StopRequested();
  request.max_steps = o.max_steps.value_or(s.max_steps);
  request.executions = o.executions;
  request.depth = o.depth;
  request.seed = o.seed;
  return request;
}

// The live line on a terminal's stderr, every quarter second or so, as
// wide as the terminal.
size_t StderrWidth() {
  struct winsize size {};
  return ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
}
void ClearProgress() { std::fprintf(stderr, "\r%*s\r", static_cast<int>(StderrWidth() - 1), ""); }
void ShowProgress(const explore::SearchStats& st, const std::optional<world::Millis>& horizon,
                  uint64_t max_memory) {
  if (st.elapsed_s < 1.0) return;
  const size_t width = StderrWidth();
  const std::string line = ProgressLine(st, horizon, ResidentBytes(), max_memory, width);
  // Padded over a longer line before it.
  std::fprintf(stderr, "\r%-*s", static_cast<int>(width - 1), line.c_str());
  std::fflush(stderr);
}

// Saves `t`, which ends in a violation, under o.out; returns its path.
// Throws base::InputError if it cannot be saved.
std::string SaveTrace(const ExploreOptions& o, const scenario::Scenario& s, const trace::Trace& t) {
  std::string path = CounterexamplePath(o, s, t.violation->property);
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  try {
    if (ec) {
      throw base::InputError(
          "", "",
          "cannot create the folder " + lockstep::json::Shorten(o.out) + ": " + ec.message());
    }
    run::WriteOutput(path, run::TraceTextFor(t, s.file, path));
  } catch (const base::InputError& e) {
    throw base::InputError("", "", lockstep::json::Shorten(e.what(), 400));
  }
  return path;
}

// After a SAFE: the end states where a client still waits, and a shortest
// execution to one, saved, in both reports.
void ReportStuck(const ExploreOptions& o, const scenario::Scenario& s,
                 const run::ExploreResult& result, json& report, std::ostream& text) {
  if (!result.exhaustive || !result.safe()) return;
  const bool checked =
      std::find(s.properties.begin(), s.properties.end(), "no_stuck_states") != s.properties.end();
  if (checked) return;  // they would have been violations
  report["stuck_states"] = result.stuck_states;
  if (result.stuck_states == 0) return;
  text << "STUCK: " << Thousands(result.stuck_states) << " end "
       << (result.stuck_states == 1 ? "state" : "states")
       << " where a client still waits for a clock that cannot move; the verdict covers no "
          "execution beyond them (\"no_stuck_states\" in the properties makes them violations)\n";
  if (!result.stuck) return;
  const trace::Trace& t = result.stuck->trace;
  const std::string path = SaveTrace(o, s, t);
  report["stuck"] = {{"steps", t.schedule.size()},
                     {"schedule", t.schedule},
                     {"file", path},
                     {"clients", t.violation->clients},
                     {"message", t.violation->message}};
  text << "the shortest, " << t.schedule.size() << " steps: " << t.violation->message << "\n\n"
       << trace::Timeline(t, o.timeline) << "\nsaved " << path << "\nreplay it: lockstep replay "
       << path << "\n";
}

// Saves the counterexample the search found and adds it to both reports.
// Throws base::InputError if it cannot be saved.
void SaveCounterexample(const ExploreOptions& o, const scenario::Scenario& s,
                        const run::Counterexample& c,
                        const std::function<std::string()>& stop_reason, json& report,
                        std::ostream& text) {
  const trace::Trace& t = c.trace;
  std::string how = "shortest, by breadth-first search";
  if (!c.shrunk) {
    how = "as found";
    if (run::StopRequested().load()) {
      how = "as found: not shrunk, stopped by " + stop_reason();
      report["interrupted"] = stop_reason();
    }
  }
  const std::string path = SaveTrace(o, s, t);
  report["counterexample"] = {{"steps", t.schedule.size()},
                              {"found_steps", c.found_steps},
                              {"shrunk", how},
                              {"schedule", t.schedule},
                              {"file", path},
                              {"replay", "lockstep replay " + path},
                              {"violation",
                               {{"property", t.violation->property},
                                {"clients", t.violation->clients},
                                {"step", t.violation->step},
                                {"message", t.violation->message}}}};
  text << "VIOLATION of " << t.violation->property << ": " << t.violation->message << "\n";
  if (t.lasso) {
    report["counterexample"]["lasso"] = {{"start", t.lasso->start}, {"length", t.lasso->length}};
    text << "counterexample: a lasso, " << t.lasso->start << " steps to the cycle (a shortest "
         << "way there), then its " << t.lasso->length << " steps, shown twice\n\n";
  } else {
    text << "counterexample: " << t.schedule.size() << " steps (" << how << "; the search found "
         << c.found_steps << ")\n\n";
  }
  text << trace::Timeline(t, o.timeline) << "\n";
  AddOneLine(t, report["counterexample"], text);
  text << "saved " << path << "\nreplay it: lockstep replay " << path << "\n";
}

int Search(const ExploreOptions& o, explore::Communicator* ranks);

#ifdef LOCKSTEP_HAVE_MPI
// Ranks other than 0 compute what rank 0 does and say nothing.
void Silence() {
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  dup2(null, STDOUT_FILENO);
  dup2(null, STDERR_FILENO);
  close(null);
}
#endif

// Search, with every way out an exit code: what stops it is said here.
int Reported(const ExploreOptions& o, explore::Communicator* ranks) {
  try {
    return Search(o, ranks);
  } catch (const base::InputError& e) {
    PrintError(e.what());  // already names its file and place
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    // A stop heeded inside a run (a process client's wait) ends it with an
    // exception: the search stopped, as it does between runs.
    if (run::StopRequested().load()) {
      const int signal = run::StopSignal();
      PrintError(std::string("search stopped by ") +
                 (signal != 0 ? run::SignalName(signal)
                              : "the memory bound (--max-memory " + SizeText(o.max_memory) + ")"));
      return kExitBound;
    }
    // An algorithm threw, or is not deterministic: the scenario's fault.
    PrintError(o.file + ": " + e.what());
    return kExitBadInput;
  }
}

}  // namespace

std::string DefaultStrategy(const ExploreOptions& o, const scenario::Scenario& s) {
  // Without a horizon, a depth-first execution runs the clock on through
  // new states for as long as the space has any: its length, bounded only
  // by --max-steps, is not a sign of a loop, and every client meets ever
  // later times its automaton must learn. Breadth first, executions are as
  // long as the space is deep (Redlock for all time: 126 steps against
  // more than 10,000).
  return !s.world.horizon && !o.depth_first_options ? "bfs" : "dfs";
}

int Explore(const ExploreOptions& o) {
  if (!o.distributed) return Reported(o, nullptr);
#ifdef LOCKSTEP_HAVE_MPI
  int code = kExitSafe;
  {
    mpi::Session session;  // finalised on every way out
    explore::Communicator& ranks = session.world();
    if (ranks.rank() != 0) Silence();
    code = Reported(o, &ranks);
    // The ranks agree on the outcome before any exits, and rank 0, which
    // alone speaks, has said it: mpirun ends the job at the first rank
    // that exits non-zero, before the others could say anything. Every
    // rank gets here, whatever stopped it: errors in the search are
    // shared within it, and errors outside it are every rank's alike.
    std::vector<uint64_t> codes(static_cast<size_t>(ranks.size()), 0);
    codes[static_cast<size_t>(ranks.rank())] = static_cast<uint64_t>(code);
    codes = ranks.Sum(codes);
    if (code == kExitSafe) code = static_cast<int>(*std::max_element(codes.begin(), codes.end()));
    std::cout.flush();
    std::cerr.flush();
    if (ranks.rank() != 0) code = kExitSafe;
  }
  return code;
#else
  throw base::InputError("", "",
                         "--distributed: this lockstep was built without Open MPI (install "
                         "libopenmpi-dev and build again); --strategy distributed runs the "
                         "same search as one rank");
#endif
}

namespace {

int Search(const ExploreOptions& given, explore::Communicator* ranks) {
  ExploreOptions o = given;
  const scenario::Scenario s = Prepare(o);
  run::ExploreOptions options;
  options.strategy = o.strategy;
  options.request = MakeRequest(o, s);
  options.request.search.communicator = ranks;
  const bool reports = !ranks || ranks->rank() == 0;
  const bool live = reports && !o.json && isatty(STDERR_FILENO);
  if (live) {
    options.request.search.progress = [horizon = s.world.horizon,
                                       bound = o.max_memory](const explore::SearchStats& st) {
      ShowProgress(st, horizon, bound);
    };
  }
  options.found = [live](size_t steps) {
    if (live) ClearProgress();
    // One write: a reader of stderr sees the line whole.
    std::cerr << ("lockstep: violation found in " + std::to_string(steps) +
                  " steps; shrinking it (a stop signal saves it as found)\n")
              << std::flush;
  };
  // Until Explore returns: a stop signal while the counterexample is shrunk
  // stops the shrinking, and the counterexample found is saved as it is.
  run::CooperativeStop cooperative;
  std::optional<MemoryWatch> watch;
  if (o.max_memory) watch.emplace(o.max_memory);
  // Why the work stopped early: a signal's name, or the memory bound (on
  // this rank or, in a distributed search, on any).
  bool memory_exceeded = false;
  auto stop_reason = [&]() -> std::string {
    if (memory_exceeded || (watch && watch->exceeded()))
      return "the memory bound (--max-memory " + SizeText(o.max_memory) + ")";
    return run::SignalName(run::StopSignal());
  };

  run::ExploreResult result = run::Explore(s, options);
  if (ranks) {
    // Every rank leaves the search together: rank 0 learns whether another
    // one stopped at its memory bound.
    memory_exceeded = ranks->Sum({watch && watch->exceeded() ? 1u : 0u})[0] > 0;
  }
  explore::SearchResult& r = result.search;
  // The violation reported is the counterexample's: shrinking finds the
  // shortest violation of any property, which may not be the one found.
  if (result.counterexample) r.violation = result.counterexample->trace.violation;
  if (live) ClearProgress();
  if (r.verdict == explore::Verdict::kIncomplete && r.incomplete == "interrupted") {
    if (memory_exceeded || (watch && watch->exceeded())) {
      r.incomplete = "stopped at " + stop_reason();
    }
    PrintError("search stopped by " + stop_reason());
  }

  // The verdict's exit code is rank 0's alone: mpirun returns the first
  // non-zero code, and calls every non-zero rank a failure.
  if (!reports) return kExitSafe;
  json report = MakeReport(o, s, result);
  run::Warn(o.file, r.warnings);
  std::ostringstream text;
  const uint64_t peak = PeakResidentBytes();
  const uint64_t texts = kv::Text::KeptBytes();
  const uint64_t programs = watch ? watch->programs_peak() : 0;
  report["memory"] = MemoryJson(r.stats, peak, texts, programs);
  if (r.stats.clock_reached) report["clock_reached"] = *r.stats.clock_reached;
  text << SearchHeader(o, s, result) << StorageText(options.request.search.storage, r.stats)
       << MemoryText(r.stats, peak, texts, programs);
  if (ranks) {
    report["distributed"] = {{"ranks", ranks->size()},
                             {"states_sent", r.stats.states_sent},
                             {"bytes_sent", r.stats.bytes_sent}};
    text << "distributed: " << ranks->size()
         << (ranks->size() == 1 ? " rank of Open MPI"
                                : " ranks of Open MPI, each keeping the states that hash to it; "
                                  "counts summed")
         << "; " << Thousands(r.stats.states_sent) << " states sent to their owner ("
         << Thousands(r.stats.bytes_sent) << " bytes)\n";
  }
  if (result.liveness) {
    // Liveness keeps the whole graph: no symmetry, no sleep sets.
    report["liveness"] = {{"states", result.liveness->states},
                          {"transitions", result.liveness->transitions},
                          {"elapsed_s", result.liveness->elapsed_s}};
    text << (s.world.probabilistic
                 ? "liveness (fair end components: weak fairness of clients, clock and "
                   "replication; random draws each value as likely): "
                 : "liveness (fair cycles, weak fairness of clients, clock and replication): ")
         << Thousands(result.liveness->states) << " states, "
         << Thousands(result.liveness->transitions) << " transitions, "
         << result.liveness->elapsed_s << " s\n";
  }
  int code = kExitSafe;
  if (r.verdict == explore::Verdict::kViolation) {
    code = kExitViolation;
    SaveCounterexample(o, s, *result.counterexample, stop_reason, report, text);
    AddOdds(result, report, text);
  } else if (r.verdict == explore::Verdict::kSafe) {
    text << SafeText(s, result);
    ReportStuck(o, s, result, report, text);
    if (result.vacuous()) code = kExitVacuous;
  } else {
    code = kExitBound;
    text << "INCOMPLETE: " << r.incomplete << "; no violation found so far\n";
  }
  // The expectation is about the scenario as written, over every schedule.
  const bool as_written = !o.clients && !o.max_steps && !o.horizon && !o.preemptions &&
                          !o.max_arg_delay && !o.faults && !o.probabilistic;
  if (as_written && r.verdict != explore::Verdict::kIncomplete) {
    run::Warn(o.file, {run::Unexpected(s, r.violation ? r.violation->property : "",
                                       result.exhaustive, result.known_vacuous())});
  }
  // What the reports say is what the --json report says.
  if (!o.reports.empty()) {
    report::WriteReports(o.reports, {report::FromExploreReport(o.file, report, code, "")});
  }
  if (o.json) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << text.str();
  }
  return code;
}

}  // namespace

}  // namespace lockstep::cli
