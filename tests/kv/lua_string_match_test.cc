// string.find, match, gmatch and gsub bounded (sim/kv/lua_string_match.h):
// Lua 5.1.5's answers on the manual's examples, work charged so that a
// runaway pattern stops, a bounded depth, and little C stack.
#include <pthread.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <catch2/catch.hpp>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "tests/kv/lua_string_match_test_util.h"

namespace lockstep::kv {
namespace {

using testing::g_pattern_meter;
using testing::PatternLua;
using testing::ResetPatternMeter;

// Runs chunk through both implementations, which must agree; returns the answer.
std::string BothAgree(PatternLua& lua, const std::string& chunk) {
  ResetPatternMeter(INT64_MAX);
  const std::string bounded = lua.Run(chunk, "=chunk", "string");
  const std::string original = lua.Run(chunk, "=chunk", "lua51");
  CHECK(bounded == original);
  return bounded;
}

TEST_CASE("Bounded string matching gives the manual's answers", "[kv][lua]") {
  PatternLua lua;
  const struct {
    const char* chunk;
    const char* expected;
  } cases[] = {
      {"return S.find('hello Lua user', 'Lua')", "(7, 9)"},
      {"return S.find('hello Lua user', 'l+')", "(3, 4)"},
      {"return S.find('a.b', '.', 1, true)", "(2, 2)"},
      {"return S.match('flaaap', '()aa()')", "(3, 5)"},
      {"return S.match(' key = value ', '(%w+)%s*=%s*(%w+)')", "(\"key\", \"value\")"},
      {"return S.gsub('hello world', '(%w+)', '%1 %1')", "(\"hello hello world world\", 2)"},
      {"return S.gsub('hello world', '%w+', '%0 %0', 1)", "(\"hello hello world\", 1)"},
      {"return S.gsub('hello world from Lua', '(%w+)%s*(%w+)', '%2 %1')",
       "(\"world hello Lua from\", 2)"},
      {"return S.gsub('$name-$version.tar.gz', '%$(%w+)', {name = 'lua', version = '5.1'})",
       "(\"lua-5.1.tar.gz\", 2)"},
      {"return S.gsub('4+5 = $return 4+5$', '%$(.-)%$', function(s) return loadstring(s)() end)",
       "(\"4+5 = 9\", 1)"},
      {"local t = {} for k, v in S.gmatch('from=world, to=Lua', '(%w+)=(%w+)') do"
       " t[#t + 1] = k .. ':' .. v end return table.concat(t, ' ')",
       "(\"from:world to:Lua\")"},
      {"return S.gsub('THE (quick) fox', '%f[%a]%a+', 'X')", "(\"X (X) X\", 3)"},
      {"return S.find('x = f(a(b)c) + 1', '%b()')", "(6, 12)"},
      {"return S.match('  trim me  ', '^%s*(.-)%s*$')", "(\"trim me\")"},
      {"local s, n = S.gsub(string.rep('ab', 50000), 'b', '%0yz') return #s, n, s:sub(-8)",
       "(200000, 50000, \"abyzabyz\")"},
      // 5.1's own ways, unlike later versions.
      {"return S.gsub('abc', '%w*', '-')", "(\"--\", 2)"},
      {"local t = {} for w in S.gmatch('abc', 'a*') do t[#t + 1] = '[' .. w .. ']' end"
       " return table.concat(t)",
       "(\"[a][][][]\")"},
      {"local t = {} for w in S.gmatch('^a^a', '^a') do t[#t + 1] = w end return #t", "(2)"},
      {"return S.find('abc', '', 10)", "(4, 3)"},
      {"return S.gsub('abc', 'b', '%')", "(\"a\\000c\", 1)"},
      {"return S.find('a\\0.', 'a\\0.')", "(1, 3)"},
      {"return S.match('ab', 'a\\0.')", "(\"a\")"},
      {"return S.match('aaa', '()a%1')", "(nil)"},
      {"return pcall(S.find, 'a', '%ba')", "(false, \"unbalanced pattern\")"},
      {"return pcall(S.gsub, 'x', 'x', nil, 'bad')",
       "(false, \"bad argument #4 to '?' (number expected, got string)\")"},
      {"local t = setmetatable({}, {__index = S}) return pcall(function() return t:find('x') end)",
       "(false, \"chunk:1: calling 'find' on bad self (string expected, got table)\")"},
  };
  for (const auto& c : cases) {
    INFO(c.chunk);
    CHECK(BothAgree(lua, c.chunk) == c.expected);
  }
  CHECK(lua.Run("return string.gfind == string.gmatch, lua51.gfind == lua51.gmatch") ==
        "(true, true)");
}

TEST_CASE("Every bounded call charges its work, at least every 1024 steps", "[kv][lua]") {
  PatternLua lua;
  ResetPatternMeter(INT64_MAX);
  CHECK(lua.Run("return S.find('a', 'a')") == "(1, 1)");
  CHECK(g_pattern_meter.calls == 1);
  CHECK(g_pattern_meter.work >= 1);
  // In a coroutine too.
  ResetPatternMeter(INT64_MAX);
  CHECK(lua.Run("return coroutine.wrap(function() return S.match('ab', '.$') end)()") == "(\"b\")");
  CHECK(g_pattern_meter.calls == 1);
  // A plain find that fails at the last byte of each try compares every byte.
  ResetPatternMeter(INT64_MAX);
  CHECK(lua.Run("return S.find(string.rep('a', 3000), string.rep('a', 100) .. 'b', 1, true)") ==
        "(nil)");
  // 2900 places to try, 101 bytes compared at each, and the call.
  CHECK(g_pattern_meter.work == 2900 * 101 + 1);
  CHECK(g_pattern_meter.largest < 2 * 1024);
}

TEST_CASE("An exponential pattern is stopped by its charge", "[kv][lua]") {
  PatternLua lua;
  constexpr int64_t kBudget = 5'000'000;
  ResetPatternMeter(kBudget);
  CHECK(lua.Run("return pcall(S.find, string.rep('a', 3000), string.rep('a-', 12) .. 'b')") ==
        "(false, \"work budget exceeded\")");
  CHECK(g_pattern_meter.work > kBudget);
  CHECK(g_pattern_meter.work < kBudget + 2 * 1024);
  CHECK(g_pattern_meter.largest < 2 * 1024);
}

TEST_CASE("A quadratic plain find is stopped by its charge", "[kv][lua]") {
  PatternLua lua;
  constexpr int64_t kBudget = 10'000'000;
  for (const char* plain : {"true", "nil"}) {  // nil: the pattern has no specials
    ResetPatternMeter(kBudget);
    CHECK(lua.Run(std::string("return pcall(S.find, string.rep('a', 1000000), ") +
                  "string.rep('a', 100000) .. 'b', 1, " + plain + ")") ==
          "(false, \"work budget exceeded\")");
    CHECK(g_pattern_meter.work > kBudget);
    CHECK(g_pattern_meter.work < kBudget + 2 * 1024);
  }
}

TEST_CASE("A match nesting deeper than 200 calls is too complex", "[kv][lua]") {
  PatternLua lua;
  // Each "a?" that matches nests one call, after the first.
  CHECK(lua.Run("return S.find(string.rep('a', 199), string.rep('a?', 199))") == "(1, 199)");
  CHECK(lua.Run("return pcall(S.find, string.rep('a', 200), string.rep('a?', 200))") ==
        "(false, \"pattern too complex\")");
  // A capture nests a call where it opens and another where it closes.
  CHECK(lua.Run("return S.find(string.rep('a', 197), '(a?)' .. string.rep('a?', 196))") ==
        "(1, 197, \"a\")");
  CHECK(lua.Run("return pcall(S.find, string.rep('a', 198), '(a?)' .. string.rep('a?', 197))") ==
        "(false, \"pattern too complex\")");
  // 5.1 itself has no bound (it recurses until the C stack runs out).
  CHECK(lua.Run("return S.find(string.rep('a', 200), string.rep('a?', 200))", "=chunk", "lua51") ==
        "(1, 200)");
}

// Nests gsub callbacks `depth` deep, at the top level of a chunk.
std::string NestedGsub(int depth) {
  return "local function nest(d) if d == 0 then return 'x' end"
         " return (string.gsub('a', 'a', function() return nest(d - 1) end)) end"
         " return nest(" +
         std::to_string(depth) + ")";
}

TEST_CASE("gsub callbacks nest 150 deep", "[kv][lua]") {
  PatternLua lua;
  CHECK(lua.Run(NestedGsub(150)) == "(\"x\")");
}

// Runs chunk on a thread whose stack is painted first; returns how many
// bytes of it were used.
size_t StackUsed(PatternLua& lua, const std::string& chunk) {
  constexpr size_t kSize = 4 << 20;
  constexpr unsigned char kPaint = 0xA5;
  lua_State* L = lua.L;
  // Once before, so that the dynamic linker's first binding of a function
  // (which saves the vector registers) is not measured.
  REQUIRE(luaL_loadbuffer(L, chunk.data(), chunk.size(), "=measured") == 0);
  REQUIRE(lua_pcall(L, 0, 0, 0) == 0);
  REQUIRE(luaL_loadbuffer(L, chunk.data(), chunk.size(), "=measured") == 0);
  struct Job {
    lua_State* L;
    int status;
  } job{L, 0};
  void* stack = std::aligned_alloc(4096, kSize);
  std::memset(stack, kPaint, kSize);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack, kSize);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    j->status = lua_pcall(j->L, 0, 0, 0);
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, run, &job) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  const auto* bytes = static_cast<const unsigned char*>(stack);
  size_t untouched = 0;
  while (untouched < kSize && bytes[untouched] == kPaint) untouched++;
  std::free(stack);
  INFO(chunk << ": " << (job.status == 0 ? "" : lua_tostring(L, -1)));
  CHECK(job.status == 0);
  lua_settop(L, 0);
  return kSize - untouched;
}

TEST_CASE("Bounded string matching keeps little on the C stack", "[kv][lua]") {
  PatternLua lua;
  // No collection steps in the measured calls; the subjects are made beforehand.
  lua.Run(
      "collectgarbage('stop')"
      " s10, p10 = string.rep('a', 10), string.rep('a?', 10)"
      " s190, p190 = string.rep('a', 190), string.rep('a?', 190)");
  lua_pushcfunction(lua.L, [](lua_State*) { return 0; });
  lua_setglobal(lua.L, "cnoop");
  const size_t per_nesting =
      (StackUsed(lua, NestedGsub(150)) - StackUsed(lua, NestedGsub(50))) / 100;
  const size_t per_depth =
      (StackUsed(lua, "string.find(s190, p190)") - StackUsed(lua, "string.find(s10, p10)")) / 180;
  INFO("per gsub callback nesting: " << per_nesting << " bytes; per match depth: " << per_depth);
  // One call of each, beyond what a C function that does nothing uses.
  const size_t base = StackUsed(lua, "cnoop('abc', 'b')");
  for (const char* call :
       {"string.find('abc', 'b')", "string.match('abc', '(b)')", "string.gmatch('abc', 'b')()",
        "string.gsub('abc', '(b)', '%1')", "string.gsub('abc', 'b', cnoop)"}) {
    const size_t used = StackUsed(lua, call) - base;
    INFO(call << " uses " << used << " bytes");
#if !defined(__SANITIZE_ADDRESS__)
    CHECK(used < 1024);
#endif
  }
#if !defined(__SANITIZE_ADDRESS__)
  CHECK(per_nesting < 1024);  // Lua's own frames included
  CHECK(per_depth < 128);
#endif
}

}  // namespace
}  // namespace lockstep::kv
