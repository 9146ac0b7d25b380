// Every search strategy `lockstep explore` offers, in one table: its name,
// its help line, the options it reads, and how it runs. The command line
// takes its names, help and dispatch from here, so a strategy is added or
// renamed in this one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/explore/search.h"

namespace lockstep::explore {

// Exhaustive strategies visit every schedule within the bounds, so a safe
// verdict is a proof; sampling strategies run single executions.
enum class StrategyKind { kExhaustive, kSampling };

// What a strategy run is given; each strategy reads the fields its entry's
// `options` name.
struct StrategyRequest {
  SearchOptions search;     // reductions, bounds, jobs, progress, stop flag
  int max_steps = 0;        // sampling: the steps of one execution
  uint64_t executions = 0;  // sampling: how many
  int depth = 0;            // pct: the bug depth d
  uint64_t seed = 0;        // sampling: the seed of the whole run
};

struct StrategyEntry {
  std::string_view name;
  std::string_view help;  // one line, for --help
  StrategyKind kind;
  // The command-line options this strategy reads, e.g. "--preemptions".
  std::vector<std::string_view> options;
  SearchResult (*run)(const world::WorldConfig& config, const Properties& properties,
                      const StrategyRequest& request);
  // Its counterexamples are shortest already: they are not shrunk again.
  bool shortest = false;
};

// The strategies, the default first.
const std::vector<StrategyEntry>& Strategies();
// The entry named `name`, or nullptr.
const StrategyEntry* FindStrategy(std::string_view name);
std::vector<std::string> StrategyNames();
// The names of the strategies that read `option`, e.g. "random, pct".
std::string StrategiesReading(std::string_view option);

}  // namespace lockstep::explore
