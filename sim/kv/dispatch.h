// The model Redis server's commands: one command, run atomically on a
// keyspace at one instant, found in the command table, its arity checked,
// then handed to its implementation (sim/kv/commands.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/keyspace.h"
#include "sim/kv/reply.h"

namespace lockstep::kv {

// What a command did to the keyspace, for traces and dependence analysis.
struct Effect {
  // Some key's value or deadline was written. As Redis counts writes
  // (server.dirty), this is set even if the new value equals the old one; it
  // is not set for merely removing an already expired key.
  bool wrote = false;
  bool saw_expired = false;  // some key the command named was expired at now
  // Why what the command does on a real Redis may differ from what it did
  // here (a command outside the model, a script stopped by a bound of the
  // model's), or nullptr: a replay on a real server sends only commands
  // the model vouches for (sim/replay/vetting.h).
  const char* unvouched = nullptr;
};

// A command's arguments, its name first, as kept texts: a key argument is
// found in the keyspace by its address, and a value argument is stored as
// it is, without being looked up again.
using Args = std::vector<Text>;

// What SELECT `index` answers, as selectCommand does. Database 0 is the
// model's only one: `other` is set for one a real server has besides (1 to
// 15), which is refused, since a real server would switch to it.
Reply SelectReply(std::string_view index, bool* other = nullptr);

// Executes one command atomically on `keyspace` at time `now`. Never throws
// for bad input: unknown commands, wrong arity, syntax and type errors come
// back as Redis's error replies.
Reply Execute(Keyspace& keyspace, std::span<const Text> argv, Millis now, Effect* effect = nullptr);
// The same, the arguments kept first.
Reply Execute(Keyspace& keyspace, const std::vector<std::string>& argv, Millis now,
              Effect* effect = nullptr);

struct CommandSpec;
// Execute for a caller that has looked the command up already.
// REQUIRES: spec is FindCommand(argv[0]), and ArityOk(spec, argv.size())
Reply Execute(Keyspace& keyspace, const CommandSpec& spec, std::span<const Text> argv, Millis now,
              Effect* effect = nullptr);

}  // namespace lockstep::kv
