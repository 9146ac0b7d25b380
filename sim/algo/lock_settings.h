// The settings the shipped algorithms declare, each declared once here so
// that the scenario's "lock" object means one thing for all of them, and
// LockSettings, the typed form they read.
#pragma once

#include <string>
#include <string_view>

#include "sim/algo/algorithm.h"
#include "sim/base/limits.h"

namespace lockstep::algo {

inline constexpr Setting kKeySetting{.name = "key",
                                     .type = SettingType::kString,
                                     .help = "the lock's key",
                                     .default_text = "lock.foo"};
inline constexpr Setting kTimeoutSetting{.name = "timeout",
                                         .help = "T in ticks: a lock taken at time t stores t+T+1",
                                         .min = 0,
                                         .max = base::Limits::kMaxSpan,
                                         .default_value = 2};
inline constexpr Setting kRoundsSetting{
    .name = "rounds", .help = "acquisitions per client", .min = 1, .max = 1000, .default_value = 1};
inline constexpr Setting kRetryDelaySetting{.name = "retry_delay",
                                            .help = "sleep before retrying a held lock",
                                            .min = 0,
                                            .max = base::Limits::kMaxSpan,
                                            .default_value = 1};
inline constexpr Setting kReleaseWithLeaveSetting{
    .name = "release_with_leave",
    .type = SettingType::kBool,
    .help =
        "leave the critical section and release in one step, the clock read in that "
        "step (SPIN's model)",
    .default_value = 0};
inline constexpr Setting kTtlSetting{.name = "ttl",
                                     .help = "PX of SET-based locks: the lock's time to live",
                                     .min = 1,
                                     .max = base::Limits::kMaxSpan,
                                     .default_value = 10};

// The declarations above by the names a program that links lockstep reuses
// them by (<lockstep/lockstep.h>), for the message that tells it to.
struct SharedSetting {
  std::string_view name;  // "lockstep::kRetryDelaySetting"
  const Setting* setting;
};
inline constexpr SharedSetting kSharedSettings[] = {
    {"lockstep::kKeySetting", &kKeySetting},
    {"lockstep::kTimeoutSetting", &kTimeoutSetting},
    {"lockstep::kRoundsSetting", &kRoundsSetting},
    {"lockstep::kRetryDelaySetting", &kRetryDelaySetting},
    {"lockstep::kReleaseWithLeaveSetting", &kReleaseWithLeaveSetting},
    {"lockstep::kTtlSetting", &kTtlSetting}};

// The SETNX timestamp locks' settings, and the SET NX PX family's.
inline constexpr Setting kTimestampLockSettings[] = {kKeySetting, kTimeoutSetting, kRoundsSetting,
                                                     kRetryDelaySetting, kReleaseWithLeaveSetting};
inline constexpr Setting kTtlLockSettings[] = {kKeySetting, kTtlSetting, kRoundsSetting,
                                               kRetryDelaySetting};

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
  // The master that hands out fencing tokens, or -1 (WorldFacts).
  int token_instance = -1;

  // The values `s` has of the settings above; the others keep their defaults.
  static LockSettings From(const Settings& s);
};

// The body that calls Run(client, LockSettings::From(settings), Args...).
template <auto Run, auto... Args>
Body MakeLockBody(const Settings& settings) {
  return [s = LockSettings::From(settings)](world::Client& c) { Run(c, s, Args...); };
}

// HoldLock for the shipped algorithms.
inline void HoldLock(world::Client& c, const LockSettings& s, Millis valid_until, int64_t token) {
  HoldLock(c, s.write_resource, valid_until, token);
}

}  // namespace lockstep::algo
