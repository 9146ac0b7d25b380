// The lock algorithms lockstep knows, by name, and the settings they share.
//
// An algorithm is plain sequential code against world::Client. It must be
// deterministic: its behaviour may depend only on what the client API gives
// it (replies, its clock, its seeded random numbers).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "sim/world/client.h"

namespace lockstep::algo {

using world::Millis;

struct LockSettings {
  std::string key = "lock.foo";
  Millis timeout = 2;      // T: a lock taken at time t stores t + T + 1
  int rounds = 1;          // how many times the client takes the lock
  Millis retry_delay = 1;  // the sleep before retrying a lock that is held
  // Leave the critical section and release in one step (the SPIN reference
  // model's release); otherwise leaving is a step and the release another.
  bool release_with_leave = false;
};

using Body = std::function<void(world::Client&)>;

struct AlgorithmInfo {
  std::string_view name;
  std::string_view summary;
  Body (*make)(const LockSettings&);
};

// Every algorithm, in a fixed order.
std::span<const AlgorithmInfo> Algorithms();

// Returns nullptr iff there is no algorithm of that name.
const AlgorithmInfo* FindAlgorithm(std::string_view name);

}  // namespace lockstep::algo
