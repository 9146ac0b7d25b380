// Internal to sim/kv's EVAL files (eval_command.cc, lua_sandbox.cc,
// lua_redis_api.cc, lua_reply.cc): one EVAL's state and what the files call
// of each other.
//
// A rule for every function Lua calls (lua_CFunction, hooks, readers) and
// the helpers they call directly: Lua raises errors with longjmp, which
// skips C++ destructors, so no object with a destructor may be alive in
// their frames across a Lua API call that can raise. Their C++ work happens
// in noexcept helpers that write into the RunContext, which outlives them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "sim/kv/commands.h"
#include "sim/kv/reply.h"

namespace lockstep::kv::internal {

// One EVAL's state, reachable from the functions Lua calls.
struct RunContext {
  Db* db = nullptr;
  const Argv* argv = nullptr;
  size_t numkeys = 0;
  std::string sha;
  std::string body;  // as compiled: a shebang line is blanked
  bool no_writes = false;
  Reply reply;
  bool have_reply = false;
  bool host_oom = false;  // a C++ allocation failed inside a Lua callback
  // redis.call's arguments, reused: as the script gave them, and kept
  // (Text) only once the command is one the model runs.
  std::vector<std::string> call_argv;
  Args call_args;
  Reply call_reply;
  std::string text;  // scratch for error texts
  // Instructions counted toward kScriptInstructionLimit (a command counts
  // as kScriptCommandCost of them).
  int64_t instructions = 0;
  bool over_limit = false;
  bool out_of_memory = false;  // the memory cap refused an allocation
  int64_t cpu_start_ns = 0;    // the thread's CPU clock when the script started
  bool over_cpu = false;       // the script passed kScriptCpuBoundSeconds
  uint64_t rand48 = 0;
  // Why a real server could do what this run did not (Effect::unvouched).
  const char* unvouched = nullptr;
};

// The EVAL running on this thread, or nullptr.
extern thread_local RunContext* t_ctx;

// rand.c's initial state (lrand48's default seed), which redis-server 7.0
// starts from and never reseeds: every script here starts from it, so its
// draws are those of the first script on a freshly started server.
constexpr uint64_t kLrand48Initial = 0x1234ABCD330EULL;

// Registry references an interpreter keeps (lua_sandbox.cc sets them up).
struct Refs {
  int globals = LUA_NOREF;        // the real globals table
  int proxy_globals = LUA_NOREF;  // what scripts see as _G
  int scripts = LUA_NOREF;        // sha -> compiled function
  int proxies = LUA_NOREF;        // the proxies, to empty after a run
};

// eval_command.cc: charges pattern matching's work to the running script's
// instruction limit (a kv::LuaWorkCharge).
void ChargeScriptWork(lua_State* L, int64_t work);

// lua_sandbox.cc: sets up a new interpreter (under lua_cpcall, with a Refs*
// as its light userdata).
int InitState(lua_State* L);
// lua_sandbox.cc: puts back the settings a script can change in the
// libraries (cjson's), as they were when InitState loaded them.
void ResetLibraries(lua_State* L);

// lua_redis_api.cc: the functions InitState installs.
int RedisCall(lua_State* L);
int RedisPcall(lua_State* L);
int LuaPcall(lua_State* L);
int RedisSha1hex(lua_State* L);
int RedisErrorReply(lua_State* L);
int RedisStatusReply(lua_State* L);
int RedisLog(lua_State* L);
int RedisSetresp(lua_State* L);
int RedisSetRepl(lua_State* L);
int RedisReplicateCommands(lua_State* L);
int RedisBreakpoint(lua_State* L);
int RedisDebug(lua_State* L);
int RedisAclCheckCmd(lua_State* L);
int MathRandom(lua_State* L);
int MathRandomseed(lua_State* L);

// lua_reply.cc
// luaPushError: a table {err = msg} on the stack.
void PushError(lua_State* L, const char* msg);
// luaPushErrorBuff: a table {err = "CODE msg"} on the stack.
void PushErrorBuff(lua_State* L, RunContext* ctx, const char* buf);
// Marks the error table at the top as coming from a command.
void MarkIgnoreStats(lua_State* L);
// redisProtocolToLuaType: pushes reply r as a Lua value.
void PushReply(lua_State* L, RunContext* ctx, const Reply& r);
// luaReplyToRedisReply: converts and pops the value at the top into *out.
void LuaToReply(lua_State* L, RunContext* ctx, Reply* out);
// The final reply of a script that raised, with where it raised.
void SetRuntimeError(RunContext* ctx, const char* msg, const char* source,
                     const char* line) noexcept;
// addReplyErrorFormat of a text with no code of its own.
void SetFormatError(RunContext* ctx, const char* prefix, const char* msg, size_t max_msg) noexcept;

}  // namespace lockstep::kv::internal
