#include "sim/algo/lua_client.h"

#include <time.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "sim/algo/lua_algorithm.h"
#include "sim/base/limits.h"
#include "sim/kv/int_parse.h"
#include "sim/kv/lua_string_match.h"
#include "sim/kv/script.h"

namespace lockstep::algo::lua {
namespace {

char kAbortMarker;  // its address marks an unwinding run

std::string Place(lua_State* L, const LuaClient* self);

}  // namespace

int BreakRuleF(lua_State* L, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return BreakRule(L, message);
}

int BreakRule(lua_State* L, const char* message) {
  LuaClient* self = Self(L);
  try {
    self->fatal = Place(L, self) + ": " + message;
  } catch (...) {
    self->fatal = "a Lua algorithm broke a rule of lockstep's API";
  }
  return Abort(L);
}

LuaClient* Self(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<LuaClient*>(ud);
}

void* Allocate(void* ud, void* ptr, size_t old_size, size_t new_size) {
  auto* self = static_cast<LuaClient*>(ud);
  if (new_size == 0) {
    std::free(ptr);
    self->memory -= old_size;
    return nullptr;
  }
  if (new_size > old_size && self->memory - old_size + new_size > kLuaMemoryLimit) {
    return nullptr;  // Lua raises "not enough memory"
  }
  // Bytes allocated count toward the instructions between two steps, so
  // that building long strings over and over is bounded as a loop is.
  if (new_size > old_size) {
    self->instructions += static_cast<int64_t>(new_size / kv::kBytesPerInstruction);
  }
  void* p = std::realloc(ptr, new_size);
  if (p) self->memory = self->memory - old_size + new_size;
  return p;
}

// Unwinds the script to RunLua, which sees the marker.
int Abort(lua_State* L) {
  lua_pushlightuserdata(L, &kAbortMarker);
  return lua_error(L);
}

// Whether what a call threw is the script's error (its message then in
// self->text) rather than the end of the run.
bool ScriptError(LuaClient* self) noexcept {
  try {
    std::rethrow_exception(self->pending);
  } catch (const world::ClientStopped&) {
    return false;
  } catch (const std::exception& e) {
    try {
      self->text = e.what();
    } catch (...) {
      return false;
    }
    self->pending = nullptr;
    return true;
  } catch (...) {
    return false;
  }
}

// Whether what a call threw is a rule broken (a std::logic_error: a misuse
// of the critical-section calls, a broken declaration): the run then ends
// (no pcall catches it), the message in self->fatal at the script's line.
bool BrokeRule(lua_State* L, LuaClient* self) noexcept {
  try {
    std::rethrow_exception(self->pending);
  } catch (const std::logic_error& e) {
    self->read_token = dynamic_cast<const world::TokenReadBack*>(&e) != nullptr;
    try {
      self->fatal = Place(L, self) + ": " + e.what();
    } catch (...) {
      self->fatal = "a Lua algorithm broke a rule of lockstep's API";
    }
    self->pending = nullptr;
    return true;
  } catch (...) {
    return false;
  }
}

// A call that threw: the end of the run unwinds to RunLua; a rule broken
// ends it too; another error is the script's, at its line.
int Failed(lua_State* L) {
  LuaClient* self = Self(L);
  if (BrokeRule(L, self)) return Abort(L);
  if (!ScriptError(self)) return Abort(L);
  luaL_where(L, 1);
  lua_pushlstring(L, self->text.data(), self->text.size());
  lua_concat(L, 2);
  return lua_error(L);
}

bool Unwinding(const LuaClient* self) { return self->pending || !self->fatal.empty(); }

namespace {

int64_t ThreadCpuNanos() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// "NAME:LINE" of the script's innermost Lua function, or NAME.
std::string Place(lua_State* L, const LuaClient* self) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar) != 0; ++level) {
    if (lua_getinfo(L, "Sl", &ar) != 0 && ar.currentline > 0) {
      return Named(self, std::string(ar.short_src) + ":" + std::to_string(ar.currentline));
    }
  }
  return self->name;
}

// Why a run is ended: it ran past a bound between two steps.
enum class Bound { kInstructions, kMatchWork, kCpu };

// Says why the run ends, in self->fatal. Returns before the caller aborts,
// so that no string of its own is alive when Lua unwinds.
void SetFatal(lua_State* L, LuaClient* self, Bound bound) noexcept {
  try {
    const std::string most = std::to_string(kLuaInstructionsPerStep);
    self->fatal =
        Place(L, self) + ": " +
        (bound == Bound::kInstructions
             ? "more than " + most + " Lua instructions without a step (an endless loop?)"
         : bound == Bound::kMatchWork
             ? "more than " + most +
                   " Lua instructions without a step (pattern matching counts its steps as "
                   "instructions)"
             : "more than " + std::to_string(kCpuBoundSeconds) +
                   " s of CPU time without a step (work no instruction count sees, such as "
                   "comparing very long strings)");
  } catch (...) {
    self->fatal = "a Lua algorithm ran past its bounds";
  }
}

}  // namespace

void NewStep(LuaClient* self) {
  self->instructions = 0;
  self->cpu_start_ns = 0;
}

std::string Named(const LuaClient* self, std::string text) {
  for (size_t at = text.find(kChunkMark); at != std::string::npos;
       at = text.find(kChunkMark, at + self->name.size())) {
    text.replace(at, 1, self->name);
  }
  return text;
}

void Hook(lua_State* L, lua_Debug*) {
  LuaClient* self = Self(L);
  self->instructions += kHookEvery;
  if (self->instructions > kLuaInstructionsPerStep) {
    SetFatal(L, self, Bound::kInstructions);
    Abort(L);
  }
  const int64_t now = ThreadCpuNanos();
  if (self->cpu_start_ns == 0) self->cpu_start_ns = now;
  if (now - self->cpu_start_ns > kCpuBoundSeconds * 1'000'000'000) {
    SetFatal(L, self, Bound::kCpu);
    Abort(L);
  }
}

void ChargeWork(lua_State* L, int64_t work) {
  if (work == kv::kMatchTooComplex) return;  // a Lua error of the script's own
  LuaClient* self = Self(L);
  self->instructions += work;
  if (self->instructions > kLuaInstructionsPerStep) {
    SetFatal(L, self, Bound::kMatchWork);
    Abort(L);
  }
}

int ErrorHandler(lua_State* L) {
  if (IsAbortMarker(L, 1)) return 1;
  // A message that names its place starts with the chunk's name; Lua gives
  // none to an error raised inside a C function ("C stack overflow").
  const char* text = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : nullptr;
  if (text != nullptr && text[0] == kChunkMark) {
    // Lua's own error for a time compared with a number names no time,
    // and is a broken promise, not a finding about the lock.
    LuaClient* self = Self(L);
    if (self->relative_time && std::strstr(text, "attempt to compare") != nullptr &&
        std::strstr(text, "userdata") != nullptr) {
      try {
        self->fatal = Named(self, std::string(text) +
                                      " (a time, under relative_time, is compared only with a "
                                      "time: write t1 < t2 + n, or compare the duration t1 - t2 "
                                      "with a number)");
      } catch (...) {
        self->fatal = "a time compared with a number (relative_time)";
      }
    }
    return 1;
  }
  // Level 1 is `error` itself (a C function): the place is the first Lua
  // function above it. A plain buffer: lua_pushstring may raise.
  char where[LUA_IDSIZE + 80] = "";
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar) != 0; ++level) {
    if (lua_getinfo(L, "Sl", &ar) != 0 && ar.currentline > 0) {
      std::snprintf(where, sizeof where, "%s:%d: ", ar.short_src, ar.currentline);
      break;
    }
  }
  if (text != nullptr) {
    lua_pushstring(L, where);
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
    return 1;
  }
  const size_t n = std::strlen(where);
  std::snprintf(where + n, sizeof where - n, "a Lua error whose value is %s%s",
                lua_isnil(L, 1) ? "" : "a ", lua_isnil(L, 1) ? "nil" : luaL_typename(L, 1));
  lua_pushstring(L, where);
  return 1;
}

const char* CheckString(lua_State* L, int index, size_t* length, const char* what) {
  if (lua_type(L, index) != LUA_TSTRING && lua_type(L, index) != LUA_TNUMBER) {
    BreakRuleF(L, "%s: expected a string, got %s", what, luaL_typename(L, index));
  }
  return lua_tolstring(L, index, length);
}

void CheckTable(lua_State* L, int index, const char* what) {
  if (lua_type(L, index) != LUA_TTABLE) {
    BreakRuleF(L, "%s: expected a table, got %s", what, luaL_typename(L, index));
  }
}

int64_t CheckInteger(lua_State* L, int index, const char* what) {
  const lua_Number n = lua_tonumber(L, index);
  if (!lua_isnumber(L, index) || n != n || n < -9.0e15 || n > 9.0e15 ||
      static_cast<lua_Number>(static_cast<int64_t>(n)) != n) {
    BreakRuleF(L, "%s: expected an integer, got %s", what,
               lua_isnumber(L, index) ? "a fraction" : luaL_typename(L, index));
  }
  return static_cast<int64_t>(n);
}

// The arguments from `first` on, as a command, into self->argv.
void ReadArgv(lua_State* L, LuaClient* self, int first, const char* fn) {
  self->argv.clear();
  const int top = lua_gettop(L);
  if (top < first) BreakRuleF(L, "%s: expected a command", fn);
  for (int i = first; i <= top; ++i) {
    const int type = lua_type(L, i);
    if (type == LUA_TSTRING || type == LUA_TNUMBER) {
      size_t n = 0;
      const char* s = lua_tolstring(L, i, &n);
      self->argv.emplace_back(std::string(s, n));
      continue;
    }
    if (IsTimeAt(L, i)) {
      self->argv.push_back(world::Value::Time(CheckTime(L, i, fn)));
      continue;
    }
    if (type == LUA_TUSERDATA && lua_getmetatable(L, i)) {
      lua_getfield(L, LUA_REGISTRYINDEX, kClockPlusType);
      const bool clock = lua_rawequal(L, -1, -2);
      lua_pop(L, 2);
      if (clock) {
        self->argv.push_back(
            world::Value::ClockPlus(*static_cast<const int64_t*>(lua_touserdata(L, i))));
        continue;
      }
    }
    BreakRuleF(L, "%s: argument %d is a %s; expected a string, a number or lock.clock_plus(n)", fn,
               i - first + 1, luaL_typename(L, i));
  }
}

// The reply as EVAL gives it to a script; an error raises (raise) or is
// {err = text}.
void PushReply(lua_State* L, const kv::Reply& r, bool raise, bool time) {
  luaL_checkstack(L, 3, "reply too deep");
  int64_t at = 0;
  switch (r.type) {
    case kv::Reply::Type::kInteger:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      return;
    case kv::Reply::Type::kBulk:
      if (time && kv::ParseInt64(r.text, &at)) {
        PushTime(L, at);
      } else {
        lua_pushlstring(L, r.text.data(), r.text.size());
      }
      return;
    case kv::Reply::Type::kNil:
      lua_pushboolean(L, 0);
      return;
    case kv::Reply::Type::kStatus:
    case kv::Reply::Type::kError:
      if (raise && r.type == kv::Reply::Type::kError) {
        luaL_where(L, 1);
        lua_pushlstring(L, r.text.data(), r.text.size());
        lua_concat(L, 2);
        lua_error(L);
      }
      lua_newtable(L);
      lua_pushlstring(L, r.text.data(), r.text.size());
      lua_setfield(L, -2, r.type == kv::Reply::Type::kStatus ? "ok" : "err");
      return;
    case kv::Reply::Type::kArray:
      lua_createtable(L, static_cast<int>(r.elements.size()), 0);
      for (size_t j = 0; j < r.elements.size(); ++j) {
        PushReply(L, r.elements[j], false);
        lua_rawseti(L, -2, static_cast<int>(j + 1));
      }
      return;
  }
}

// The script's line that called the API, as the source line of the step or
// reason the call makes ("lock.lua:12"). Run inside Guard.
std::string_view FileName(std::string_view name) {
  if (size_t slash = name.find_last_of('/'); slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  return name;
}

void MarkSource(lua_State* L, LuaClient* self) {
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) == 0 || lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0) return;
  std::string_view file = ar.short_src;
  if (file.size() == 1 && file[0] == kChunkMark) file = self->name;
  self->client->At(std::string(FileName(file)) + ":" + std::to_string(ar.currentline));
}

bool IsAbortMarker(lua_State* L, int index) { return lua_touserdata(L, index) == &kAbortMarker; }

}  // namespace lockstep::algo::lua
