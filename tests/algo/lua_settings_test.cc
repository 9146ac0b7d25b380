// Lua authoring: lock.settings refuses a name the scenario does not give
// (a typo is an error naming it, not arithmetic on nil later), lock.setting
// reads an optional one, and comparing a reply with the bare status "OK"
// (always false: a status is {ok = "OK"}) is a warning when the scenario
// loads.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/scenario/builder.h"
#include "tests/test_util.h"

namespace lockstep::lua_settings_test {

using explore::Verdict;
using run::ExploreResult;
using scenario::ClientSpec;
using scenario::LuaSpec;
using scenario::Scenario;
using scenario::ScenarioBuilder;
ExploreResult Explore(const ScenarioBuilder& b) { return run::Explore(b.Build()); }
ExploreResult Explore(const Scenario& s) { return run::Explore(s); }
ExploreResult Explore(const std::string& file) {
  return run::Explore(scenario::LoadScenarioFile(file));
}

ScenarioBuilder OneLuaClient(const std::string& source, nlohmann::json settings = {}) {
  return ScenarioBuilder()
      .Client({.name = "C1",
               .lua = LuaSpec{.source = source, .settings = std::move(settings)},
               .may_never_enter = true})
      .Key("k")
      .Horizon(2);
}

TEST_CASE("reading a setting the scenario does not give is an error naming it and the line",
          "[lua][settings]") {
  testing::TempDir tmp;
  // Before the first step and after it, and under pcall: a rule broken.
  for (const std::string source :
       {"local s = lock.settings\nlocal n = s.wrok + 1\n",
        "local s = lock.settings\nredis.call('GET', s.key)\nlocal n = s.wrok + 1\n",
        "local s = lock.settings\nredis.call('GET', s.key)\npcall(function() return s.wrok "
        "end)\n"}) {
    INFO(source);
    const std::string file = tmp.Write("typo.json", OneLuaClient(source).Document().dump());
    const testing::ProcessResult r =
        testing::RunLockstep({"explore", file, "--out", tmp.File("o")});
    CHECK(r.exit_code == 2);
    CHECK(testing::Has(r.err, "lua_inline:"));
    CHECK(testing::Has(r.err, ": lock.settings.wrok: no such setting (the scenario gives "));
    CHECK(testing::Has(r.err, "key"));
    CHECK(testing::Has(r.err, "lock.setting(\"wrok\", default)"));
    CHECK_FALSE(testing::Has(r.err, "arithmetic"));
  }
  const std::string file =
      tmp.Write("line.json", OneLuaClient("\n\nlocal n = lock.settings.wrok\n").Document().dump());
  const testing::ProcessResult r = testing::RunLockstep({"run", file, "--seed", "1"});
  CHECK(r.exit_code == 2);
  CHECK(testing::Has(r.err, "lua_inline:3: lock.settings.wrok: no such setting"));
}

TEST_CASE("lock.setting reads an optional setting, and a setting given as null reads nil",
          "[lua][settings]") {
  const std::string source =
      "assert(lock.setting('jobs', 2) == 2)\n"
      "assert(lock.settings.given == 3 and lock.setting('given', 9) == 3)\n"
      "assert(lock.settings.empty == nil and lock.setting('empty', 4) == 4)\n"
      "assert(lock.settings.ttl ~= nil)\n"
      "redis.call('GET', lock.settings.key)\n";
  const ExploreResult r =
      Explore(OneLuaClient(source, {{"given", 3}, {"empty", nullptr}}).Expect("safe"));
  CHECK(r.search.verdict == Verdict::kSafe);
  // The examples that read optional settings so still run.
  for (const char* example : {"watchdog-pexpire-stall.json", "watchdog-script-stall.json"}) {
    const Scenario s =
        scenario::LoadScenarioFile(testing::SourceDir() + "/examples/lua/" + example);
    CHECK_NOTHROW(run::RunSeeded(s, 1, 40));
  }
}

TEST_CASE("comparing a reply with the bare status \"OK\" warns at load, at its line",
          "[lua][settings]") {
  struct Case {
    const char* source;
    int warned_line;  // 0: no warning
  };
  const Case cases[] = {
      {"local r = redis.pcall('SET', 'k', 1, 'NX')\nif r == \"OK\" then end\n", 2},
      {"if 'OK' == redis.call('SET', 'k', 1) then end\n", 1},
      {"local r = 1\n\nwhile r ~= [[OK]] do r = 2 end\n", 3},
      // Right: the status's field, and text that only looks like it.
      {"local r = redis.pcall('SET', 'k', 1)\nif r.ok == \"OK\" then end\n", 0},
      {"local r = {}\nif \"OK\" == r.ok then end\n", 0},
      {"local r = {}\nif r[\"ok\"] == 'OK' then end\n", 0},
      {"-- if r == \"OK\" then\n--[[ r == \"OK\" ]]\nlocal t = 'r == \"OK\"'\n", 0},
      {"local r = 'OK'\n", 0},
  };
  for (const Case& c : cases) {
    INFO(c.source);
    const Scenario s = OneLuaClient(c.source).Build();
    if (c.warned_line == 0) {
      CHECK(s.warnings.empty());
      continue;
    }
    REQUIRE(s.warnings.size() == 1);
    CHECK(s.warnings[0] ==
          "at /clients/0/algorithm/lua_inline: ScenarioBuilder#/clients/0/"
          "algorithm/lua_inline:" +
              std::to_string(c.warned_line) +
              ": compares a reply with the string \"OK\", but a status reply is "
              "the table {ok = \"OK\"}, so the comparison is always false for "
              "one; test reply.ok (type(reply) == \"table\" and reply.ok)");
  }
  // On the command line: a warning on stderr, the search run as usual.
  testing::TempDir tmp;
  const std::string file = tmp.Write(
      "status.json",
      OneLuaClient("local r = redis.pcall('SET', 'k', 1)\nif r == 'OK' then lock.enter(9) end\n")
          .Document()
          .dump());
  const testing::ProcessResult r = testing::RunLockstep({"explore", file, "--out", tmp.File("o")});
  CHECK(r.exit_code == 0);
  CHECK(
      testing::Has(r.err, "lockstep: " + file + ": warning: at /clients/0/algorithm/lua_inline: "));
  CHECK(testing::Has(r.err, "lua_inline:2: compares a reply with the string \"OK\""));
}

// Text: Release only.
TEST_CASE("the Lua reference says what a status reply is and how to read a setting",
          "[lua][settings][sweep]") {
  const testing::ProcessResult r = testing::RunLockstep({"list", "--fields"});
  CHECK(testing::Has(r.out, "status -> {ok = text}"));
  CHECK(testing::Has(r.out, "SET's OK is {ok = \"OK\"}, so `if r == \"OK\"` is"));
  CHECK(testing::Has(r.out, "lock.setting(name, default)"));
  CHECK(testing::Has(r.out, "(a typo: settings.wrok) is an error naming it"));
}

}  // namespace lockstep::lua_settings_test
