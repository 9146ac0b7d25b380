// What a script can call, as Redis 7.0.15 gives it: redis.call and
// redis.pcall (each command checked as script.c's scriptCall checks it, then
// run on the script's Db), the other redis.* functions, the global pcall, and
// math.random over Redis's lrand48. See lua_script_context.h for the rule
// every function here keeps.
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/kv/command_table.h"
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"
#include "sim/kv/lua_script_context.h"
#include "sim/kv/script.h"
#include "sim/kv/sha1.h"

namespace lockstep::kv::internal {
namespace {

// Redis's rand.c: the 48-bit linear congruential generator of lrand48.
int32_t Lrand48(uint64_t* x) {
  *x = (*x * 0x5DEECE66DULL + 0xB) & ((uint64_t{1} << 48) - 1);
  return static_cast<int32_t>(*x >> 17);
}
uint64_t Srand48(int32_t seed) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E;
}
constexpr int32_t kLrand48Max = INT32_MAX;

// ---- noexcept helpers (C++ work for the Lua callbacks) ----

void StartCallArgs(RunContext* ctx) noexcept { ctx->call_argv.clear(); }

bool AddCallArg(RunContext* ctx, const char* s, size_t n) noexcept {
  try {
    ctx->call_argv.emplace_back(s, n);
    return true;
  } catch (...) {
    ctx->host_oom = true;
    return false;
  }
}

enum class CallOutcome { kReply, kScriptError };

// script.c's scriptCall: the checks a script's command must pass, then the
// command itself, on the script's Db (so at the script's `now`).
CallOutcome RunCall(RunContext* ctx) noexcept {
  try {
    const std::vector<std::string>& argv = ctx->call_argv;
    const CommandSpec* spec = FindCommand(argv[0]);
    if (spec == nullptr || !ArityOk(*spec, argv.size())) {
      if (spec == nullptr && ctx->unvouched == nullptr) {
        ctx->unvouched = "its script calls a command the model does not implement";
      }
      ctx->text = spec == nullptr ? "Unknown Redis command called from script"
                                  : "Wrong number of args calling Redis command from script";
      return CallOutcome::kScriptError;
    }
    // CMD_NOSCRIPT: of the model's commands, only EVAL.
    if (spec->name == "EVAL") {
      ctx->text = "This Redis command is not allowed from script";
      return CallOutcome::kScriptError;
    }
    if (ctx->no_writes && spec->access == Access::kWrite) {
      ctx->text = "Write commands are not allowed from read-only scripts.";
      return CallOutcome::kScriptError;
    }
    const auto index = static_cast<size_t>(spec - CommandTable().data());
    ctx->call_args.clear();
    for (const std::string& arg : argv) ctx->call_args.emplace_back(arg);
    ctx->call_reply = HandlerAt(index)(*ctx->db, ctx->call_args);
    return CallOutcome::kReply;
  } catch (...) {
    ctx->host_oom = true;
    ctx->call_reply = Reply();
    return CallOutcome::kReply;
  }
}

}  // namespace

// luaRedisGenericCommand: redis.call (raise) and redis.pcall.
int RedisGenericCommand(lua_State* L, bool raise) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) {
    PushError(L, "redis.call/pcall can only be called inside a script invocation");
    return lua_error(L);
  }
  ctx->instructions += kScriptCommandCost;
  if (ctx->instructions >= kScriptInstructionLimit) {
    // The count hook stops the script at its next instruction.
    if (lua_Hook hook = lua_gethook(L)) lua_sethook(L, hook, LUA_MASKCOUNT, 1);
  }
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushError(L, "Please specify at least one argument for this redis lib call");
    return raise ? lua_error(L) : 1;
  }
  StartCallArgs(ctx);
  int j = 1;
  for (; j <= argc; ++j) {
    char buf[64];
    const char* s = nullptr;
    size_t len = 0;
    if (lua_type(L, j) == LUA_TNUMBER) {
      // As Redis: %.17g, not Lua's %.14g, so integers up to 2^53 survive.
      len = static_cast<size_t>(
          std::snprintf(buf, sizeof(buf), "%.17g", static_cast<double>(lua_tonumber(L, j))));
      s = buf;
    } else {
      s = lua_tolstring(L, j, &len);
      if (s == nullptr) break;  // not a string
    }
    if (!AddCallArg(ctx, s, len)) break;
  }
  lua_pop(L, argc);
  if (ctx->host_oom) return luaL_error(L, "not enough memory");
  if (j <= argc) {
    PushError(L, "Lua redis lib command arguments must be strings or integers");
    return raise ? lua_error(L) : 1;
  }
  if (RunCall(ctx) == CallOutcome::kScriptError) {
    PushErrorBuff(L, ctx, ctx->text.c_str());
    MarkIgnoreStats(L);
    return raise ? lua_error(L) : 1;
  }
  if (ctx->host_oom) return luaL_error(L, "not enough memory");
  PushReply(L, ctx, ctx->call_reply);
  if (raise && ctx->call_reply.is_error()) return lua_error(L);
  return 1;
}

int RedisCall(lua_State* L) { return RedisGenericCommand(L, true); }
int RedisPcall(lua_State* L) { return RedisGenericCommand(L, false); }

// luaRedisPcall: the global pcall, which hands back an error table's err
// string, as Lua scripts before Redis 7 saw errors.
int LuaPcall(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    // Redis calls lua_pcall(L, -1, ...), which calls its own placeholder.
    lua_pushboolean(L, 0);
    lua_pushstring(L, "attempt to call a boolean value");
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) lua_replace(L, -2);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

int RedisSha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "wrong number of arguments");
    return lua_error(L);
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  char hex[41];
  Sha1HexInto(s != nullptr ? s : "", s != nullptr ? len : 0, hex);
  lua_pushstring(L, hex);
  return 1;
}

int RedisErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushError(L, "wrong number or type of arguments");
    return 1;
  }
  const char* err = lua_tostring(L, -1);
  if (err[0] != '-') {
    lua_pushstring(L, "-");
    lua_pushvalue(L, -2);
    lua_concat(L, 2);
    err = lua_tostring(L, -1);
  }
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) return luaL_error(L, "redis.error_reply outside a script");
  PushErrorBuff(L, ctx, err);
  return 1;
}

int RedisStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushError(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  return 1;
}

// redis.log: validated as Redis does; the model keeps no log.
int RedisLog(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) {
    PushError(L, "redis.log() requires two arguments or more.");
    return lua_error(L);
  }
  if (!lua_isnumber(L, -argc)) {
    PushError(L, "First argument must be a number (log level).");
    return lua_error(L);
  }
  const int level = static_cast<int>(lua_tonumber(L, -argc));
  if (level < 0 || level > 3) {
    PushError(L, "Invalid debug level.");
    return lua_error(L);
  }
  return 0;
}

// redis.setresp: validated; replies stay RESP2 (see known_departures.h).
int RedisSetresp(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "redis.setresp() requires one argument.");
    return lua_error(L);
  }
  const int resp = static_cast<int>(lua_tonumber(L, -1));
  if (resp != 2 && resp != 3) {
    PushError(L, "RESP version must be 2 or 3.");
    return lua_error(L);
  }
  return 0;
}

// redis.set_repl: validated; the model does not replicate.
int RedisSetRepl(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "redis.set_repl() requires two arguments.");
    return lua_error(L);
  }
  const int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~3) != 0) {
    PushError(L,
              "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL "
              "or REPL_NONE.");
    return lua_error(L);
  }
  return 0;
}

int RedisReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int RedisBreakpoint(lua_State* L) {
  lua_pushboolean(L, 0);  // no debugger session
  return 1;
}

int RedisDebug(lua_State*) { return 0; }

// redis.acl_check_cmd for the default user, who may run every command.
int RedisAclCheckCmd(lua_State* L) {
  if (lua_gettop(L) == 0) {
    PushError(L, "Please specify at least one argument for this redis lib call");
    return lua_error(L);
  }
  size_t len = 0;
  const char* name = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : nullptr;
  if (name == nullptr || FindCommand(std::string_view(name, len)) == nullptr) {
    PushError(L, "Invalid command passed to redis.acl_check_cmd()");
    return lua_error(L);
  }
  lua_pushboolean(L, 1);
  return 1;
}

// redis_math_random: Lua 5.1's math.random over Redis's lrand48.
int MathRandom(lua_State* L) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr)
    return luaL_error(L, "math.random can only be called inside a script invocation");
  const lua_Number r = static_cast<lua_Number>(Lrand48(&ctx->rand48) % kLrand48Max) /
                       static_cast<lua_Number>(kLrand48Max);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int MathRandomseed(lua_State* L) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr)
    return luaL_error(L, "math.randomseed can only be called inside a script invocation");
  ctx->rand48 = Srand48(luaL_checkint(L, 1));
  return 0;
}

}  // namespace lockstep::kv::internal
