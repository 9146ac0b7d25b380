// A rule for every function Lua calls here (the API, the hook, the
// allocator): Lua raises errors with longjmp, which skips C++ destructors
// and must never cross a C++ exception. So no object with a destructor is
// alive in their frames across a Lua API call that can raise, and the C++
// work that can throw (a step parks the fiber, and a stopped run throws
// ClientStopped there) runs inside Guard, which keeps the exception in the
// LuaClient. Lua then unwinds to RunLua with an abort marker, and RunLua
// rethrows it.
#include "sim/algo/lua_algorithm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "sim/base/limits.h"

namespace lockstep::algo {
namespace {

using nlohmann::json;

constexpr const char* kClockPlusType = "lockstep.clock_plus";
constexpr int kHookEvery = 1000;  // instructions between two hook calls
char kAbortMarker;                // its address marks an unwinding run

// One client's Lua run, reachable from every function Lua calls (it is the
// allocator's user data).
struct LuaClient {
  world::Client* client = nullptr;
  size_t memory = 0;
  int64_t instructions = 0;    // since the last step
  std::exception_ptr pending;  // thrown by a step, rethrown once Lua unwound
  std::string fatal;           // an error pcall must not catch
  std::vector<world::Value> argv;
  std::vector<int64_t> live;
  kv::Reply reply;
  std::string text;  // an API error's message
};

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
  void* p = std::realloc(ptr, new_size);
  if (p) self->memory = self->memory - old_size + new_size;
  return p;
}

// Unwinds the script to RunLua, which sees the marker.
int Abort(lua_State* L) {
  lua_pushlightuserdata(L, &kAbortMarker);
  return lua_error(L);
}

// Runs `f`, which may throw; keeps what it threw.
template <class F>
bool Guard(LuaClient* self, F&& f) noexcept {
  try {
    f();
    return true;
  } catch (...) {
    self->pending = std::current_exception();
    return false;
  }
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

// A call that threw: the end of the run unwinds to RunLua; another error is
// the script's, at its line.
int Failed(lua_State* L) {
  LuaClient* self = Self(L);
  if (!ScriptError(self)) return Abort(L);
  luaL_where(L, 1);
  lua_pushlstring(L, self->text.data(), self->text.size());
  lua_concat(L, 2);
  return lua_error(L);
}

bool Unwinding(const LuaClient* self) { return self->pending || !self->fatal.empty(); }

void Hook(lua_State* L, lua_Debug* ar) {
  LuaClient* self = Self(L);
  self->instructions += kHookEvery;
  if (self->instructions <= kLuaInstructionsPerStep) return;
  lua_getinfo(L, "Sl", ar);
  self->fatal = std::string(ar->short_src) + ":" + std::to_string(ar->currentline) +
                ": more than " + std::to_string(kLuaInstructionsPerStep) +
                " Lua instructions without a step (an endless loop?)";
  Abort(L);
}

int64_t CheckInteger(lua_State* L, int index, const char* what) {
  lua_Number n = luaL_checknumber(L, index);
  if (n != n || n < -9.0e15 || n > 9.0e15 ||
      static_cast<lua_Number>(static_cast<int64_t>(n)) != n) {
    luaL_error(L, "%s: expected an integer", what);
  }
  return static_cast<int64_t>(n);
}

// The arguments from `first` on, as a command, into self->argv.
void ReadArgv(lua_State* L, LuaClient* self, int first, const char* fn) {
  self->argv.clear();
  const int top = lua_gettop(L);
  if (top < first) luaL_error(L, "%s: expected a command", fn);
  for (int i = first; i <= top; ++i) {
    const int type = lua_type(L, i);
    if (type == LUA_TSTRING || type == LUA_TNUMBER) {
      size_t n = 0;
      const char* s = lua_tolstring(L, i, &n);
      self->argv.emplace_back(std::string(s, n));
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
    luaL_error(L, "%s: argument %d is a %s; expected a string, a number or lock.clock_plus(n)", fn,
               i - first + 1, luaL_typename(L, i));
  }
}

// The reply as EVAL gives it to a script; an error raises (raise) or is
// {err = text}.
void PushReply(lua_State* L, const kv::Reply& r, bool raise) {
  luaL_checkstack(L, 3, "reply too deep");
  switch (r.type) {
    case kv::Reply::Type::kInteger:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      return;
    case kv::Reply::Type::kBulk:
      lua_pushlstring(L, r.text.data(), r.text.size());
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
void MarkSource(lua_State* L, LuaClient* self) {
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) == 0 || lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0) return;
  std::string_view file = ar.short_src;
  if (size_t slash = file.find_last_of('/'); slash != std::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  self->client->At(std::string(file) + ":" + std::to_string(ar.currentline));
}

int CommandOn(lua_State* L, int instance, int first, bool raise, const char* fn) {
  LuaClient* self = Self(L);
  ReadArgv(L, self, first, fn);
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->reply = self->client->CallOn(instance, std::move(self->argv));
      })) {
    return Failed(L);
  }
  self->instructions = 0;
  PushReply(L, self->reply, raise);
  return 1;
}

int Instance(lua_State* L, const char* fn) {
  const int64_t i = CheckInteger(L, 1, fn);
  if (i < 1 || i > static_cast<int64_t>(base::kMaxServers)) {
    luaL_error(L, "%s: expected an instance from 1, got %d", fn, static_cast<int>(i));
  }
  return static_cast<int>(i - 1);
}

int RedisCall(lua_State* L) { return CommandOn(L, 0, 1, true, "redis.call"); }
int RedisPcall(lua_State* L) { return CommandOn(L, 0, 1, false, "redis.pcall"); }
int RedisCallOn(lua_State* L) {
  return CommandOn(L, Instance(L, "redis.call_on"), 2, true, "redis.call_on");
}
int RedisPcallOn(lua_State* L) {
  return CommandOn(L, Instance(L, "redis.pcall_on"), 2, false, "redis.pcall_on");
}

int LockNow(lua_State* L) {
  LuaClient* self = Self(L);
  world::Millis now = 0;
  if (!Guard(self, [&] { now = self->client->Now(); })) return Failed(L);
  lua_pushnumber(L, static_cast<lua_Number>(now));
  return 1;
}

int LockClockPlus(lua_State* L) {
  const int64_t offset = CheckInteger(L, 1, "lock.clock_plus");
  auto* box = static_cast<int64_t*>(lua_newuserdata(L, sizeof(int64_t)));
  *box = offset;
  lua_getfield(L, LUA_REGISTRYINDEX, kClockPlusType);
  lua_setmetatable(L, -2);
  return 1;
}

int LockSentTimestamp(lua_State* L) {
  LuaClient* self = Self(L);
  world::Millis t = 0;
  if (!Guard(self, [&] { t = self->client->SentTimestamp(); })) return Failed(L);
  lua_pushnumber(L, static_cast<lua_Number>(t));
  return 1;
}

int LockSleep(lua_State* L) {
  const int64_t ticks = CheckInteger(L, 1, "lock.sleep");
  if (ticks < 0) luaL_error(L, "lock.sleep: expected ticks >= 0");
  // lock.sleep(least, most): any number of ticks between them.
  const int64_t most = lua_isnoneornil(L, 2) ? ticks : CheckInteger(L, 2, "lock.sleep");
  if (most < ticks) luaL_error(L, "lock.sleep: expected most >= least");
  LuaClient* self = Self(L);
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->client->SleepBetween(ticks, most);
      })) {
    return Failed(L);
  }
  self->instructions = 0;
  return 0;
}

int LockBecause(lua_State* L) {
  size_t length = 0;
  const char* text = luaL_checklstring(L, 1, &length);
  LuaClient* self = Self(L);
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->client->Because(std::string(text, length));
      })) {
    return Failed(L);
  }
  return 0;
}

int LockEnter(lua_State* L) {
  const int64_t valid_until = CheckInteger(L, 1, "lock.enter");
  LuaClient* self = Self(L);
  if (!Guard(self, [&] { self->client->EnterCriticalSection(valid_until); })) return Failed(L);
  return 0;
}

int LockLeave(lua_State* L) {
  LuaClient* self = Self(L);
  bool conditional = false;
  int64_t unless_expired = 0;
  self->argv.clear();
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const int n = static_cast<int>(lua_objlen(L, 1));
    for (int i = 1; i <= n; ++i) lua_rawgeti(L, 1, i);
    ReadArgv(L, self, lua_gettop(L) - n + 1, "lock.leave");
    lua_pop(L, n);
    if (!lua_isnoneornil(L, 2)) {
      luaL_checktype(L, 2, LUA_TTABLE);
      lua_getfield(L, 2, "unless_expired");
      if (!lua_isnil(L, -1)) {
        conditional = true;
        unless_expired = CheckInteger(L, -1, "lock.leave: unless_expired");
      }
      lua_pop(L, 1);
    }
  }
  bool ok = Guard(self, [&] {
    MarkSource(L, self);
    if (self->argv.empty()) {
      self->reply = self->client->LeaveCriticalSection();
      return;
    }
    std::vector<std::string> command;
    bool has_clock = false;
    for (const world::Value& v : self->argv) has_clock |= v.is_clock();
    if (has_clock) throw std::runtime_error("lock.leave: a release command cannot read the clock");
    for (const world::Value& v : self->argv) command.push_back(v.literal());
    self->reply = self->client->LeaveCriticalSection(
        [command, conditional, unless_expired](world::Millis now) {
          return conditional && unless_expired < now ? std::vector<std::string>{} : command;
        });
  });
  if (!ok) return Failed(L);
  self->instructions = 0;
  PushReply(L, self->reply, false);
  return 1;
}

int LockForget(lua_State* L) {
  LuaClient* self = Self(L);
  if (!Guard(self, [&] { self->client->ForgetLock(); })) return Failed(L);
  return 0;
}

int LockWriteResource(lua_State* L) {
  const int64_t token = CheckInteger(L, 1, "lock.write_resource");
  LuaClient* self = Self(L);
  bool accepted = false;
  if (!Guard(self, [&] {
        MarkSource(L, self);
        accepted = self->client->WriteResource(token);
      })) {
    return Failed(L);
  }
  self->instructions = 0;
  lua_pushboolean(L, accepted);
  return 1;
}

int LockRandom(lua_State* L) {
  LuaClient* self = Self(L);
  uint64_t r = 0;
  if (!Guard(self, [&] { r = self->client->Random(); })) return Failed(L);
  lua_pushnumber(L, static_cast<lua_Number>(r >> 11));
  return 1;
}

int LockRandomToken(lua_State* L) {
  LuaClient* self = Self(L);
  char token[32];
  size_t n = 0;
  if (!Guard(self, [&] {
        std::string t = self->client->RandomToken();
        n = std::min(t.size(), sizeof token);
        std::memcpy(token, t.data(), n);
      })) {
    return Failed(L);
  }
  lua_pushlstring(L, token, n);
  return 1;
}

int LockForgetHistory(lua_State* L) {
  size_t label_size = 0;
  const char* label = luaL_checklstring(L, 1, &label_size);
  LuaClient* self = Self(L);
  self->live.clear();
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    const int n = static_cast<int>(lua_objlen(L, 2));
    for (int i = 1; i <= n; ++i) {
      lua_rawgeti(L, 2, i);
      self->live.push_back(CheckInteger(L, -1, "lock.forget_history: a live value"));
      lua_pop(L, 1);
    }
  }
  if (!Guard(self, [&] {
        self->client->ForgetHistory(std::string_view(label, label_size), self->live);
      })) {
    return Failed(L);
  }
  return 0;
}

// pcall that lets the end of a run, and the limits, through.
int SafePcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (status != 0 && Unwinding(Self(L))) return lua_error(L);
  lua_pushboolean(L, status == 0);
  lua_insert(L, 1);
  return lua_gettop(L);
}

void PushJson(lua_State* L, const json& j) {
  luaL_checkstack(L, 3, "settings too deep");
  switch (j.type()) {
    case json::value_t::object:
      lua_newtable(L);
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (it->is_null()) continue;
        PushJson(L, *it);
        lua_setfield(L, -2, it.key().c_str());
      }
      return;
    case json::value_t::array:
      lua_newtable(L);
      for (size_t i = 0; i < j.size(); ++i) {
        PushJson(L, j[i]);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return;
    case json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case json::value_t::boolean:
      lua_pushboolean(L, j.get<bool>());
      return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      lua_pushnumber(L, j.get<double>());
      return;
    default:
      lua_pushnil(L);
      return;
  }
}

struct SetupArgs {
  const json* settings;
};

// Under lua_cpcall: the libraries, the sandbox and the API.
int Setup(lua_State* L) {
  const auto* args = static_cast<const SetupArgs*>(lua_touserdata(L, 1));
  const luaL_Reg libs[] = {{"", luaopen_base},
                           {LUA_TABLIBNAME, luaopen_table},
                           {LUA_STRLIBNAME, luaopen_string},
                           {LUA_MATHLIBNAME, luaopen_math}};
  for (const luaL_Reg& lib : libs) {
    lua_pushcfunction(L, lib.func);
    lua_pushstring(L, lib.name);
    lua_call(L, 1, 0);
  }
  for (const char* name : {"dofile", "loadfile", "load", "loadstring", "print", "xpcall",
                           "coroutine", "collectgarbage", "gcinfo", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_pushcfunction(L, SafePcall);
  lua_setglobal(L, "pcall");
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "random");
  lua_pushnil(L);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);

  luaL_newmetatable(L, kClockPlusType);
  lua_pop(L, 1);

  const luaL_Reg redis[] = {{"call", RedisCall},
                            {"pcall", RedisPcall},
                            {"call_on", RedisCallOn},
                            {"pcall_on", RedisPcallOn},
                            {nullptr, nullptr}};
  luaL_register(L, "redis", redis);
  lua_pop(L, 1);
  const luaL_Reg lock[] = {{"now", LockNow},
                           {"clock_plus", LockClockPlus},
                           {"sent_timestamp", LockSentTimestamp},
                           {"sleep", LockSleep},
                           {"because", LockBecause},
                           {"enter", LockEnter},
                           {"leave", LockLeave},
                           {"forget", LockForget},
                           {"write_resource", LockWriteResource},
                           {"random", LockRandom},
                           {"random_token", LockRandomToken},
                           {"forget_history", LockForgetHistory},
                           {nullptr, nullptr}};
  luaL_register(L, "lock", lock);
  PushJson(L, *args->settings);
  lua_setfield(L, -2, "settings");
  lua_pop(L, 1);
  return 0;
}

std::string TopMessage(lua_State* L) {
  if (lua_isstring(L, -1)) return lua_tostring(L, -1);
  return std::string("a Lua error whose value is a ") + luaL_typename(L, -1);
}

void RunLua(world::Client& client, const LuaProgram& program, const json& settings) {
  LuaClient self;
  self.client = &client;
  lua_State* L = lua_newstate(Allocate, &self);
  if (L == nullptr) throw std::runtime_error("cannot create a Lua state");
  struct Close {
    lua_State* L;
    ~Close() { lua_close(L); }
  } close{L};
  SetupArgs args{&settings};
  if (lua_cpcall(L, Setup, &args) != 0) throw std::runtime_error(TopMessage(L));
  const std::string chunk = "@" + program.name;
  if (const std::string error = LuaSyntaxError(program); !error.empty()) {
    throw std::runtime_error(error);
  }
  if (luaL_loadbuffer(L, program.source.data(), program.source.size(), chunk.c_str()) != 0) {
    throw std::runtime_error(TopMessage(L));
  }
  lua_sethook(L, Hook, LUA_MASKCOUNT, kHookEvery);
  if (lua_pcall(L, 0, 0, 0) == 0) return;
  if (self.pending) std::rethrow_exception(self.pending);
  if (!self.fatal.empty()) throw std::runtime_error(self.fatal);
  std::string message = TopMessage(L);
  if (message == "not enough memory") {
    message +=
        " (a client's Lua state holds at most " + std::to_string(kLuaMemoryLimit >> 20) + " MiB)";
  }
  throw std::runtime_error(message);
}

}  // namespace

std::string LuaSyntaxError(const LuaProgram& program) {
  if (!program.source.empty() && program.source[0] == LUA_SIGNATURE[0]) {
    return program.name + ": precompiled Lua is refused; give the source";
  }
  lua_State* L = luaL_newstate();
  if (L == nullptr) return program.name + ": cannot create a Lua state";
  const std::string chunk = "@" + program.name;
  std::string error;
  if (luaL_loadbuffer(L, program.source.data(), program.source.size(), chunk.c_str()) != 0) {
    error = TopMessage(L);
  }
  lua_close(L);
  return error;
}

Body MakeLuaBody(std::shared_ptr<const LuaProgram> program, json settings) {
  return [program = std::move(program), settings = std::move(settings)](world::Client& c) {
    RunLua(c, *program, settings);
  };
}

}  // namespace lockstep::algo
