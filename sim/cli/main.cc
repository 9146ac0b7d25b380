// lockstep: a deterministic simulator and race explorer for Redis locks.
#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/cli/commands.h"
#include "sim/scenario/scenario.h"

int main(int argc, char** argv) {
  using namespace lockstep::cli;
  CLI::App app{"lockstep: a deterministic simulator and race explorer for Redis locks"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");

  OutputOptions out;
  std::string file;
  uint64_t seed = 0;
  std::optional<int> max_steps;
  std::string dir = DefaultScenarioDir();
  bool json = false;
  bool fields = false;

  auto* replay = app.add_subcommand("replay", "Replay a scenario's schedule or a saved trace, step by step");
  replay->add_option("FILE", file, "Scenario with a schedule, or a trace")->required();
  replay->add_option("--trace-out", out.trace_out, "Write the trace (JSON) here");
  replay->add_flag("--json", out.json, "Print a machine-readable summary");

  auto* run = app.add_subcommand("run", "Run one random schedule of a scenario from a seed");
  run->add_option("SCENARIO", file, "Scenario file")->required();
  run->add_option("--seed", seed, "Seed of the random schedule")->required();
  run->add_option("--max-steps", max_steps, "Stop after this many steps")
      ->check(CLI::Range(1, 10'000'000));
  run->add_option("--trace-out", out.trace_out, "Write the trace (JSON) here");
  run->add_flag("--json", out.json, "Print a machine-readable summary");

  auto* list = app.add_subcommand("list", "List the algorithms and the scenarios");
  list->add_option("--dir", dir, "Scenario folder");
  list->add_flag("--json", json, "Print JSON");
  list->add_flag("--fields", fields, "Print the scenario file reference");

  auto* demo = app.add_subcommand("demo", "Show the documented race, then the GETSET fix holding");
  demo->add_option("--dir", dir, "Scenario folder");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  if (*replay) return Replay(file, out);
  if (*run) return Run(file, seed, max_steps, out);
  if (*list) {
    if (fields) {
      std::cout << lockstep::scenario::kFieldReference;
      return kExitSafe;
    }
    return List(dir, json);
  }
  if (*demo) return Demo(dir);
  return kExitBadInput;
}
