// Server-side scripts: EVAL runs a Lua 5.1 script (the Lua Redis embeds) as
// Redis 7.0 does, atomically and at one instant: every redis.call inside it
// runs at the script's `now`, against the same keyspace, with Redis's reply
// conversions both ways and Redis's error texts.
//
// The interpreter is cached per thread (compiled scripts keyed by their
// SHA-1, as Redis keys them), never stored in a Keyspace, so a Keyspace
// stays a plain copyable value. Nothing a script does survives it except its
// effect on the keyspace: globals and the libraries are read-only, the
// interpreter's settings and PRNG are reset for every script, so a script's
// reply depends only on its arguments, the keyspace and `now` (short of the
// memory cap, and of what collectgarbage('count') reports).
//
// Where the model departs from redis-server 7.0 (an instruction limit in
// place of lua-time-limit, a memory cap, no cmsgpack/struct, cjson's settings
// and the PRNG restarted for every script, commands outside the model), see
// tests/redis/known_departures.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lockstep::kv {

// A script that runs this many Lua instructions is stopped with an error
// reply (kScriptInstructionLimitError plus Redis's script/line suffix).
// Redis instead lets it run past lua-time-limit until SCRIPT KILL; a model
// on virtual time needs a deterministic bound.
inline constexpr int64_t kScriptInstructionLimit = 10'000'000;
// A command (redis.call, redis.pcall) counts as this many instructions
// toward the limit: it costs far more than one, and a loop of commands must
// meet the limit as soon as a loop of instructions does (10,000 commands).
inline constexpr int64_t kScriptCommandCost = 1'000;
inline constexpr std::string_view kScriptInstructionLimitError =
    "ERR Script ran more than 10000000 Lua instructions and was stopped";

// Bytes a script allocates count as one instruction each this many, so
// that a loop building long strings meets the limit as a loop does.
inline constexpr size_t kBytesPerInstruction = 64;

// The CPU time one script may take, for work no count sees (comparing
// long strings); past it the whole run stops with an error, since a reply
// that depends on the machine's speed would make traces depend on it.
inline constexpr int64_t kScriptCpuBoundSeconds = 60;

// Bytes the interpreter may hold at once; beyond it an allocation fails and
// the script gets Lua's "not enough memory" as an error reply.
inline constexpr size_t kScriptMemoryLimit = size_t{256} << 20;

}  // namespace lockstep::kv
