// Capacities fixed by the engine's representation, and the bounds every
// scenario, run and search obeys, each written once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lockstep::base {

// Clients in one scenario: a state keeps per-client sets as 8-bit masks
// (acquired_after, sleep sets, the symmetry permutation), and the client
// names C1..C8 are single digits.
inline constexpr int kMaxClients = 8;

// Servers in one scenario.
inline constexpr size_t kMaxServers = 8;

// The bounds every scenario, run and search obeys, whether they come from a
// scenario file or the command line, and the defaults used when neither
// says otherwise.
struct Limits {
  // The clock's largest value: about 31 years in milliseconds.
  static constexpr int64_t kMaxTime = 1'000'000'000'000;
  // The longest span of time a scenario names: horizon - start, a TTL, a skew.
  static constexpr int64_t kMaxSpan = 10'000'000;
  // The most steps of one execution (a scenario's max_steps, --max-steps).
  static constexpr int kMaxSteps = 10'000'000;
  // The most values one random draw chooses among (Client::Draw): each is
  // a transition of its own.
  static constexpr int64_t kMaxDrawValues = 1'000;
  // A scenario's max_steps when it gives none.
  static constexpr int kDefaultMaxSteps = 10'000;
  // The states a breadth-first search for the shortest counterexample visits
  // before it gives up (shrinking, the demo, the viewer's hints).
  static constexpr uint64_t kShrinkStates = 2'000'000;
  // Sampling strategies (random, pct): executions, and PCT's bug depth.
  static constexpr uint64_t kDefaultExecutions = 10'000;
  static constexpr int kDefaultPctDepth = 3;
};

}  // namespace lockstep::base
