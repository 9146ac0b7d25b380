// Shared by the tests of sim/kv/lua_string_match.h: a lua_State with the
// bounded string functions and 5.1's own side by side, and a charge that
// records the work and stops a script over its budget.
#pragma once

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "sim/kv/lua_string_match.h"

namespace lockstep::kv::testing {

// What the bounded functions charged, and where the test stops them.
struct PatternWorkMeter {
  int64_t work = 0;
  int64_t calls = 0;
  int64_t largest = 0;  // the largest single charge
  int64_t budget = INT64_MAX;
};
inline PatternWorkMeter g_pattern_meter;

inline void ChargePatternMeter(lua_State* L, int64_t work) {
  g_pattern_meter.work += work;
  g_pattern_meter.calls++;
  if (work > g_pattern_meter.largest) g_pattern_meter.largest = work;
  if (g_pattern_meter.work > g_pattern_meter.budget) luaL_error(L, "work budget exceeded");
}

inline void ResetPatternMeter(int64_t budget) { g_pattern_meter = {0, 0, 0, budget}; }

// Render(t) renders the values t[1..t.n] for comparison: strings quoted
// byte for byte, numbers to 17 digits.
inline constexpr const char* kRenderLua = R"lua(
function Render(r)
  local out = {}
  for i = 1, r.n do
    local v, t = r[i], type(r[i])
    if t == 'string' then out[i] = string.format('%q', v)
    elseif t == 'number' then out[i] = string.format('%.17g', v)
    elseif t == 'boolean' or t == 'nil' then out[i] = tostring(v)
    else out[i] = t end
  end
  return '(' .. table.concat(out, ', ') .. ')'
end
)lua";

// A lua_State with the bounded functions installed and 5.1's own kept in the
// global table lua51.
class PatternLua {
 public:
  PatternLua() : L(luaL_newstate()) {
    ResetPatternMeter(INT64_MAX);
    luaL_openlibs(L);
    lua_getglobal(L, "string");
    lua_newtable(L);
    for (const char* name : {"find", "match", "gmatch", "gsub", "gfind"}) {
      lua_getfield(L, -2, name);
      lua_setfield(L, -2, name);
    }
    lua_setglobal(L, "lua51");
    InstallBoundedStringMatch(L, -1, ChargePatternMeter);
    lua_pop(L, 1);
    REQUIRE(luaL_dostring(L, kRenderLua) == 0);
  }
  ~PatternLua() { lua_close(L); }
  PatternLua(const PatternLua&) = delete;
  PatternLua& operator=(const PatternLua&) = delete;

  // Runs chunk with `S` as its first argument (string or lua51) and renders
  // what it returns, or "error: <message>".
  std::string Run(const std::string& chunk, const char* name = "=chunk", const char* impl = "") {
    const std::string body = "local S = ... " + chunk;
    if (luaL_loadbuffer(L, body.data(), body.size(), name) != 0) return Error();
    lua_getglobal(L, impl[0] != '\0' ? impl : "string");
    const int base = lua_gettop(L) - 2;
    if (lua_pcall(L, 1, LUA_MULTRET, 0) != 0) return Error();
    const int n = lua_gettop(L) - base;
    if (n == 0) return "";
    lua_getglobal(L, "Render");
    lua_createtable(L, n, 1);
    for (int i = 1; i <= n; i++) {
      lua_pushvalue(L, base + i);
      lua_rawseti(L, -2, i);
    }
    lua_pushinteger(L, n);
    lua_setfield(L, -2, "n");
    lua_call(L, 1, 1);
    std::string out = lua_tostring(L, -1);
    lua_settop(L, base);
    return out;
  }

  lua_State* const L;

 private:
  std::string Error() {
    std::string out = std::string("error: ") + lua_tostring(L, -1);
    lua_pop(L, 1);
    return out;
  }
};

}  // namespace lockstep::kv::testing
