// The lock algorithms lockstep knows, by name, and the settings they share.
//
// An algorithm is plain sequential code against world::Client. It must be
// deterministic: its behaviour may depend only on what the client API gives
// it (replies, its clock, its seeded random numbers).
//
// Each algorithm registers itself in its own file, so that adding one is
// one new file:
//
//   LOCKSTEP_ALGORITHM(my_lock, {.name = "my-lock",
//                                .summary = "SET NX PX; release by DEL",
//                                .make = MakeBody<RunMyLock>});
//
// The same works from a program that links lockstep: its registration is in
// its own object file, which its link keeps.
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
  Millis ttl = 10;              // PX: the lock's time to live, in ticks
  bool write_resource = false;  // write the protected resource while holding
  int instances = 1;            // masters the client can address
  // The master that hands out fencing tokens (lock.token_server), or -1. It
  // is not one of Redlock's N: its INCR stands for a linearizable counter.
  int token_instance = -1;
  Millis request_timeout = 0;  // a lost request's timeout (for the world)
};

using Body = std::function<void(world::Client&)>;

struct AlgorithmInfo {
  std::string_view name;
  std::string_view summary;
  Body (*make)(const LockSettings&);
  // It calls Client::Random() (numbers, not only tokens): its clients are
  // never interchangeable for symmetry. Without it, Random() throws.
  bool draws_numbers = false;
  // It draws its fencing tokens from lock.token_server, which a scenario
  // using it must name.
  bool needs_token_server = false;
  // Its lock value is a timestamp it takes over once expired: the loader
  // warns of an initial value of its key that is none.
  bool timestamp_lock = false;
};

// The body that calls Run(client, settings, Args...).
template <auto Run, auto... Args>
Body MakeBody(const LockSettings& s) {
  return [s](world::Client& c) { Run(c, s, Args...); };
}

// Adds `info` to Algorithms(); use LOCKSTEP_ALGORITHM. A second algorithm
// of the same name is a broken invariant.
bool RegisterAlgorithm(const AlgorithmInfo& info);

// At namespace scope in the algorithm's own file; `id` names the
// registration in that file.
#define LOCKSTEP_ALGORITHM(id, ...)                                       \
  [[maybe_unused]] static const bool lockstep_algorithm_registered_##id = \
      ::lockstep::algo::RegisterAlgorithm(::lockstep::algo::AlgorithmInfo __VA_ARGS__)

// Every setting, as a label: two clients of one algorithm are
// interchangeable only if their labels are equal.
std::string SettingsLabel(const LockSettings& s);

// The steps every algorithm takes once it holds the lock: enter the critical
// section, believing the lock valid until its own clock passes
// `valid_until`, and write the resource (with `token`) if the scenario has one.
void HoldLock(world::Client& c, const LockSettings& s, Millis valid_until, int64_t token);

// Every algorithm registered, by name (never in the order of registration,
// which is the order of static initialisation).
std::span<const AlgorithmInfo> Algorithms();

// Returns nullptr iff there is no algorithm of that name.
const AlgorithmInfo* FindAlgorithm(std::string_view name);

}  // namespace lockstep::algo
