// What a process client says to lockstep itself, inside the Redis protocol:
// `ECHO lockstep:VERB [ARG]`, which lockstep intercepts and never sends on
// (the critical section, the state's identity, time arguments), and the
// arguments `lockstep:clock+N` that stand for the client's clock plus N
// (docs/design.md, "Processes as clients"; the helpers in
// examples/real-clients/ say them for Python and Node).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/reply.h"
#include "sim/world/client.h"

namespace lockstep::process {

inline constexpr std::string_view kCallPrefix = "lockstep:";

// Whether `argv` is ECHO lockstep:...
bool IsLockstepCall(const std::vector<std::string>& argv);

struct CallEffects {
  bool stepped = false;  // it was a step (leave, write, a draw of two values or more)
  bool forgot = false;   // the client's history was forgotten (forget_history)
};

// Runs `text` ("lockstep:VERB [ARG]") for the client of `who` (its
// description, for messages): leave, write and a draw are a step, the
// others local code. Returns the reply the program reads. Throws world::RuleBroken for a
// call lockstep does not know or a malformed one.
kv::Reply RunLockstepCall(world::Client& c, const std::string& text, const std::string& who,
                          CallEffects* effects);

// `argv` as the client's request: each argument `lockstep:clock+N` is
// world::Value::ClockPlus(N), the rest literal. Throws world::RuleBroken if
// more than one argument is a clock (a step reads its clock once).
std::vector<world::Value> RequestArguments(const std::vector<std::string>& argv,
                                           const std::string& who);

}  // namespace lockstep::process
