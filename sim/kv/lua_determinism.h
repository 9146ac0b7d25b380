// What keeps a Lua script's run the same in every process: Lua 5.1 shows a
// table's, function's or coroutine's address through tostring, and orders
// pairs/next over keys that are such objects by their addresses. Both would
// make the same scenario and seed give different traces (and a saved trace
// that its scenario contradicts on replay). Scripts here see objects named
// by the order tostring first met them, and iterating a table keyed by
// objects is refused.
#pragma once

extern "C" {
#include <lua.h>
}

#include "sim/kv/lua_string_match.h"

namespace lockstep::kv {

// Sets the global tostring to Lua 5.1's, except that an object without
// __tostring shows as "table: 0x00000001", numbered by first appearance in
// this state (until ResetObjectNames). Call in protected mode, with the
// real globals table as LUA_GLOBALSINDEX.
void InstallDeterministicToString(lua_State* L);

// Numbering starts again (each EVAL script starts from 1).
void ResetObjectNames(lua_State* L);

// next(t, k) as Lua's, refusing with a Lua error a table keyed by a table,
// function, userdata or coroutine: its order would depend on addresses.
// An iteration's start (k nil) looks at every key, charging one unit of
// `charge` a key; later calls look at k and the key returned.
void NextChecked(lua_State* L, LuaWorkCharge charge);

// Sets the globals next and pairs to ones that iterate as NextChecked.
void InstallCheckedIteration(lua_State* L, LuaWorkCharge charge);

// collectgarbage and gcinfo that report no memory figures (the count is
// 0): the interpreter's memory depends on what ran in it before, a figure
// of another process.
void InstallQuietCollector(lua_State* L);

}  // namespace lockstep::kv
