// Lua raises errors with longjmp: no object with a destructor lives in
// these frames (see lua_script_context.h).
#include "sim/kv/lua_determinism.h"

#include <cstdio>
#include <cstring>

extern "C" {
#include <lauxlib.h>
}

namespace lockstep::kv {
namespace {

// Registry key of the names table: object -> its number (weak keys), and
// at [0] the last number given.
char kNamesKey;

void PushNames(lua_State* L) {
  lua_pushlightuserdata(L, &kNamesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
}

void NewNames(lua_State* L) {
  lua_pushlightuserdata(L, &kNamesKey);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushinteger(L, 0);
  lua_rawseti(L, -2, 0);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

// The number of the object at `index` (an absolute index), given on first
// sight.
lua_Integer NameOf(lua_State* L, int index) {
  PushNames(L);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  if (lua_isnumber(L, -1)) {
    const lua_Integer n = lua_tointeger(L, -1);
    lua_pop(L, 2);
    return n;
  }
  lua_pop(L, 1);
  lua_rawgeti(L, -1, 0);
  const lua_Integer n = lua_tointeger(L, -1) + 1;
  lua_pop(L, 1);
  lua_pushinteger(L, n);
  lua_rawseti(L, -2, 0);
  lua_pushvalue(L, index);
  lua_pushinteger(L, n);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  return n;
}

// luaB_tostring, with names for addresses.
int ToString(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_callmeta(L, 1, "__tostring")) return 1;
  switch (lua_type(L, 1)) {
    case LUA_TNUMBER:
      lua_pushstring(L, lua_tostring(L, 1));
      return 1;
    case LUA_TSTRING:
      lua_pushvalue(L, 1);
      return 1;
    case LUA_TBOOLEAN:
      lua_pushstring(L, lua_toboolean(L, 1) ? "true" : "false");
      return 1;
    case LUA_TNIL:
      lua_pushliteral(L, "nil");
      return 1;
    default: {
      char text[64];
      std::snprintf(text, sizeof text, "%s: 0x%08llx", luaL_typename(L, 1),
                    static_cast<unsigned long long>(NameOf(L, 1)));
      lua_pushstring(L, text);
      return 1;
    }
  }
}

bool HasAddress(int type) {
  return type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TUSERDATA ||
         type == LUA_TTHREAD || type == LUA_TLIGHTUSERDATA;
}

[[noreturn]] void RefuseKey(lua_State* L, int type) {
  luaL_error(L,
             "iterating a table keyed by a %s: its order would depend on memory addresses, so "
             "a run would differ from one process to the next",
             lua_typename(L, type));
  __builtin_unreachable();  // luaL_error longjmps
}

int NextFunction(lua_State* L);

}  // namespace

void NextChecked(lua_State* L, LuaWorkCharge charge);

namespace {

// next, keeping its charge as upvalue 1.
int NextFunction(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  NextChecked(L, *static_cast<LuaWorkCharge*>(lua_touserdata(L, lua_upvalueindex(1))));
  return lua_isnil(L, -1) ? 1 : 2;
}

// pairs: upvalue 1 is next.
int PairsFunction(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// collectgarbage (upvalue 1: Lua's) with 0 for "count" and false for
// "step" (whether a cycle ended depends on the collector's past).
int CollectGarbage(lua_State* L) {
  // luaL_checkoption's own check, so that a bad option names this
  // function as Lua 5.1's error does.
  static const char* const kOptions[] = {"stop", "restart",  "collect",    "count",
                                         "step", "setpause", "setstepmul", nullptr};
  luaL_checkoption(L, 1, "collect", kOptions);
  const char* option = luaL_optstring(L, 1, "collect");
  const bool count = std::strcmp(option, "count") == 0;
  const bool step = std::strcmp(option, "step") == 0;
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, 1);
  if (count) lua_pushnumber(L, 0);
  if (step) lua_pushboolean(L, 0);
  return 1;
}

int GcInfo(lua_State* L) {
  lua_pushinteger(L, 0);
  return 1;
}

}  // namespace

void InstallDeterministicToString(lua_State* L) {
  NewNames(L);
  lua_pushcfunction(L, ToString);
  lua_setglobal(L, "tostring");
}

void ResetObjectNames(lua_State* L) { NewNames(L); }

void NextChecked(lua_State* L, LuaWorkCharge charge) {
  // The table at 1, the key at 2: as lua_next leaves them.
  if (lua_isnil(L, 2)) {
    int64_t keys = 0;
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
      const int type = lua_type(L, -2);
      lua_pop(L, 1);
      if (++keys % 1024 == 0) charge(L, 1024);
      if (HasAddress(type)) RefuseKey(L, type);
    }
    charge(L, keys % 1024 + 1);
  } else if (HasAddress(lua_type(L, 2))) {
    RefuseKey(L, lua_type(L, 2));
  }
  if (lua_next(L, 1) == 0) {
    lua_pushnil(L);
    return;
  }
  if (HasAddress(lua_type(L, -2))) RefuseKey(L, lua_type(L, -2));
}

void InstallCheckedIteration(lua_State* L, LuaWorkCharge charge) {
  *static_cast<LuaWorkCharge*>(lua_newuserdata(L, sizeof(LuaWorkCharge))) = charge;
  lua_pushcclosure(L, NextFunction, 1);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "next");
  lua_pushcclosure(L, PairsFunction, 1);
  lua_setglobal(L, "pairs");
}

void InstallQuietCollector(lua_State* L) {
  lua_getglobal(L, "collectgarbage");
  lua_pushcclosure(L, CollectGarbage, 1);
  lua_setglobal(L, "collectgarbage");
  lua_pushcfunction(L, GcInfo);
  lua_setglobal(L, "gcinfo");
}

}  // namespace lockstep::kv
