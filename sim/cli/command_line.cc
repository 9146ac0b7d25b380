#include "sim/cli/command_line.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/base/printable.h"
#include "sim/cli/allow_command.h"
#include "sim/cli/commands.h"
#include "sim/cli/explore_command.h"
#include "sim/cli/help_text.h"
#include "sim/cli/memory_bound.h"
#include "sim/cli/render_command.h"
#include "sim/cli/terminal.h"
#include "sim/cli/test_command.h"
#include "sim/explore/strategy_registry.h"
#include "sim/lang/language.h"
#include "sim/replay/redis_replay.h"
#include "sim/run/stop_signals.h"
#include "sim/run/version.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/seed.h"
#include "sim/world/fault_kind.h"

namespace lockstep::cli {
namespace {

// Every path option: an empty name is a usage error, never "here" or "/".
const CLI::Validator kPath(
    [](std::string& path) {
      return path.empty() ? std::string("expected a path, got an empty one") : "";
    },
    "PATH");

// A seed is what a trace can carry, on the command line as in files.
const CLI::Validator kSeed(
    [](std::string& text) {
      return trace::ParseSeed(text) ? std::string()
                                    : "expected " + trace::SeedRange() + ", got \"" + text + "\"";
    },
    "SEED");

// A language, as lang::ParseLanguage reads it; "{en,zh}" in the help is
// what the shell completion offers.
const CLI::Validator kLanguage(
    [](std::string& text) {
      try {
        lang::ParseLanguage(text);
        return std::string();
      } catch (const base::InputError& e) {
        return e.expected;
      }
    },
    "{en,zh}");

// "dfs (exhaustive depth-first search, the default), random (...) or pct (...)".
std::string StrategyHelp() {
  const auto& strategies = explore::Strategies();
  std::string text;
  for (size_t i = 0; i < strategies.size(); ++i) {
    text += (i == 0                       ? ""
             : i + 1 == strategies.size() ? " or "
                                          : ", ") +
            std::string(strategies[i].name) + " (" + std::string(strategies[i].help) + ")";
  }
  return text;
}

// Whether the command line gives an option depth first reads and breadth
// first does not: with no --strategy, it chooses depth first.
bool DepthFirstOptionsGiven(const CLI::App& explore) {
  const explore::StrategyEntry* dfs = explore::FindStrategy("dfs");
  const explore::StrategyEntry* bfs = explore::FindStrategy("bfs");
  for (std::string_view option : dfs->options) {
    if (std::find(bfs->options.begin(), bfs->options.end(), option) != bfs->options.end()) continue;
    if (explore.count(std::string(option)) > 0) return true;
  }
  return false;
}

}  // namespace

int RunCommandLine(const std::vector<std::string>& args) {
  namespace sc = lockstep::scenario;
  std::vector<const char*> argv = {"lockstep"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  const int argc = static_cast<int>(argv.size());
  // A command line run in the same process as an earlier one (the fuzz
  // target) starts with no stop requested.
  run::StopRequested().store(false);
  scenario::SetProgramsAllowed(false);
  CLI::App app{"lockstep: a deterministic simulator and race explorer for Redis locks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", run::VersionText("lockstep"),
                       "Print the version and the commit");
  app.set_help_all_flag("--help-all", "Show help for every subcommand");

  // --lang, on every command that shows words: checked once parsed (exit 2).
  std::optional<std::string> language_text;
  const std::string language_help =
      "Show the words in en (English) or zh (Chinese) (default: from LC_ALL, LC_MESSAGES or "
      "LANG; zh* is Chinese)";
  OutputOptions out;
  TerminalOptions terminal;
  // The timeline's options, on every command that prints one.
  auto add_terminal = [&terminal, &language_text, &language_help](CLI::App* command) {
    command
        ->add_option("--width", terminal.width,
                     "Fit the timeline to this many columns (0: no limit; default: the "
                     "terminal's, or $COLUMNS)")
        ->check(CLI::Validator(
            [](const std::string& text) -> std::string {
              const long v = std::strtol(text.c_str(), nullptr, 10);
              return v == 0 || (v >= 20 && v <= 10000) ? ""
                                                       : "expected 0 (no limit) or 20 to 10000";
            },
            "0|20..10000"));
    command->add_flag("--compact", terminal.compact, "One line per step");
    command->add_flag("--no-why", terminal.no_why,
                      "Leave out the reasons the algorithms give under their steps");
    command->add_option("--color", terminal.color, "Colour: auto (on a terminal), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    command->add_option("--lang", language_text, language_help)->check(kLanguage);
  };
  std::string file;
  uint64_t seed = 0;
  std::optional<int> max_steps;
  std::string dir = DefaultScenarioDir();
  bool json = false;
  bool fields = false;

  auto* replay =
      app.add_subcommand("replay", "Replay a scenario's schedule or a saved trace, step by step");
  replay->add_option("FILE", file, "Scenario with a schedule, or a trace")
      ->required()
      ->check(kPath);
  replay->add_option("--trace-out", out.trace_out, "Write the trace (JSON) here; - for stdout")
      ->check(kPath);
  auto* replay_json = replay->add_flag("--json", out.json, "Print a machine-readable summary");
  replay::RedisReplayOptions redis;
  auto* redis_opt = replay->add_option(
      "--redis", redis.address,
      "Replay the trace's commands on a real Redis server at redis://USER:PASSWORD@HOST:PORT, one "
      "connection per client, as a user allowed the model's commands alone (without one, lockstep "
      "prints how to make it)");
  redis_opt->excludes(replay_json)->excludes("--trace-out");
  replay
      ->add_flag("--redis-flush", redis.flush,
                 "With --redis: empty database 0, the one the replay uses, first (FLUSHDB; "
                 "else it must be empty); other databases are left as they are")
      ->needs(redis_opt);
  auto* redis_server_opt =
      replay
          ->add_option("--redis-server", redis.server_binary,
                       "Replay on redis-servers that lockstep starts (PATH, default: "
                       "redis-server on PATH), one per server of the trace, with their clocks "
                       "set to the trace's instants and its faults applied: exact")
          ->expected(0, 1);
  redis_server_opt->excludes(replay_json)->excludes("--trace-out")->excludes(redis_opt);

  auto* run = app.add_subcommand("run", "Run one random schedule of a scenario from a seed");
  run->add_option("SCENARIO", file, "Scenario file")->required()->check(kPath);
  run->add_option("--seed", seed, "Seed of the random schedule")->required()->check(kSeed);
  run->add_option("--max-steps", max_steps, "Stop after this many steps")
      ->check(CLI::Range(1, base::Limits::kMaxSteps));
  run->add_option("--trace-out", out.trace_out, "Write the trace (JSON) here; - for stdout")
      ->check(kPath);
  std::string max_memory;
  const std::string memory_help =
      "Stop (exit 3) once the process uses this much memory, e.g. 512M or 4G (default: half "
      "of physical memory)";
  run->add_option("--max-memory", max_memory, memory_help);
  run->add_flag("--json", out.json, "Print a machine-readable summary");

  ExploreOptions ex;
  bool no_cache = false, no_symmetry = false, no_por = false;
  auto* explore = app.add_subcommand("explore", "Search a scenario's schedules for a violation");
  explore->add_option("SCENARIO", ex.file, "Scenario file")->required()->check(kPath);
  auto* strategy_opt = explore->add_option("--strategy", ex.strategy, StrategyHelp())
                           ->check(CLI::IsMember(explore::StrategyNames()));
  // Hunting a violation: breadth-first, so the first one found is a
  // shortest one and needs no shrinking (SPIN's -DBFS).
  auto* shortest_opt =
      explore
          ->add_flag_callback(
              "--shortest", [&ex] { ex.strategy = "bfs"; },
              "Find a shortest counterexample first: the same as --strategy bfs, which stops at "
              "the first violation, already shortest")
          ->excludes(strategy_opt);
  explore
      ->add_flag_callback(
          "--distributed",
          [&ex] {
            ex.strategy = "distributed";
            ex.distributed = true;
          },
          "Search on the ranks Open MPI started (mpirun -np K lockstep explore SCENARIO "
          "--distributed): the states partitioned among them, breadth first; rank 0 reports")
      ->excludes(strategy_opt)
      ->excludes(shortest_opt);
  explore->add_option("--clients", ex.clients, "Keep the first N contending clients")
      ->check(CLI::Range(1, base::kMaxClients));
  explore->add_option("--max-steps", ex.max_steps, "Bound on the steps of an execution")
      ->check(CLI::Range(1, base::Limits::kMaxSteps));
  explore->add_option("--horizon", ex.horizon,
                      "The clock never passes this (at most the clock's start + " +
                          std::to_string(base::Limits::kMaxSpan) + "), or none: all time");
  explore
      ->add_option(
          "--preemptions", ex.preemptions,
          "Bound on preemptive switches (" + explore::StrategiesReading("--preemptions") + ")")
      ->check(CLI::Range(0, 1000));
  explore->add_option("--max-arg-delay", ex.max_arg_delay,
                      "Largest age of clock-based arguments: an integer, or none");
  explore->add_flag("--probabilistic", ex.probabilistic,
                    "Random back-offs and draws are random, each value as likely, not the "
                    "scheduler's choice: liveness holds with probability 1, or fails with a "
                    "positive one");
  explore
      ->add_option("--jobs", ex.jobs,
                   "Threads for the search (" + explore::StrategiesReading("--jobs") + ")")
      ->check(CLI::Range(1, 64));
  explore->add_option(
      "--faults", ex.faults,
      "Fault budgets, e.g. crash=1,stall=1 (kinds: " + world::FaultKindNames() + ")");
  explore
      ->add_option("--executions", ex.executions,
                   "Executions (" + explore::StrategiesReading("--executions") + ")")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000'000}));
  explore
      ->add_option("--depth", ex.depth,
                   "Bug depth d (" + explore::StrategiesReading("--depth") + ")")
      ->check(CLI::Range(1, 100));
  explore->add_option("--seed", ex.seed, "Seed (" + explore::StrategiesReading("--seed") + ")")
      ->check(kSeed);
  explore->add_option("--out", ex.out, "Folder for counterexamples (default: counterexamples)")
      ->check(kPath);
  explore->add_option("--max-memory", max_memory, memory_help);
  explore->add_flag("--json", ex.json, "Print a machine-readable report");
  explore->add_flag(
      "--no-cache", no_cache,
      "Plain enumeration: no state caching (" + explore::StrategiesReading("--no-cache") + ")");
  explore->add_flag("--no-symmetry", no_symmetry,
                    "No symmetry reduction (" + explore::StrategiesReading("--no-symmetry") + ")");
  explore->add_flag("--no-por", no_por,
                    "No partial-order reduction (" + explore::StrategiesReading("--no-por") + ")");
  explore
      ->add_option("--storage", ex.storage,
                   "How visited states are kept: fingerprint (default: 102 bits of a "
                   "128-bit fingerprint, a merge about n^2/2^103 likely), exact (each state "
                   "whole), hash-compact (64-bit fingerprints) or bitstate (a bit array); the "
                   "last two make SAFE probabilistic (" +
                       explore::StrategiesReading("--storage") + ")")
      ->check(CLI::IsMember(explore::StorageNames()));
  explore
      ->add_option("--bitstate-bits", ex.bitstate_bits,
                   "With --storage bitstate: the array holds 2^N bits (default 30: 128 MiB)")
      ->check(CLI::Range(10, 40));

  AddReportOption(explore, ex.reports);
  TestOptions tests;
  auto* test = AddTestCommand(app, tests);
  test->add_option("--max-memory", max_memory, memory_help + ", shared among the searches");

  auto* list = app.add_subcommand("list", "List the algorithms and the scenarios");
  list->add_option("--dir", dir, "Scenario folder")->check(kPath);
  list->add_flag("--json", json, "Print JSON");
  list->add_flag("--fields", fields, "Print the scenario file reference");

  auto* demo = app.add_subcommand("demo", "Show the documented race, then the GETSET fix holding");
  demo->add_option("--dir", dir, "Scenario folder")->check(kPath);
  int demo_part = 0;
  demo->add_option("--part", demo_part,
                   "Show only this part, 1 to " + std::to_string(kDemoParts) +
                       " (on a terminal, all of them pause for Enter between parts)")
      ->check(CLI::Range(1, kDemoParts));
  for (CLI::App* command : {replay, run, explore, demo}) add_terminal(command);

  RenderOutputs render_out;
  RenderRequest render_request;
  std::vector<std::string> allow_files;
  auto* allow = app.add_subcommand(
      "allow", "Trust the programs these files name, exactly as they are, to start from now on");
  allow->add_option("FILE", allow_files, "Scenarios or traces")->required()->check(kPath);

  auto* render = app.add_subcommand(
      "render", "Draw a trace's space-time diagram as SVG, PNG or a self-contained HTML page");
  render->add_option("TRACE", file, "Trace, or scenario with a schedule (none with --course)")
      ->check(kPath);
  render->add_option("--svg", render_out.svg, "Write the diagram as SVG here; - for stdout")
      ->check(kPath);
  render->add_option("--png", render_out.png, "Write the diagram as PNG here; - for stdout")
      ->check(kPath);
  render
      ->add_option("--html", render_out.html,
                   "Write an HTML page (diagram and steps) here; - for stdout")
      ->check(kPath);
  render
      ->add_option("--play-html", render_out.play_html,
                   "Write the scheduler game of a scenario as one web page (nothing fetched); "
                   "- for stdout")
      ->check(kPath);
  render->add_option("--steps", render_request.steps,
                     "Draw only steps A..B (A.. and ..B too): a slide's worth");
  render->add_flag("--hide-idle", render_request.hide_idle,
                   "Leave out the lanes of clients that do nothing in the steps drawn");
  render
      ->add_option("--font-size", render_request.font_size,
                   "Text size in pixels; the whole picture scales with it (default 12)")
      ->check(CLI::Range(6.0, 72.0));
  auto* course_opt =
      render
          ->add_option("--course", render_out.course,
                       "Write a course here: an index and a game's page per level, linked in "
                       "order (a new or empty folder, or a course written before)")
          ->check(kPath);
  render
      ->add_option("--levels", render_out.levels,
                   "The course file naming the levels (default: the shipped "
                   "scenarios/course/course.json)")
      ->check(kPath)
      ->needs(course_opt);
  render
      ->add_option("--clients", render_request.cut.clients,
                   "Cut a game to its first N contending clients (as explore --clients)")
      ->check(CLI::Range(1, base::kMaxClients));
  render->add_option("--lang", language_text, language_help)->check(kLanguage);
  render->add_option("--horizon", render_request.cut.horizon,
                     "Cut a game's time: the clock never passes this, or none (as explore "
                     "--horizon)");

  app.footer(HelpFooter(""));
  for (CLI::App* command : {replay, run, explore, test, list, demo, render, allow}) {
    command->footer(HelpFooter(command->get_name()));
  }
  for (CLI::App* command : {replay, run, explore, test, render}) AddAllowPrograms(command);

  // CLI11 takes an unknown first word, or an option before any subcommand,
  // for a missing subcommand: name it.
  if (argc > 1) {
    const std::string word = argv[1];
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      found = found || sub->get_name() == word;
    }
    const bool global =
        word == "--help" || word == "-h" || word == "--help-all" || word == "--version";
    if (!found && !global) {
      std::cerr << "lockstep: " << (word[0] == '-' ? "unknown option \"" : "unknown subcommand \"")
                << base::Printable(lockstep::json::Shorten(word)) << "\"; expected "
                << (word[0] == '-' ? "a subcommand first, one of " : "one of ") << known << "\n";
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv.data());
  } catch (const CLI::ExtrasError& e) {
    // "The following argument was not expected: --frob": say whose.
    std::string command = "lockstep";
    for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
    const std::string what = e.what();
    const size_t colon = what.find(": ");
    std::cerr << command << ": unknown option or argument "
              << base::Printable(lockstep::json::Shorten(
                     colon == std::string::npos ? what : what.substr(colon + 2)))
              << "; `" << command << " --help` lists the options\n";
    return kExitBadInput;
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  out.max_memory = DefaultMaxMemory();
  if (!max_memory.empty()) {
    try {
      out.max_memory = ParseSize(max_memory);
    } catch (const base::InputError& e) {
      std::cerr << "lockstep: --max-memory: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  ex.max_memory = out.max_memory;
  out.timeline = StyleFor(terminal, STDOUT_FILENO);
  ex.timeline = out.timeline;

  // Bad input and files that cannot be written end here, in one place.
  try {
    const lang::Language language =
        language_text ? lang::ParseLanguage(*language_text) : lang::DefaultLanguage();
    render_request.language = language;
    out.timeline.language = language;
    ex.timeline.language = language;
    if (*replay) {
      redis.managed = redis_server_opt->count() > 0;
      return redis.address.empty() && !redis.managed ? Replay(file, out)
                                                     : replay::ReplayOnRedis(file, redis);
    }
    if (*run) return Run(file, seed, max_steps, out);
    if (*explore) {
      // An option the chosen strategy does not read is refused, never
      // silently ignored: a search would say it ran without symmetry, say,
      // when it ran with it.
      // With no --strategy, an option only depth first reads chooses it.
      ex.depth_first_options = DepthFirstOptionsGiven(*explore);
      const explore::StrategyEntry* chosen =
          explore::FindStrategy(ex.strategy.empty() ? "dfs" : ex.strategy);
      for (const explore::StrategyEntry& e : explore::Strategies()) {
        for (std::string_view option : e.options) {
          if (!chosen || explore->count(std::string(option)) == 0 ||
              std::find(chosen->options.begin(), chosen->options.end(), option) !=
                  chosen->options.end()) {
            continue;
          }
          std::cerr << "lockstep explore: " << option << " does nothing with --strategy "
                    << chosen->name << "; it is read by " << explore::StrategiesReading(option)
                    << "\n";
          return kExitBadInput;
        }
      }
      ex.reductions.cache = !no_cache;
      ex.reductions.symmetry = !no_symmetry;
      ex.reductions.por = !no_por;
      return Explore(ex);
    }
    if (*test) {
      tests.max_memory = out.max_memory;
      return Test(tests);
    }
    if (*list) {
      if (fields) {
        std::cout << sc::FieldReference();
        return kExitSafe;
      }
      return List(dir, json);
    }
    if (*demo) {
      // Pause between parts only with a reader at a terminal: never in a pipe.
      const bool at_terminal = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0;
      return Demo(dir, out.timeline, demo_part, at_terminal ? &std::cin : nullptr);
    }
    if (*allow) return Allow(allow_files);
    if (*render) {
      const bool pictures = !render_out.svg.empty() || !render_out.png.empty() ||
                            !render_out.html.empty() || !render_out.play_html.empty();
      if (!render_out.course.empty() && (pictures || !file.empty())) {
        std::cerr << "lockstep render: --course DIR writes a course from its course file "
                     "(--levels); give it without a TRACE, --svg, --png, --html or --play-html\n";
        return kExitBadInput;
      }
      if (render_out.course.empty() && file.empty()) {
        std::cerr << "lockstep render: give a TRACE (or a scenario), or --course DIR\n";
        return kExitBadInput;
      }
      if (!pictures && render_out.course.empty()) {
        std::cerr << "lockstep render: give --svg OUT.svg, --png OUT.png, --html OUT.html, or "
                     "several (or --play-html GAME.html for a scenario's game, or --course DIR)\n";
        return kExitBadInput;
      }
      return Render(file, render_out, render_request);
    }
  } catch (const base::InputError& e) {
    PrintError(e.what());
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    // An algorithm threw (a Lua error), or is not deterministic: the
    // scenario's fault, not lockstep's.
    PrintError(file + ": " + e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    // The machine, or a limit on the process, refused memory: a bound
    // reached, as --max-memory is, not a crash.
    PrintError("out of memory: the machine refused an allocation (" + SizeText(ResidentBytes()) +
               " resident); --max-memory stops a search before this");
    return kExitBound;
  }
  return kExitBadInput;
}

}  // namespace lockstep::cli
