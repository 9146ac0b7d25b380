#include "sim/algo/lua_algorithm.h"

#include <stdexcept>

#include "sim/algo/lua_client.h"
#include "sim/base/limits.h"
#include "sim/base/printable.h"
#include "sim/kv/lua_determinism.h"
#include "sim/kv/lua_string_match.h"

namespace lockstep::algo {
namespace {

using nlohmann::json;
using namespace lua;

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
  // No address decides what the algorithm does or says.
  kv::InstallDeterministicToString(L);
  kv::InstallCheckedIteration(L, ChargeWork);
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "random");
  lua_pushnil(L);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  // Pattern matching runs in C, out of the count hook's sight: these
  // versions charge their work to the instructions between two steps.
  kv::InstallBoundedStringMatch(L, lua_gettop(L), ChargeWork);
  lua_pop(L, 1);

  RegisterApi(L);
  lua_getglobal(L, "lock");
  PushJson(L, *args->settings);
  ProtectSettings(L, *args->settings);
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
  self.name = program.name;
  self.relative_time = program.relative_time;
  self.offset_bound = LuaTimeConstants(settings);
  lua_State* L = lua_newstate(Allocate, &self);
  if (L == nullptr) throw world::RuleBroken("cannot create a Lua state");
  struct Close {
    lua_State* L;
    ~Close() { lua_close(L); }
  } close{L};
  SetupArgs args{&settings};
  if (lua_cpcall(L, Setup, &args) != 0) throw world::RuleBroken(TopMessage(L));
  if (const std::string error = LuaSyntaxError(program); !error.empty()) {
    throw world::RuleBroken(error);
  }
  lua_pushcfunction(L, ErrorHandler);
  if (luaL_loadbuffer(L, program.source.data(), program.source.size(), kChunk) != 0) {
    throw world::RuleBroken(Named(&self, TopMessage(L)));
  }
  lua_sethook(L, Hook, LUA_MASKCOUNT, kHookEvery);
  if (lua_pcall(L, 0, 0, 1) == 0) return;
  world::ForgetUnwoundFrames();  // Lua's longjmp left them
  if (self.pending) std::rethrow_exception(self.pending);
  // A limit of the sandbox, a misuse of the API or a broken promise is a
  // rule broken; any other error of the script is a finding about it.
  if (!self.fatal.empty()) {
    if (self.read_token) throw world::TokenReadBack(base::Printable(self.fatal));
    throw world::RuleBroken(base::Printable(self.fatal));
  }
  if (std::string message = TopMessage(L); message == "not enough memory") {
    message +=
        " (a client's Lua state holds at most " + std::to_string(kLuaMemoryLimit >> 20) + " MiB)";
    throw world::RuleBroken(base::Printable(message));
  }
  // A finding goes into the trace: named as the trace's steps name the
  // script, the same when the trace is replayed from elsewhere.
  LuaClient shown;
  shown.name = FileName(program.name);
  throw std::runtime_error(base::Printable(Named(&shown, TopMessage(L))));
}

}  // namespace

std::string LuaSyntaxError(const LuaProgram& program) {
  if (!program.source.empty() && program.source[0] == LUA_SIGNATURE[0]) {
    return program.name + ": precompiled Lua is refused; give the source";
  }
  lua_State* L = luaL_newstate();
  if (L == nullptr) return program.name + ": cannot create a Lua state";
  std::string error;
  if (luaL_loadbuffer(L, program.source.data(), program.source.size(), kChunk) != 0) {
    LuaClient named;
    named.name = program.name;
    error = base::Printable(Named(&named, TopMessage(L)));
  }
  lua_close(L);
  return error;
}

int64_t LuaTimeConstants(const json& settings) {
  int64_t sum = 0;
  for (const json& v : settings) {
    if (v.is_number_integer()) {
      const int64_t n = v.get<int64_t>();
      sum += n < 0 ? -n : n;
    } else if (v.is_structured()) {
      sum += LuaTimeConstants(v);
    }
  }
  return sum;
}

Body MakeLuaBody(std::shared_ptr<const LuaProgram> program, json settings) {
  return [program = std::move(program), settings = std::move(settings)](world::Client& c) {
    RunLua(c, *program, settings);
  };
}

}  // namespace lockstep::algo
