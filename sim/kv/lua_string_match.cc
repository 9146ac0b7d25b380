// find, match, gmatch and gsub over lua_pattern.h's matcher, with Lua
// 5.1.5's argument handling, results and error texts. Each checks its
// arguments in 5.1's order, so that the same bad call raises the same error.
//
// They keep little on the C stack: gsub builds its result in a userdata
// (5.1's luaL_Buffer holds 8 KiB), and no frame holds an object with a
// destructor, since Lua's errors longjmp through them.
#include "sim/kv/lua_string_match.h"

#include <ctype.h>

#include <algorithm>
#include <cstring>

extern "C" {
#include <lauxlib.h>
}

#include "sim/kv/lua_pattern.h"

namespace lockstep::kv {
namespace lua_string_match {
namespace {

using lua_pattern::InitMatch;
using lua_pattern::Match;
using lua_pattern::MatchState;
using lua_pattern::PayWork;
using lua_pattern::Spend;
using lua_pattern::SpendOnBytes;

// The closures' upvalue 1 (and the gmatch iterator's upvalue 4).
struct ChargeBox {
  LuaWorkCharge charge;
};

LuaWorkCharge ChargeOf(lua_State* L, int upvalue) {
  return static_cast<ChargeBox*>(lua_touserdata(L, lua_upvalueindex(upvalue)))->charge;
}

// 5.1's start offset: negative positions count from the end, and anything
// before the start or past the end is clamped to it.
size_t StartOffset(lua_Integer pos, size_t len) {
  if (pos < 0) pos += static_cast<lua_Integer>(len) + 1;
  if (pos <= 1) return 0;
  return static_cast<size_t>(pos - 1) > len ? len : static_cast<size_t>(pos - 1);
}

// Whether a find pattern needs the matcher. Like 5.1, it looks only up to
// the first '\0': "a\0." is found as plain text.
bool HasSpecials(MatchState* ms, const char* p) {
  const size_t plain = std::strcspn(p, "^$*+?.([%-");
  SpendOnBytes(ms, plain);
  return p[plain] != '\0';
}

// The first occurrence of [p, p + plen) in [s, s + len), or nullptr.
const char* FindPlain(MatchState* ms, const char* s, size_t len, const char* p, size_t plen) {
  if (plen == 0) return s;
  if (plen > len) return nullptr;
  const char* last = s + (len - plen);  // the last place it can start
  while (s <= last) {
    // The first byte, looked for a bounded span at a time.
    const size_t span = static_cast<size_t>(last - s) + 1 < lua_pattern::kChargeEvery
                            ? static_cast<size_t>(last - s) + 1
                            : static_cast<size_t>(lua_pattern::kChargeEvery);
    const auto* hit = static_cast<const char*>(std::memchr(s, p[0], span));
    Spend(ms, hit != nullptr ? hit - s + 1 : static_cast<int64_t>(span));
    if (hit == nullptr) {
      s += span;
      continue;
    }
    if (lua_pattern::CommonPrefix(ms, hit + 1, p + 1, plen - 1) == plen - 1) return hit;
    s = hit + 1;
  }
  return nullptr;
}

// str_find_aux: find when `find`, else match.
int FindOrMatch(lua_State* L, bool find) {
  size_t len = 0;
  size_t plen = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* p = luaL_checklstring(L, 2, &plen);
  const size_t init = StartOffset(luaL_optinteger(L, 3, 1), len);
  MatchState ms;
  InitMatch(&ms, L, ChargeOf(L, 1), s, len);
  Spend(&ms, 1);
  if (find && (lua_toboolean(L, 4) || !HasSpecials(&ms, p))) {
    const char* at = FindPlain(&ms, s + init, len - init, p, plen);
    PayWork(&ms);
    if (at == nullptr) {
      lua_pushnil(L);
      return 1;
    }
    lua_pushinteger(L, at - s + 1);
    lua_pushinteger(L, at - s + static_cast<lua_Integer>(plen));
    return 2;
  }
  const bool anchored = *p == '^';
  if (anchored) p++;
  lua_pattern::MakeRoomForCaptures(&ms, p);
  for (const char* start = s + init;; start++) {
    ms.level = 0;
    if (const char* end = Match(&ms, start, p)) {
      int n = 0;
      if (find) {
        lua_pushinteger(L, start - s + 1);
        lua_pushinteger(L, end - s);
        n = lua_pattern::PushCaptures(&ms, nullptr, nullptr) + 2;
      } else {
        n = lua_pattern::PushCaptures(&ms, start, end);
      }
      PayWork(&ms);
      return n;
    }
    if (anchored || start >= ms.src_end) break;
  }
  PayWork(&ms);
  lua_pushnil(L);
  return 1;
}

int StringFind(lua_State* L) { return FindOrMatch(L, true); }

int StringMatch(lua_State* L) { return FindOrMatch(L, false); }

// gmatch's iterator. Upvalues: the subject, the pattern, where the next
// search starts, the ChargeBox. A leading '^' is an ordinary byte here, as
// in 5.1.
int GmatchStep(lua_State* L) {
  size_t len = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &len);
  const char* p = lua_tostring(L, lua_upvalueindex(2));
  MatchState ms;
  InitMatch(&ms, L, ChargeOf(L, 4), s, len);
  Spend(&ms, 1);
  lua_pattern::MakeRoomForCaptures(&ms, p);
  for (auto at = static_cast<size_t>(lua_tointeger(L, lua_upvalueindex(3))); at <= len; at++) {
    ms.level = 0;
    if (const char* end = Match(&ms, s + at, p)) {
      // After an empty match the next search starts one byte further.
      lua_Integer next = end - s;
      if (end == s + at) next++;
      lua_pushinteger(L, next);
      lua_replace(L, lua_upvalueindex(3));
      const int n = lua_pattern::PushCaptures(&ms, s + at, end);
      PayWork(&ms);
      return n;
    }
  }
  PayWork(&ms);
  return 0;
}

int StringGmatch(lua_State* L) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  lua_settop(L, 2);
  lua_pushinteger(L, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, GmatchStep, 4);
  ChargeOf(L, 1)(L, 1);
  return 1;
}

// gsub's result, kept in a userdata at stack slot `slot` that is replaced by
// a larger one as it grows.
struct Output {
  char* data;
  size_t len;
  size_t cap;
  int slot;
};

void Append(MatchState* ms, Output* out, const char* bytes, size_t n) {
  if (n == 0) return;
  SpendOnBytes(ms, n);
  if (out->cap - out->len < n) {
    const size_t cap = std::max({out->len + n, 2 * out->cap, size_t{64}});
    auto* data = static_cast<char*>(lua_newuserdata(ms->L, cap));
    if (out->len > 0) std::memcpy(data, out->data, out->len);
    lua_replace(ms->L, out->slot);
    out->data = data;
    out->cap = cap;
  }
  std::memcpy(out->data + out->len, bytes, n);
  out->len += n;
}

// Appends the string (or number) at the top of the stack and pops it.
void AppendTop(MatchState* ms, Output* out) {
  size_t n = 0;
  const char* text = lua_tolstring(ms->L, -1, &n);
  Append(ms, out, text, n);
  lua_pop(ms->L, 1);
}

// The replacement string (or number) at slot 3, with %0..%9 for the match
// [s, e) and its captures, and %x for any other x. A '%' that ends it stands
// for the '\0' after it, as in 5.1.
void AppendReplacement(MatchState* ms, Output* out, const char* s, const char* e) {
  size_t n = 0;
  const char* r = lua_tolstring(ms->L, 3, &n);
  size_t i = 0;
  while (i < n) {
    const auto* escape = static_cast<const char*>(std::memchr(r + i, '%', n - i));
    const size_t run = (escape != nullptr ? static_cast<size_t>(escape - r) : n) - i;
    Append(ms, out, r + i, run);
    i += run;
    if (i == n) break;
    Spend(ms, 1);
    const char c = r[++i];
    if (!isdigit(static_cast<unsigned char>(c))) {
      Append(ms, out, &c, 1);
    } else if (c == '0') {
      Append(ms, out, s, static_cast<size_t>(e - s));
    } else {
      lua_pattern::PushCapture(ms, c - '1', s, e);
      AppendTop(ms, out);
    }
    i++;
  }
}

// add_value: the replacement for the match [s, e).
void AppendValue(MatchState* ms, Output* out, const char* s, const char* e) {
  lua_State* L = ms->L;
  switch (lua_type(L, 3)) {
    case LUA_TFUNCTION: {
      lua_pushvalue(L, 3);
      const int n = lua_pattern::PushCaptures(ms, s, e);
      PayWork(ms);  // before the script runs again
      lua_call(L, n, 1);
      break;
    }
    case LUA_TTABLE:
      lua_pattern::PushCapture(ms, 0, s, e);
      PayWork(ms);  // __index may run the script
      lua_gettable(L, 3);
      break;
    default:  // a string or a number
      AppendReplacement(ms, out, s, e);
      return;
  }
  if (!lua_toboolean(L, -1)) {  // nil or false keeps the match
    lua_pop(L, 1);
    Append(ms, out, s, static_cast<size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    PayWork(ms);
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  } else {
    AppendTop(ms, out);
  }
}

int StringGsub(lua_State* L) {
  size_t len = 0;
  const char* src = luaL_checklstring(L, 1, &len);
  const char* p = luaL_checkstring(L, 2);
  const int replacement = lua_type(L, 3);
  // 5.1 reads the count (an int) before it checks the replacement.
  const int max_n = luaL_optint(L, 4, static_cast<lua_Integer>(len + 1));
  const bool anchored = *p == '^';
  if (anchored) p++;
  luaL_argcheck(L,
                replacement == LUA_TNUMBER || replacement == LUA_TSTRING ||
                    replacement == LUA_TFUNCTION || replacement == LUA_TTABLE,
                3, "string/function/table expected");
  lua_pushnil(L);  // becomes the Output's userdata
  Output out = {nullptr, 0, 0, lua_gettop(L)};
  MatchState ms;
  InitMatch(&ms, L, ChargeOf(L, 1), src, len);
  Spend(&ms, 1);
  lua_pattern::MakeRoomForCaptures(&ms, p);
  const char* s = src;
  int n = 0;
  while (n < max_n) {
    ms.level = 0;
    const char* end = Match(&ms, s, p);
    if (end != nullptr) {
      n++;
      AppendValue(&ms, &out, s, end);
    }
    if (end != nullptr && end > s) {
      s = end;
    } else if (s < ms.src_end) {
      Append(&ms, &out, s++, 1);
    } else {
      break;
    }
    if (anchored) break;
  }
  Append(&ms, &out, s, static_cast<size_t>(ms.src_end - s));
  PayWork(&ms);
  lua_pushlstring(L, out.data != nullptr ? out.data : "", out.len);
  lua_pushinteger(L, n);
  return 2;
}

}  // namespace

// What InstallBoundedStringMatch sets.
constexpr struct {
  const char* name;
  lua_CFunction function;
} kFunctions[] = {
    {"find", StringFind},
    {"match", StringMatch},
    {"gmatch", StringGmatch},
    {"gsub", StringGsub},
};

}  // namespace lua_string_match

void InstallBoundedStringMatch(lua_State* L, int string_table, LuaWorkCharge charge) {
  if (string_table < 0 && string_table > LUA_REGISTRYINDEX) {
    string_table = lua_gettop(L) + string_table + 1;
  }
  // gfind is 5.1's gmatch under its old name when Lua is built with
  // LUA_COMPAT_GFIND (Debian's is): it must not stay unbounded.
  lua_getfield(L, string_table, "gfind");
  lua_getfield(L, string_table, "gmatch");
  const bool gfind_is_gmatch = !lua_isnil(L, -1) && lua_rawequal(L, -1, -2);
  lua_pop(L, 2);

  using lua_string_match::ChargeBox;
  static_cast<ChargeBox*>(lua_newuserdata(L, sizeof(ChargeBox)))->charge = charge;
  for (const auto& f : lua_string_match::kFunctions) {
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, f.function, 1);
    lua_setfield(L, string_table, f.name);
  }
  lua_pop(L, 1);
  if (gfind_is_gmatch) {
    lua_getfield(L, string_table, "gmatch");
    lua_setfield(L, string_table, "gfind");
  }
}

}  // namespace lockstep::kv
