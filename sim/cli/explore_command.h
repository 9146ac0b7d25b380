// `lockstep explore`: search a scenario's schedules for a violation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/limits.h"
#include "sim/explore/search.h"
#include "sim/explore/strategy_registry.h"
#include "sim/report/report_files.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"

namespace lockstep::cli {

struct ExploreOptions {
  std::string file;
  // A name of explore::Strategies(), or empty for the default: depth first,
  // but breadth first for a search without a horizon unless an option only
  // depth first reads is given (DefaultStrategy).
  std::string strategy;
  bool depth_first_options = false;  // such an option is given
  bool default_strategy = false;     // the strategy was chosen so
  std::optional<int> clients;
  std::optional<int> max_steps;
  std::optional<std::string> horizon;  // an integer, or "none"
  std::optional<int> preemptions;
  std::optional<std::string> max_arg_delay;  // integer or "none"
  bool probabilistic = false;                // random back-offs are draws, each as likely
  std::optional<std::string> faults;         // "crash=1,stall=1,..."
  int jobs = 1;
  uint64_t executions = base::Limits::kDefaultExecutions;
  int depth = base::Limits::kDefaultPctDepth;
  uint64_t seed = 0;  // random, pct
  bool json = false;
  std::string out = "counterexamples";
  uint64_t max_memory = 0;  // stop at this resident size (memory_bound.h); 0: none
  explore::Reductions reductions;
  std::string storage = "fingerprint";  // explore::ParseStorage
  std::optional<int> bitstate_bits;     // log2 of the bit array's bits
  // The distributed strategy on Open MPI's ranks (mpirun); rank 0 reports.
  bool distributed = false;
  trace::TimelineStyle timeline;
  std::vector<report::ReportFile> reports;  // --report: written after the search
};

int Explore(const ExploreOptions& o);

// The strategy an empty --strategy stands for, for scenario `s`.
std::string DefaultStrategy(const ExploreOptions& o, const scenario::Scenario& s);

}  // namespace lockstep::cli
