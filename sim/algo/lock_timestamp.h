// The SETNX documentation's lock value: a Unix time after which the lock is
// no longer valid ("SETNX lock.foo <current Unix time + lock timeout + 1>").
#pragma once

#include <optional>
#include <string>

#include "sim/world/client.h"

namespace lockstep::algo {

// The documentation's takeover steps: a client takes over "if the lock is
// expired because the Unix time at lock.foo is older than the current Unix
// time". Returns true iff `timestamp` < `now`.
inline bool TimestampExpired(world::Millis timestamp, world::Millis now) { return timestamp < now; }

// The lock value as a timestamp, or nullopt if it is not an integer (then
// it is no timestamp this algorithm wrote, and it is never taken over).
std::optional<world::Millis> ParseTimestamp(const std::string& value);

}  // namespace lockstep::algo
