// What a replay may send to a real server: only commands the model
// executed and vouches for. A trace is shared, so it may be crafted: its
// steps could name FLUSHALL, SELECT, SHUTDOWN, or a script that calls them,
// none of which the model runs. Before anything is sent, every step is
// executed in the model again and refused if the model cannot say what it
// does on a real Redis.
#pragma once

#include <string>
#include <vector>

#include "sim/run/runner.h"

namespace lockstep::replay {

// Per step of the trace (steps[0] included): "" if its command goes to a
// real server, which is iff the model ran it on one; otherwise why it is
// not sent ("the request is lost", "the server is down", "the resource is
// lockstep's model").
using StepsToSend = std::vector<std::string>;

// Throws base::InputError naming `file` and the first step whose command
// would be sent but is outside the model's command table, or whose script
// calls such a command or ran into a bound of the model's (instructions,
// memory) where a real server would go on. REQUIRES: `replayed` was
// replayed in the model (its trace is the model's record of its schedule).
StepsToSend VetForRealServer(const run::ReplayedTrace& replayed, const std::string& file);

}  // namespace lockstep::replay
