// Internal to sim/algo's Lua files (lua_algorithm.cc, lua_client.cc,
// lua_api.cc): one client's Lua run and what the files call of each other.
//
// A rule for every function Lua calls here (the API, the hook, the
// allocator): Lua raises errors with longjmp, which skips C++ destructors
// and must never cross a C++ exception. So no object with a destructor is
// alive in their frames across a Lua API call that can raise, and the C++
// work that can throw (a step parks the fiber, and a stopped run throws
// ClientStopped there) runs inside Guard, which keeps the exception in the
// LuaClient. Lua then unwinds to RunLua with an abort marker, and RunLua
// rethrows it.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "sim/kv/reply.h"
#include "sim/world/client.h"
#include "sim/world/fiber_stack.h"

namespace lockstep::algo::lua {

inline constexpr const char* kClockPlusType = "lockstep.clock_plus";
inline constexpr const char* kTimeType = "lockstep.time";  // lua_time.cc
inline constexpr int kHookEvery = 1000;                    // instructions between two hook calls
// The chunk's name, short so that Lua never cuts it (LUA_IDSIZE): messages
// put the program's own name in its place (Named).
inline constexpr const char* kChunk = "@\x01";
inline constexpr char kChunkMark = '\x01';
// The CPU time one client's code may take between two steps, for work no
// count sees (comparing long strings is one instruction): past it the run
// stops with an error rather than run for hours.
inline constexpr int64_t kCpuBoundSeconds = 60;

// One client's Lua run, reachable from every function Lua calls (it is the
// allocator's user data).
struct LuaClient {
  world::Client* client = nullptr;
  std::string name;  // the program's, for messages (the chunk itself is named kChunk)
  size_t memory = 0;
  int64_t instructions = 0;    // since the last step
  int64_t cpu_start_ns = 0;    // the thread's CPU clock at the first hook since the last step
  std::exception_ptr pending;  // thrown by a step, rethrown once Lua unwound
  std::string fatal;           // an error pcall must not catch...
  bool read_token = false;     // ...a world::TokenReadBack
  std::vector<world::Value> argv;
  std::vector<int64_t> live;
  std::vector<world::Millis> live_times;
  // The algorithm declares relative_time: its times are values of their
  // own type (lua_time.cc), stale once lock.forget_history has been called
  // `epoch` times since they were read, unless kept as live times.
  bool relative_time = false;
  uint64_t epoch = 0;
  std::string forgotten;           // the last lock.forget_history's label
  world::Millis offset_bound = 0;  // LuaTimeConstants of its settings
  kv::Reply reply;
  std::string text;  // an API error's message
};

LuaClient* Self(lua_State* L);
// The allocator: every byte counted against kLuaMemoryLimit.
void* Allocate(void* ud, void* ptr, size_t old_size, size_t new_size);
// Unwinds the script to RunLua, which sees the marker.
int Abort(lua_State* L);
// Ends the run: the script broke a rule of the API or a promise of its
// declaration (world::RuleBroken, exit 2), which no pcall catches.
// `message` is put after the script's place.
int BreakRule(lua_State* L, const char* message);
int BreakRuleF(lua_State* L, const char* format, ...) __attribute__((format(printf, 2, 3)));
// The string, or the table, argument at `index`; else a rule broken.
const char* CheckString(lua_State* L, int index, size_t* length, const char* what);
void CheckTable(lua_State* L, int index, const char* what);
bool IsAbortMarker(lua_State* L, int index);
// The client took a step: the counts between two steps start again.
void NewStep(LuaClient* self);
// `text` with the chunk's mark replaced by the program's name.
std::string Named(const LuaClient* self, std::string text);
// `name` without its folders: "get_compare_del.lua", "lua_inline". What
// traces show, the same wherever the scenario or the trace lies.
std::string_view FileName(std::string_view name);
// The message handler of the script's run: an error whose value is not a
// string gets the place it was raised at, as a string's does.
int ErrorHandler(lua_State* L);
// Charges pattern matching's work to the instructions between two steps
// (a kv::LuaWorkCharge).
void ChargeWork(lua_State* L, int64_t work);

// Runs `f`, which may throw; keeps what it threw.
template <class F>
bool Guard(LuaClient* self, F&& f) noexcept {
  try {
    f();
    return true;
  } catch (...) {
    world::ForgetUnwoundFrames();
    self->pending = std::current_exception();
    return false;
  }
}

// Whether what a call threw is the script's error (its message then in
// self->text) rather than the end of the run.
bool ScriptError(LuaClient* self) noexcept;
// A call that threw: the end of the run unwinds to RunLua; another error is
// the script's, at its line.
int Failed(lua_State* L);
bool Unwinding(const LuaClient* self);
// The count hook: an endless loop between two steps ends the run.
void Hook(lua_State* L, lua_Debug* ar);

int64_t CheckInteger(lua_State* L, int index, const char* what);
// The arguments from `first` on, as a command, into self->argv.
void ReadArgv(lua_State* L, LuaClient* self, int first, const char* fn);
// The reply as EVAL gives it to a script; an error raises (raise) or is
// {err = text}; a bulk reply that holds a time (`time`) is a time.
void PushReply(lua_State* L, const kv::Reply& r, bool raise, bool time = false);
// The script's line that called the API, as the source line of the step or
// reason the call makes ("lock.lua:12"). Run inside Guard.
void MarkSource(lua_State* L, LuaClient* self);

// lua_time.cc: times under relative_time. RegisterTime makes their type,
// lock.is_time and a tonumber that refuses them (after RegisterApi).
void RegisterTime(lua_State* L);
// `at` as a time under relative_time, else as a number.
void PushTime(lua_State* L, world::Millis at);
bool IsTimeAt(lua_State* L, int index);
// A time argument: a time not stale (or, without relative_time, an
// integer). Raises otherwise.
world::Millis CheckTime(lua_State* L, int index, const char* what);
// The times in the table at `index` are kept across the lock.forget_history
// just made: usable after it.
void KeepTimes(lua_State* L, int index);

// lua_settings.cc: the table on the top of the stack, lock.settings as
// `settings` gives it, refuses to read a name it does not declare; adds
// lock.setting(name, default) to the lock table below it.
void ProtectSettings(lua_State* L, const nlohmann::json& settings);

// lua_api.cc: the redis and lock tables, and pcall that lets the end of a
// run and the limits through.
void RegisterApi(lua_State* L);
int SafePcall(lua_State* L);

}  // namespace lockstep::algo::lua
