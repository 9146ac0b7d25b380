#include "sim/explore/time_line.h"

#include <cstdlib>

namespace lockstep::explore {

world::Millis TimeWindow(const world::WorldConfig& c) {
  // Every constant an algorithm or the world can add to a time, summed:
  // no comparison can tell apart two times further apart than this.
  world::Millis sum = 2;
  for (const world::ClientSetup& cl : c.clients) {
    sum += cl.time_constants + cl.request_timeout + std::abs(cl.skew);
  }
  const world::Assumptions& a = c.assumptions;
  sum += a.max_arg_delay.value_or(0) + a.max_hold_ticks.value_or(0) + a.max_ready_ticks.value_or(0);
  for (const world::ServerConfig& sc : c.servers) {
    sum += std::abs(sc.skew) + sc.restart_delay + sc.sync_every;
  }
  for (world::Millis by : c.faults.jump_by) sum += std::abs(by) * c.faults.jump;
  return 2 * sum;
}

// Redis refuses a deadline at or before time 0 ("invalid expire time"),
// so a clock near 0 may behave unlike the same clock later. The latest
// clock at which that can happen, or -1 if it cannot: a server whose clock
// falls behind (a negative skew, backward jumps) refuses SET ... PX n at
// its time -1 or before; a Lua client may send an absolute deadline (PXAT,
// EXPIREAT) of its clock, skewed, less up to its time_constants. Built-in
// algorithms send none, and a C++ one promises not to send one at or
// before 0 (docs/design.md, "Time without a horizon").
world::Millis LatestNearZero(const world::WorldConfig& c) {
  world::Millis latest = -1;
  for (const world::ClientSetup& cl : c.clients) {
    if (!cl.algorithm.starts_with("lua:")) continue;
    latest = std::max(latest, std::max<world::Millis>(0, -cl.skew) + cl.time_constants);
  }
  world::Millis back = 0;
  for (world::Millis by : c.faults.jump_by) back = std::max<world::Millis>(back, -by);
  for (const world::ServerConfig& sc : c.servers) {
    latest = std::max(latest, std::max<world::Millis>(0, -sc.skew) + back * c.faults.jump - 1);
  }
  return latest;
}

}  // namespace lockstep::explore
