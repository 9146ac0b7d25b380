// string.find, string.match, string.gmatch and string.gsub for untrusted
// scripts: Lua 5.1.5's results and error texts, with their work charged so
// that the embedding can stop them.
//
// Lua 5.1's own versions run entirely in C: a pattern such as
// string.rep("a-", 12) .. "b" backtracks exponentially and an instruction
// count hook never fires, a plain find is O(n·m), and gsub keeps an 8 KiB
// buffer on the C stack that nested callbacks overflow on a fiber's stack.
//
// Departures from 5.1, all on inputs 5.1 itself handles badly:
// - A match nesting deeper than 200 calls (Lua 5.2's MAXCCALLS, counted as
//   5.2 counts it) raises "pattern too complex" where 5.1 would recurse until
//   the C stack overflows.
// - gmatch's iterator has one more upvalue (visible only through
//   debug.getupvalue).
#pragma once

#include <cstdint>

extern "C" {
#include <lua.h>
}

namespace lockstep::kv {

// Called with the work done since the last call, at least every 1024 units
// and at the end of each call of the four functions; may raise a Lua error
// (never a C++ exception) to stop the script. L is the running thread.
//
// One unit is one elementary step: a pattern item tried at a position, a
// character tested against a class (one per set element looked at), a
// pattern byte scanned for the end of a set, a byte scanned by %b, a byte
// compared by a back-reference or a plain find. Copies (captures pushed,
// gsub's output) cost one unit per 16 bytes, charged before they are made.
// Every call costs at least one unit.
using LuaWorkCharge = void (*)(lua_State* L, int64_t work);

// What `charge` is called with just before "pattern too complex" is raised:
// where Lua 5.1 would have gone on, so a real server may do what the
// script does next.
inline constexpr int64_t kMatchTooComplex = -1;

// Replaces find, match, gmatch and gsub (and gfind, 5.1's old name for
// gmatch, when the table has it) in the table at stack index string_table
// with bounded versions that charge `charge`, which their closures keep.
// REQUIRES: charge is not null; the table is writable (the real string
// table, before a sandbox makes it read-only). Can raise a memory error:
// call it in protected mode.
void InstallBoundedStringMatch(lua_State* L, int string_table, LuaWorkCharge charge);

}  // namespace lockstep::kv
