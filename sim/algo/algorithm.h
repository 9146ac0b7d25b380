// The lock algorithms lockstep knows, by name, with the settings each declares.
//
// An algorithm is plain sequential code against world::Client. It must be
// deterministic: its behaviour may depend only on what the client API gives
// it (replies, its clock, its seeded random numbers).
//
// Each algorithm registers itself in its own file, so that adding one is
// one new file:
//
//   void RunMyLock(world::Client& c, const Settings& s);  // reads s.Int("ttl"), ...
//   constexpr Setting kMySettings[] = {{.name = "ttl", .help = "the lock's PX",
//                                       .min = 1, .max = 100, .default_value = 10}};
//   LOCKSTEP_ALGORITHM(my_lock, {.name = "my-lock",
//                                .summary = "SET NX PX; release by DEL",
//                                .make = MakeBody<RunMyLock>,
//                                .settings = kMySettings});
//
// The same works from a program that links lockstep: its registration is in
// its own object file, which its link keeps.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/algo/settings.h"
#include "sim/world/client.h"

namespace lockstep::algo {

using world::Millis;

using Body = std::function<void(world::Client&)>;

struct AlgorithmInfo {
  std::string_view name;
  std::string_view summary;
  Body (*make)(const Settings&);
  // What it reads of the scenario's "lock" object (see settings.h).
  std::span<const Setting> settings{};
  // It calls Client::Random() (numbers, not only tokens): its clients are
  // never interchangeable for symmetry. Without it, Random() throws. A
  // random back-off needs no number: Client::SleepBetween lets the search
  // try every length.
  bool draws_numbers = false;
  // No reply it reads holds a random token, its own or another client's: it
  // writes tokens and compares them only in scripts that run at the server
  // (a reply that holds one throws). When every client of a scenario
  // declares it, symmetry renames tokens with their clients.
  bool never_reads_tokens = false;
  // It draws its fencing tokens from lock.token_server, which a scenario
  // using it must name.
  bool needs_token_server = false;
  // Its lock value is a timestamp it takes over once expired: the loader
  // warns of an initial value of its key that is none.
  bool timestamp_lock = false;
  // Its decisions depend on times (clock readings, timestamps) only through
  // comparisons of times plus its settings, and the times it writes are
  // ClockPlus or Value::Time, the times it keeps across ForgetHistory are
  // its live_times, and it sends no absolute deadline (PXAT, EXPIREAT) at
  // or before time 0: a shift of every time shifts its behaviour. A search
  // without a horizon needs it (docs/design.md, "Time without a horizon").
  bool relative_time = false;
};

// The body that calls Run(client, settings, Args...).
template <auto Run, auto... Args>
Body MakeBody(const Settings& s) {
  return [s](world::Client& c) { Run(c, s, Args...); };
}

// Adds `info`, registered in `file`, to Algorithms(); use LOCKSTEP_ALGORITHM.
// A second algorithm of the same name is a broken invariant. A setting
// declared unlike another algorithm's setting of the same name (a program's
// own `retry_delay`, say, beside the shipped algorithms') is the program's
// error: SettingClash is printed on stderr and the process exits 2, at its
// start-up, before any test runs.
bool RegisterAlgorithm(const AlgorithmInfo& info, std::string_view file = {});

// An algorithm, by name, and the file that registers it ("" if unknown).
struct Declarer {
  std::string_view algorithm;
  std::string_view file;
};
// What a program is told when `a`, which `by_a` declares, and `b`, which
// `by_b` declares, have one name but differ: both declarations, how they
// differ, and the fix (the library's own declaration to reuse, when one of
// them is it).
std::string SettingClash(const Setting& a, const Declarer& by_a, const Setting& b,
                         const Declarer& by_b);

// At namespace scope in the algorithm's own file; `id` names the
// registration in that file.
#define LOCKSTEP_ALGORITHM(id, ...)                                       \
  [[maybe_unused]] static const bool lockstep_algorithm_registered_##id = \
      ::lockstep::algo::RegisterAlgorithm(::lockstep::algo::AlgorithmInfo __VA_ARGS__, __FILE__)

// The steps every algorithm takes once it holds the lock: enter the critical
// section, believing the lock valid until its own clock passes
// `valid_until`, and write the resource (with `token`) if the scenario has
// one (`write_resource`: WorldFacts::write_resource).
void HoldLock(world::Client& c, bool write_resource, Millis valid_until, int64_t token);

// Every algorithm registered, by name (never in the order of registration,
// which is the order of static initialisation).
std::span<const AlgorithmInfo> Algorithms();

// Returns nullptr iff there is no algorithm of that name.
const AlgorithmInfo* FindAlgorithm(std::string_view name);

// Every setting some algorithm declares, once each, in the order of
// Algorithms() and then of their declarations.
std::vector<Setting> AllSettings();

}  // namespace lockstep::algo
