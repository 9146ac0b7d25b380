// Internal to lua_string_match.cc: Lua 5.1's pattern matcher (reference
// manual §5.4.1) with its work charged and its recursion bounded.
//
// Every function here can raise a Lua error (a longjmp), so the rule of
// lua_script_context.h holds: no object with a destructor in any frame.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
#include <lua.h>
}

#include "sim/kv/lua_string_match.h"

namespace lockstep::kv::lua_pattern {

inline constexpr int kMaxCaptures = 32;     // LUA_MAXCAPTURES
inline constexpr int kInlineCaptures = 8;   // kept on the C stack
inline constexpr int kMaxMatchDepth = 200;  // Lua 5.2's MAXCCALLS
inline constexpr int64_t kChargeEvery = 1024;
inline constexpr size_t kBytesPerStep = 16;  // copied or scanned at memcpy's speed

// A capture's length while it is open, and the length of a position capture.
inline constexpr ptrdiff_t kCaptureOpen = -1;
inline constexpr ptrdiff_t kCapturePosition = -2;

struct Capture {
  const char* init;
  ptrdiff_t len;  // or kCaptureOpen, kCapturePosition
};

struct MatchState {
  lua_State* L;
  LuaWorkCharge charge;
  const char* src_init;
  const char* src_end;  // src_end[0] is '\0': the subject is a Lua string
  int64_t unpaid;       // work not yet charged
  int level;            // captures started
  int depth_left;       // nested Match calls still allowed
  int capture_room;
  Capture* capture;  // inline_capture, or kMaxCaptures of them in a userdata
  Capture inline_capture[kInlineCaptures];
};

void InitMatch(MatchState* ms, lua_State* L, LuaWorkCharge charge, const char* s, size_t len);

// Makes room for the captures pattern p can open. A capture opens at a '('
// of the pattern, and one match opens each '(' at most once, so most
// patterns fit in ms; the others get a userdata, which this pushes.
void MakeRoomForCaptures(MatchState* ms, const char* p);

// Charges the unpaid work, if any (the charge may raise).
void PayWork(MatchState* ms);

inline void Spend(MatchState* ms, int64_t steps) {
  ms->unpaid += steps;
  if (ms->unpaid >= kChargeEvery) PayWork(ms);
}

// For bytes copied or scanned in bulk.
inline void SpendOnBytes(MatchState* ms, size_t bytes) {
  Spend(ms, static_cast<int64_t>(bytes / kBytesPerStep) + 1);
}

// Charges the unpaid work, then raises msg as luaL_error does.
[[noreturn]] void RaiseError(MatchState* ms, const char* msg);

// Matches pattern p (a C string: 5.1 stops at its first '\0') at s; returns
// where the match ends, or nullptr. REQUIRES: ms->level set to 0.
const char* Match(MatchState* ms, const char* s, const char* p);

// The length of the common prefix of a and b, up to n, charging each byte
// compared.
size_t CommonPrefix(MatchState* ms, const char* a, const char* b, size_t n);

// Pushes capture i of the match [s, e) (the whole match when there are no
// captures and i is 0).
void PushCapture(MatchState* ms, int i, const char* s, const char* e);

// Pushes all captures, or the whole match [s, e) when there are none and s
// is not null; returns how many values it pushed.
int PushCaptures(MatchState* ms, const char* s, const char* e);

}  // namespace lockstep::kv::lua_pattern
