// Times in a Lua algorithm that declares relative_time: lock.now(),
// lock.sent_timestamp() and the replies that hold times are values of their
// own type, which can only be offset by a number, subtracted from another
// time (a duration, a number) or compared with one. Anything else is an
// error at the script's line: the promise that decisions depend on times
// only through such comparisons (docs/design.md, "Time without a horizon")
// is checked as the script runs, as is the promise that every time kept
// across lock.forget_history is among its live times.
#include <cstdio>

#include "sim/algo/lua_client.h"

namespace lockstep::algo::lua {
namespace {

constexpr const char* kOnlyOffsets =
    "a time (relative_time) is only offset by a number (t + n, t - n), subtracted from a time "
    "(a duration) or compared with a time";

struct LuaTime {
  world::Millis at = 0;
  uint64_t epoch = 0;       // the lock.forget_history calls made when it was read or kept
  world::Millis drift = 0;  // the sum of the offsets it was made with, in magnitude
};

LuaTime* ToLuaTime(lua_State* L, int index) {
  if (lua_type(L, index) != LUA_TUSERDATA || !lua_getmetatable(L, index)) return nullptr;
  lua_getfield(L, LUA_REGISTRYINDEX, kTimeType);
  const bool time = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return time ? static_cast<LuaTime*>(lua_touserdata(L, index)) : nullptr;
}

// The time at `index`, which must not be older than the last
// lock.forget_history unless it was kept as one of its live times.
world::Millis Fresh(lua_State* L, const LuaTime& t) {
  const LuaClient* self = Self(L);
  if (t.epoch != self->epoch) {
    char message[400];
    std::snprintf(message, sizeof message,
                  "a time read before lock.forget_history(\"%.100s\") is used after it, but is "
                  "not among its live times (its third argument): the search would merge states "
                  "that differ in it",
                  self->forgotten.c_str());
    BreakRule(L, message);
  }
  return t.at;
}

// A time's offset: an integer, else the promise is broken.
int64_t OffsetAt(lua_State* L, int index) {
  const lua_Number n = lua_tonumber(L, index);
  if (lua_type(L, index) != LUA_TNUMBER || n != n || n < -9.0e15 || n > 9.0e15 ||
      static_cast<lua_Number>(static_cast<int64_t>(n)) != n) {
    BreakRule(L, "a time's offset: expected an integer");
  }
  return static_cast<int64_t>(n);
}

int Broken(lua_State* L, const char* what) {
  char message[300];
  std::snprintf(message, sizeof message, "%s: %s", what, kOnlyOffsets);
  return BreakRule(L, message);
}

void Push(lua_State* L, world::Millis at, world::Millis drift = 0) {
  auto* t = static_cast<LuaTime*>(lua_newuserdata(L, sizeof(LuaTime)));
  *t = {at, Self(L)->epoch, drift};
  lua_getfield(L, LUA_REGISTRYINDEX, kTimeType);
  lua_setmetatable(L, -2);
}

// `t` offset by the number at `index` (negated: `sign` -1). The offsets a
// time is made with must stay within the constants of the client's
// settings: the search tells times apart only up to a window built from
// them (docs/design.md, "Time without a horizon").
int PushOffset(lua_State* L, const LuaTime& t, int index, int sign) {
  const world::Millis at = Fresh(L, t);
  const int64_t by = OffsetAt(L, index);
  const world::Millis drift = t.drift + (by < 0 ? -by : by);
  const LuaClient* self = Self(L);
  if (drift > self->offset_bound) {
    char message[300];
    std::snprintf(message, sizeof message,
                  "a time offset by %lld in all, beyond the integers of lock.settings (%lld "
                  "summed): a search without a horizon tells times apart only that far; put the "
                  "constant in the algorithm's settings",
                  static_cast<long long>(drift), static_cast<long long>(self->offset_bound));
    return BreakRule(L, message);
  }
  Push(L, at + sign * by, drift);
  return 1;
}

int Add(lua_State* L) {
  LuaTime* a = ToLuaTime(L, 1);
  LuaTime* b = ToLuaTime(L, 2);
  if (a && b) return Broken(L, "adding two times");
  return a ? PushOffset(L, *a, 2, 1) : PushOffset(L, *b, 1, 1);
}

int Subtract(lua_State* L) {
  LuaTime* a = ToLuaTime(L, 1);
  LuaTime* b = ToLuaTime(L, 2);
  if (!a) return Broken(L, "subtracting a time from a number");
  if (!b) return PushOffset(L, *a, 2, -1);
  lua_pushnumber(L, static_cast<lua_Number>(Fresh(L, *a) - Fresh(L, *b)));
  return 1;
}

// Lua calls the order and equality metamethods only when both sides are
// values of this type: comparing a time with a number is Lua's own error.
int Less(lua_State* L) {
  lua_pushboolean(L, Fresh(L, *ToLuaTime(L, 1)) < Fresh(L, *ToLuaTime(L, 2)));
  return 1;
}
int LessEqual(lua_State* L) {
  lua_pushboolean(L, Fresh(L, *ToLuaTime(L, 1)) <= Fresh(L, *ToLuaTime(L, 2)));
  return 1;
}
int Equal(lua_State* L) {
  lua_pushboolean(L, Fresh(L, *ToLuaTime(L, 1)) == Fresh(L, *ToLuaTime(L, 2)));
  return 1;
}

// Its number, for reading (lock.because, messages): a decision taken on
// the text would break the promise where lockstep cannot see it.
void PushText(lua_State* L, int index) {
  if (LuaTime* t = ToLuaTime(L, index)) {
    char text[32];
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(t->at));
    lua_pushstring(L, text);
  } else if (lua_type(L, index) == LUA_TSTRING || lua_type(L, index) == LUA_TNUMBER) {
    lua_pushvalue(L, index);
  } else {
    luaL_error(L, "attempt to concatenate a %s value", luaL_typename(L, index));
  }
}

int Concat(lua_State* L) {
  PushText(L, 1);
  PushText(L, 2);
  lua_concat(L, 2);
  return 1;
}

int ToText(lua_State* L) {
  PushText(L, 1);
  return 1;
}

int Refuse(lua_State* L) { return Broken(L, "multiplying, dividing or negating a time"); }

// tonumber, refusing a time (upvalue 1: Lua's).
int ToNumber(lua_State* L) {
  if (ToLuaTime(L, 1)) return Broken(L, "tonumber of a time");
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, 1);
  return 1;
}

int IsTime(lua_State* L) {
  lua_pushboolean(L, ToLuaTime(L, 1) != nullptr);
  return 1;
}

}  // namespace

void RegisterTime(lua_State* L) {
  luaL_newmetatable(L, kTimeType);
  const luaL_Reg methods[] = {{"__add", Add},         {"__sub", Subtract}, {"__lt", Less},
                              {"__le", LessEqual},    {"__eq", Equal},     {"__concat", Concat},
                              {"__tostring", ToText}, {"__unm", Refuse},   {"__mul", Refuse},
                              {"__div", Refuse},      {"__mod", Refuse},   {"__pow", Refuse},
                              {nullptr, nullptr}};
  luaL_register(L, nullptr, methods);
  lua_pushliteral(L, "a time");
  lua_setfield(L, -2, "__metatable");  // getmetatable gives this, not the table
  lua_pop(L, 1);
  lua_getglobal(L, "tonumber");
  lua_pushcclosure(L, ToNumber, 1);
  lua_setglobal(L, "tonumber");
  lua_getglobal(L, "lock");
  lua_pushcfunction(L, IsTime);
  lua_setfield(L, -2, "is_time");
  lua_pop(L, 1);
}

void PushTime(lua_State* L, world::Millis at) {
  if (Self(L)->relative_time) {
    Push(L, at);
  } else {
    lua_pushnumber(L, static_cast<lua_Number>(at));
  }
}

bool IsTimeAt(lua_State* L, int index) { return ToLuaTime(L, index) != nullptr; }

world::Millis CheckTime(lua_State* L, int index, const char* what) {
  if (LuaTime* t = ToLuaTime(L, index)) return Fresh(L, *t);
  if (!Self(L)->relative_time) return CheckInteger(L, index, what);
  char message[300];
  std::snprintf(message, sizeof message,
                "%.80s: expected a time (relative_time: lock.now() + n, or a time a reply held), "
                "got a %s",
                what, luaL_typename(L, index));
  BreakRule(L, message);
  return 0;
}

void KeepTimes(lua_State* L, int index) {
  LuaClient* self = Self(L);
  const int n = static_cast<int>(lua_objlen(L, index));
  for (int i = 1; i <= n; ++i) {
    lua_rawgeti(L, index, i);
    LuaTime* t = ToLuaTime(L, -1);
    if (t) t->epoch = self->epoch;  // kept: usable after the forgetting too
    lua_pop(L, 1);
  }
}

}  // namespace lockstep::algo::lua
