// When two actions enabled in the same state are independent: they cannot
// disable each other and either order reaches the same state. Partial-order
// reduction (sleep sets) relies on it, so it errs towards "dependent".
//
// - Steps of the same client, ticks and crashes are dependent on everything
//   (a tick changes what every clock reading and every expiry decision sees;
//   a crash changes the crash budget and the clock's holders).
// - Steps of two clients are independent iff their commands commute at the
//   server (kv::CommandsCommute: different keys, or both reads). A step
//   without a command (leaving the critical section) commutes with any other
//   client's step. A command built from the clock at the step is not known
//   in advance, and conflicts with every command.
#pragma once

#include "sim/world/model.h"

namespace lockstep::explore {

bool Independent(const world::Model& m, const world::WorldState& s, const world::Action& x,
                 const world::Action& y);

}  // namespace lockstep::explore
