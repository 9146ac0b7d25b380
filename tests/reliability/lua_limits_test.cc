// A Lua algorithm (or a script it sends with EVAL) is someone else's code:
// however deep it recurses through C, however its patterns backtrack, it
// ends as a Lua error naming its file and line (exit 2), never as a signal,
// a hang or corrupted memory; and nothing it does shows an address, so a
// run is the same in every process.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;

using testing::Has;

// A one-client scenario running `body` as its Lua algorithm.
json LuaScenario(const std::string& name, const std::string& body) {
  return {{"name", name},
          {"clients", {{{"name", "C1"}, {"algorithm", {{"lua_inline", body}}}}}},
          {"lock", {{"key", "lock.foo"}}},
          {"clock", {{"horizon", 2}}},
          {"expect", "safe"}};
}

// Each recursion that nests C calls until Lua's own limit (200): with a
// 64 KiB fiber stack the first of them overflowed the stack into the heap.
const std::pair<const char*, const char*> kDeepRecursions[] = {
    {"gsub",
     "local function f(s) return (string.gsub(s, '.', function(c) return f(c) end)) end "
     "f('ab')"},
    {"gsub with a table",
     "local mt = {} mt.__index = function(t, k) return (string.gsub('ab', '.', "
     "setmetatable({}, mt))) end local _ = string.gsub('ab', '.', setmetatable({}, mt))"},
    {"sort",
     "local function g(n) local t = {3, 1, 2} table.sort(t, function(a, b) g(n + 1) "
     "return a < b end) end g(1)"},
    {"__tostring",
     "local mt = {} mt.__tostring = function(o) return tostring(setmetatable({}, "
     "mt)) end local _ = tostring(setmetatable({}, mt))"},
    {"__index",
     "local t = setmetatable({}, {__index = function(t, k) return t[k + 1] end}) "
     "local _ = t[1]"},
    {"pcall",
     "local function p(n) local ok, e = pcall(p, n + 1) if not ok then error(e, 0) end "
     "end p(1)"},
    {"__concat",
     "local mt = {} mt.__concat = function(a, b) return setmetatable({}, mt) .. 'x' "
     "end local _ = setmetatable({}, mt) .. 'x'"},
    {"__lt",
     "local mt = {} mt.__lt = function(a, b) return setmetatable({}, mt) < "
     "setmetatable({}, mt) end local _ = setmetatable({}, mt) < setmetatable({}, mt)"},
};

TEST_CASE(
    "a Lua algorithm that recurses through C ends as a Lua error with its line, never a "
    "signal",
    "[lua][reliability]") {
  testing::TempDir tmp;
  for (const auto& [kind, body] : kDeepRecursions) {
    INFO(kind);
    const std::string file =
        tmp.Write("deep.json", LuaScenario("deep", std::string(body) + "\n").dump());
    const std::vector<std::vector<std::string>> commands = {
        {"run", file, "--seed", "1"},
        {"explore", file, "--out", tmp.File("out")},
        {"explore", file, "--jobs", "2", "--out", tmp.File("out")}};
    for (const auto& command : commands) {
      INFO(command[0] << " " << command.back());
      auto r = RunLockstep(command);
      INFO(r.out << r.err);
      // Before the client's first step: an error in the scenario's code.
      CHECK(r.exit_code == 2);
      CHECK(Has(r.err, file + ": the algorithm of C1 threw: lua_inline:1: C stack overflow"));
    }
  }
}

TEST_CASE("a pattern that backtracks for ever is stopped by the instruction count",
          "[lua][reliability]") {
  testing::TempDir tmp;
  const std::string pattern = "string.find(string.rep('a', 3000), string.rep('a-', 12) .. 'b')";
  // In the algorithm: the run ends with the line.
  const std::string algorithm =
      tmp.Write("find.json", LuaScenario("find", "local _ = " + pattern + "\n").dump());
  auto r = RunLockstep({"run", algorithm, "--seed", "1"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "lua_inline:1: more than 10000000 Lua instructions without a step (pattern "
            "matching counts its steps as instructions)"));
  // A plain find of a long needle in a long text is bounded too.
  const std::string plain =
      tmp.Write("plain.json", LuaScenario("plain",
                                          "local _ = string.find(string.rep('a', 1000000), "
                                          "string.rep('a', 500000) .. 'b', 1, true)\n")
                                  .dump());
  r = RunLockstep({"run", plain, "--seed", "1"});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "pattern matching counts its steps as instructions"));
  // In a script the model runs: the script's reply is the instruction
  // limit's error, and the run goes on.
  const std::string script = tmp.Write(
      "eval.json", LuaScenario("eval", "local r = redis.pcall('EVAL', \"return " + pattern +
                                           "\", '0')\nredis.call('SET', 'after', 'yes')\n")
                       .dump());
  r = RunLockstep({"run", script, "--seed", "1", "--compact"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "ERR Script ran more than 10000000 Lua instructions and was stopped"));
  CHECK(Has(r.out, "C1 SET after yes -> OK"));
}

TEST_CASE("tables and functions have the same names in every process", "[lua][reliability]") {
  testing::TempDir tmp;
  const std::string file =
      tmp.Write("names.json",
                LuaScenario("names",
                            "local t = {}\nredis.call('SET', 'k', tostring(t) .. tostring(print "
                            "or redis.call) .. tostring(t))\nredis.pcall('EVAL', 'return "
                            "tostring({}) .. tostring(next)', '0')\n")
                    .dump());
  std::string first;
  for (int i = 0; i < 2; ++i) {
    const std::string trace = tmp.File("trace" + std::to_string(i) + ".json");
    auto r = RunLockstep({"run", file, "--seed", "1", "--trace-out", trace});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string text = testing::ReadText(trace);
    CHECK(Has(text, "table: 0x00000001function: 0x00000002table: 0x00000001"));
    CHECK(Has(text, "table: 0x00000001function: 0x00000002\""));
    if (i == 0) first = text;
    CHECK(text == first);
    // A saved trace is one its scenario gives again.
    CHECK(RunLockstep({"replay", trace}).exit_code == 0);
  }
}

TEST_CASE("iterating a table keyed by tables is refused: its order is the addresses'",
          "[lua][reliability]") {
  testing::TempDir tmp;
  const std::string file =
      tmp.Write("pairs.json", LuaScenario("pairs",
                                          "local t = {[{}] = 1, a = 2}\nfor k, v in pairs(t) do "
                                          "redis.call('SET', 'k', v) end\n")
                                  .dump());
  auto r = RunLockstep({"run", file, "--seed", "1"});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "lua_inline:2: iterating a table keyed by a table: its order would depend on "
            "memory addresses"));
  // The same in a script: an error reply, the same in every process.
  const std::string script =
      tmp.Write("eval.json", LuaScenario("eval",
                                         "redis.pcall('EVAL', 'local t = {[{}] = 1} for k in "
                                         "pairs(t) do end return 1', '0')\n")
                                 .dump());
  r = RunLockstep({"run", script, "--seed", "1", "--compact"});
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "iterating a table keyed by a table"));
}

TEST_CASE("bytes that are not UTF-8 travel in a trace and replay as they were",
          "[lua][reliability]") {
  testing::TempDir tmp;
  // A key, a value and a script reply of bytes JSON text cannot hold.
  const std::string file = tmp.Write(
      "bytes.json", LuaScenario("bytes",
                                "redis.call('SET', 'k\\143\\255', 'v\\200')\nredis.call('GET', "
                                "'k\\143\\255')\nredis.call('EVAL', 'return string.char(255, 0, "
                                "200)', '0')\n")
                        .dump());
  const std::string trace = tmp.File("trace.json");
  auto r = RunLockstep({"run", file, "--seed", "1", "--trace-out", trace});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json saved = json::parse(testing::ReadText(trace));
  const json& last = saved["steps"].back();
  CHECK(last["keyspace"][0]["key"] == json{{"base64", "a4//"}});
  CHECK(last["keyspace"][0]["value"] == json{{"base64", "dsg="}});
  CHECK(last["reply"]["value"] == json{{"base64", "/wDI"}});
  CHECK(Has(r.out, "k\\x8f\\xff=\"v\\xc8\""));
  // It replays byte for byte; an edited base64 that is UTF-8 is refused,
  // since each string has one form.
  CHECK(RunLockstep({"replay", trace}).exit_code == 0);
  json edited = saved;
  edited["steps"].back()["reply"]["value"] = {{"base64", "YWJj"}};  // "abc"
  auto refused = RunLockstep({"replay", tmp.Write("edited.json", edited.dump(2))});
  CHECK(refused.exit_code == 2);
  CHECK(Has(refused.err, "/reply/value/base64: expected the base64 of bytes that are not UTF-8"));
}

TEST_CASE("a Lua error names the whole file and line, whatever it raised", "[lua][reliability]") {
  testing::TempDir tmp;
  // A folder name long enough that Lua would cut the chunk's name.
  const std::string folder = std::string(80, 'd');
  std::filesystem::create_directories(tmp.path() / folder);
  for (const auto& [raised, says] : std::vector<std::pair<std::string, std::string>>{
           {"error({})", "a Lua error whose value is a table"},
           {"error(nil)", "a Lua error whose value is nil"},
           {"error(true)", "a Lua error whose value is a boolean"},
           {"error(42)", "42"}}) {
    INFO(raised);
    const std::string file = (tmp.path() / folder / "e.json").string();
    tmp.Write(folder + "/e.json",
              LuaScenario("e", "redis.call('GET', 'x')\n" + raised + "\n").dump());
    // After a step, an error is a finding about the algorithm: a violation
    // of client_error, whose trace names the script as its steps do.
    auto r = RunLockstep({"run", file, "--seed", "1"});
    CHECK(r.exit_code == 1);
    CHECK(Has(r.out, "VIOLATION of client_error at step "));
    CHECK(Has(r.out, ": C1's algorithm threw: lua_inline:2: " + says));
  }
  // A rule broken is an error about the scenario: its message names the
  // whole file.
  const std::string file = (tmp.path() / folder / "r.json").string();
  tmp.Write(folder + "/r.json",
            LuaScenario("r", "redis.call('GET', 'x')\nlock.sleep(-1)\n").dump());
  auto r = RunLockstep({"run", file, "--seed", "1"});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, file + "#/clients/0/algorithm/lua_inline:2: lock.sleep: expected ticks >= 0"));
}

}  // namespace
}  // namespace lockstep
