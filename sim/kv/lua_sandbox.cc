// The interpreter a script runs in, set up as Redis 7.0.15 leaves it:
// libraries, the redis table, loading only text chunks, read-only globals
// and library tables, and Redis's error handler. See lua_script_context.h for
// the rule every function here keeps.
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
#include "sim/kv/lua_determinism.h"
#include "sim/kv/lua_script_context.h"
#include "sim/kv/lua_string_match.h"
#include "sim/kv/script.h"
#include "sim/kv/sha1.h"

// Debian's lua-cjson and lua-bitop (their headers declare these without
// C linkage).
extern "C" int luaopen_cjson(lua_State* L);
extern "C" int luaopen_bit(lua_State* L);

namespace lockstep::kv::internal {
namespace {

// What Redis 7.0.15 reports as its version to scripts.
constexpr const char* kRedisVersion = "7.0.15";
constexpr int kRedisVersionNum = 0x0007000f;

// Redis's Lua parses every chunk as text (bytecode loading is disabled: a
// crafted binary chunk can crash Lua 5.1). Debian's Lua loads binary chunks,
// so a chunk that starts with the binary signature gets a leading space:
// the lexer then rejects the escape byte with Redis's own message.
int LuaLoadstring(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
    lua_pushstring(L, " ");
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
    s = lua_tolstring(L, -1, &len);
  }
  if (luaL_loadbuffer(L, s, len, chunkname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

struct ReaderState {
  int stage = 0;  // 0: first piece not read, 1: a space was given, 2: plain
};

// luaB_load's generic_reader, with the leading space for a binary chunk.
const char* LoadReader(lua_State* L, void* ud, size_t* size) {
  auto* st = static_cast<ReaderState*>(ud);
  if (st->stage == 1) {
    st->stage = 2;
    return lua_tolstring(L, 3, size);
  }
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
  lua_replace(L, 3);
  const char* piece = lua_tolstring(L, 3, size);
  if (st->stage == 0 && *size > 0 && piece[0] == LUA_SIGNATURE[0]) {
    st->stage = 1;
    *size = 1;
    return " ";
  }
  st->stage = 2;
  return piece;
}

int LuaLoad(lua_State* L) {
  const char* cname = luaL_optstring(L, 2, "=(load)");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 3);
  ReaderState st;
  if (lua_load(L, LoadReader, &st, cname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// ---- read-only globals and libraries ----
//
// Redis 7.0.15 makes the globals and every library table read-only with a
// flag its own Lua has. Debian's Lua has no such flag, so scripts see empty
// proxies instead: reads go through to the real table, writes raise Redis's
// error, and rawget/rawset/next/pairs look through the proxies.

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

int ReadonlyNewindex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

// luaProtectedTableError, as the globals' __index: upvalue 1 is the real
// globals table.
int GlobalsIndex(lua_State* L) {
  if (lua_gettop(L) != 2)
    return luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  if (!lua_isstring(L, -1) && !lua_isnumber(L, -1)) {
    return luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
  }
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, -1));
}

// Registry key of the proxy -> real table map.
char kProxiesKey;

// Replaces the table at idx by the real table if it is a proxy; returns
// whether it was one.
bool Unproxy(lua_State* L, int idx) {
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  const bool proxy = !lua_isnil(L, -1);
  if (proxy) {
    lua_replace(L, idx);
    lua_pop(L, 1);
  } else {
    lua_pop(L, 2);
  }
  return proxy;
}

int RawGet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  Unproxy(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int RawSet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  if (Unproxy(L, 1)) {
    // Raised from inside a C function: no position, as in Redis.
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_rawset(L, 1);
  return 1;
}

int Next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  Unproxy(L, 1);
  NextChecked(L, ChargeScriptWork);
  return lua_isnil(L, -1) ? 1 : 2;
}

// upvalue 1: Next.
int Pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// luaB_setmetatable, refusing the proxies as Redis refuses read-only tables.
int SetMetatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  if (Unproxy(L, 3)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pop(L, 1);
  if (luaL_getmetafield(L, 1, "__metatable"))
    return luaL_error(L, "cannot change a protected metatable");
  lua_setmetatable(L, 1);
  return 1;
}

// Pushes a read-only proxy of the table at idx and records it.
void PushProxy(lua_State* L, int idx) {
  idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  lua_newtable(L);  // proxy
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Redis's error handler (eval.c), verbatim in behaviour: it adds where the
// error happened, seen from the script.
constexpr const char* kErrorHandler =
    "local dbg = debug\n"
    "debug = nil\n"
    "function __redis__err__handler(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}"
    "  end"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end"
    "  return err\n"
    "end\n";

// cjson keeps settings a script can change (encode_max_depth, ...), which
// would outlive it: a function that puts back each as it was at load.
constexpr const char* kCjsonSettings =
    "local c, unpack = ...\n"
    "local saved = {}\n"
    "for _, name in ipairs({'encode_sparse_array', 'encode_max_depth', 'decode_max_depth',\n"
    "    'encode_number_precision', 'encode_keep_buffer', 'encode_invalid_numbers',\n"
    "    'decode_invalid_numbers'}) do\n"
    "  local f = c[name]\n"
    "  if f then saved[#saved + 1] = {f, {f()}} end\n"
    "end\n"
    "return function() for i = 1, #saved do saved[i][1](unpack(saved[i][2])) end end\n";

// Registry key of that function.
char kLibrariesResetKey;

// Whether a script on this thread called one of cjson's settings since they
// were last put back: only then are they put back, so EVAL costs no more.
thread_local bool t_cjson_settings_called = false;

// A cjson setting (upvalue 1), noted as called.
int CjsonSetting(lua_State* L) {
  t_cjson_settings_called = true;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// The libraries Redis 7.0 loads beyond Lua's own: cjson and bit, globals of
// those names (struct and cmsgpack are not packaged for Debian's Lua).
void OpenRedisLibraries(lua_State* L) {
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "cjson");
  if (luaL_loadbuffer(L, kCjsonSettings, std::strlen(kCjsonSettings), "=cjson_settings") != 0) {
    lua_error(L);
  }
  lua_insert(L, -2);
  lua_getglobal(L, "unpack");
  lua_call(L, 2, 1);
  lua_pushlightuserdata(L, &kLibrariesResetKey);
  lua_insert(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_getglobal(L, "cjson");
  for (const char* name :
       {"encode_sparse_array", "encode_max_depth", "decode_max_depth", "encode_number_precision",
        "encode_keep_buffer", "encode_invalid_numbers", "decode_invalid_numbers"}) {
    lua_getfield(L, -1, name);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushcclosure(L, CjsonSetting, 1);
    lua_setfield(L, -2, name);
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, luaopen_bit);
  lua_call(L, 0, 1);
  lua_setglobal(L, "bit");
}

void OpenLib(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

void SetFunction(lua_State* L, const char* name, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_setfield(L, -2, name);
}

void SetNumber(lua_State* L, const char* name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

}  // namespace

// luaRegisterRedisAPI and the sandbox, as Redis 7.0.15 leaves them.
int InitState(lua_State* L) {
  auto* refs = static_cast<Refs*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  OpenLib(L, "", luaopen_base);
  OpenLib(L, LUA_TABLIBNAME, luaopen_table);
  OpenLib(L, LUA_STRLIBNAME, luaopen_string);
  OpenLib(L, LUA_MATHLIBNAME, luaopen_math);
  OpenLib(L, LUA_DBLIBNAME, luaopen_debug);
  OpenRedisLibraries(L);
  // Pattern matching runs in C, out of the count hook's sight: these
  // versions charge their work to the instruction limit.
  lua_getglobal(L, LUA_STRLIBNAME);
  InstallBoundedStringMatch(L, lua_gettop(L), ChargeScriptWork);
  lua_pop(L, 1);
  // Globals Redis does not offer (its deny list, and what 7.0 removed).
  for (const char* name : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  // No address reaches a reply, and no memory figure of this process.
  InstallDeterministicToString(L);
  InstallQuietCollector(L);
  lua_pushcfunction(L, LuaPcall);
  lua_setglobal(L, "pcall");
  lua_pushcfunction(L, LuaLoadstring);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, LuaLoad);
  lua_setglobal(L, "load");

  lua_newtable(L);
  SetFunction(L, "call", RedisCall);
  SetFunction(L, "pcall", RedisPcall);
  SetFunction(L, "log", RedisLog);
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  lua_pushstring(L, kRedisVersion);
  lua_setfield(L, -2, "REDIS_VERSION");
  SetNumber(L, "REDIS_VERSION_NUM", kRedisVersionNum);
  SetFunction(L, "setresp", RedisSetresp);
  SetFunction(L, "sha1hex", RedisSha1hex);
  SetFunction(L, "error_reply", RedisErrorReply);
  SetFunction(L, "status_reply", RedisStatusReply);
  SetFunction(L, "set_repl", RedisSetRepl);
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  SetFunction(L, "replicate_commands", RedisReplicateCommands);
  SetFunction(L, "breakpoint", RedisBreakpoint);
  SetFunction(L, "debug", RedisDebug);
  SetFunction(L, "acl_check_cmd", RedisAclCheckCmd);
  lua_setglobal(L, "redis");

  lua_getglobal(L, "math");
  SetFunction(L, "random", MathRandom);
  SetFunction(L, "randomseed", MathRandomseed);
  lua_pop(L, 1);

  if (luaL_loadbuffer(L, kErrorHandler, std::strlen(kErrorHandler), "@err_handler_def") != 0) {
    return lua_error(L);
  }
  lua_call(L, 0, 0);  // also removes debug

  // The proxies.
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, LUA_GLOBALSINDEX);  // 1: the real globals
  lua_newtable(L);                     // 2: the list of proxies
  int n = 0;
  for (const char* lib : {"string", "math", "table", "coroutine", "redis", "cjson", "bit"}) {
    lua_getfield(L, 1, lib);
    PushProxy(L, -1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, 2, ++n);
    lua_setfield(L, 1, lib);
    lua_pop(L, 1);
  }
  // Strings index the string library through their metatable.
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_getfield(L, 1, "string");
  lua_setfield(L, -2, "__index");
  PushProxy(L, -1);
  lua_pushvalue(L, -1);
  lua_rawseti(L, 2, ++n);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);
  // rawget, rawset, next and pairs look through proxies.
  lua_pushcfunction(L, RawGet);
  lua_setfield(L, 1, "rawget");
  lua_pushcfunction(L, RawSet);
  lua_setfield(L, 1, "rawset");
  lua_pushcfunction(L, SetMetatable);
  lua_setfield(L, 1, "setmetatable");
  lua_pushcfunction(L, Next);
  lua_pushvalue(L, -1);
  lua_setfield(L, 1, "next");
  lua_pushcclosure(L, Pairs, 1);
  lua_setfield(L, 1, "pairs");
  // The globals' proxy: a missing name is an error, as in Redis.
  lua_newtable(L);  // 3
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, GlobalsIndex, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_pushvalue(L, 3);
  lua_rawseti(L, 2, ++n);
  lua_pushvalue(L, 3);
  lua_setfield(L, 1, "_G");

  lua_newtable(L);
  refs->scripts = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 2);
  refs->proxies = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 3);
  refs->proxy_globals = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 1);
  refs->globals = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

void ResetLibraries(lua_State* L) {
  if (!t_cjson_settings_called) return;
  t_cjson_settings_called = false;
  lua_pushlightuserdata(L, &kLibrariesResetKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_call(L, 0, 0);
}

}  // namespace lockstep::kv::internal
