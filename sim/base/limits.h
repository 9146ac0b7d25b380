// Capacities fixed by the engine's representation, written once.
#pragma once

#include <cstddef>

namespace lockstep::base {

// Clients in one scenario: a state keeps per-client sets as 8-bit masks
// (acquired_after, sleep sets, the symmetry permutation), and the client
// names C1..C8 are single digits.
inline constexpr int kMaxClients = 8;

// Servers in one scenario.
inline constexpr size_t kMaxServers = 8;

}  // namespace lockstep::base
