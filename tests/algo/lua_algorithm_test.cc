// Algorithms written in Lua inside a scenario: the shipped ports behave as
// the built-ins they port (same verdicts and shrunk counterexamples, and
// with a horizon the same states and transitions, through the command
// line), bad Lua is a clear error with
// exit code 2, and a saved counterexample replays without the Lua file.
#include <filesystem>
#include <set>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "sim/world/model.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

json ExploreJson(const std::string& file, const std::string& out) {
  testing::ProcessResult r = testing::RunLockstep({"explore", file, "--json", "--out", out});
  INFO(file << "\n" << r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  return json::parse(r.out);
}

constexpr uint64_t kMaxStates = 20000;

// Explores `original` with its built-ins, and `doc` with their ports in
// their place; false if none has a port or the space is too large.
bool ComparePorts(const testing::TempDir& tmp, const std::string& name, const json& original,
                  json doc) {
  if (!soundness::SwapForLuaPorts(doc)) return false;
  INFO(name);
  const std::string file = tmp.Write(name + "-built-in.json", original.dump(2));
  // The large spaces are left to the bench: a Lua client costs more per
  // step. A search that stops at the budget tells one apart without
  // enumerating it (getset-delay-2 has 649,836 states), by the strategy
  // the command line picks.
  const scenario::Scenario s = scenario::LoadScenarioFile(file);
  run::ExploreOptions bounded;
  bounded.strategy = s.world.horizon ? "dfs" : "bfs";
  bounded.shrink = false;
  bounded.request.search.bounds.max_states = kMaxStates;
  const explore::SearchResult cut = run::Explore(s, bounded).search;
  if (cut.incomplete == explore::StateBudgetText(kMaxStates)) return false;
  json built_in = ExploreJson(file, tmp.File("built-in"));
  CHECK(built_in["states"] == cut.stats.states);  // the space the budget was asked of
  json lua = ExploreJson(tmp.Write(name + ".json", doc.dump(2)), tmp.File("lua"));
  CHECK(lua["verdict"] == built_in["verdict"]);
  CHECK(lua["vacuous"] == built_in["vacuous"]);
  if (doc["clock"]["horizon"].is_null()) {
    // For all time, times are told apart up to a window built from every
    // constant a client may offset them by: every integer of a Lua
    // client's lock.settings, but only the settings a built-in declares.
    // The finer window keeps at least as many states.
    CHECK(lua["states"] >= built_in["states"]);
  } else {
    CHECK(lua["states"] == built_in["states"]);
    CHECK(lua["transitions"] == built_in["transitions"]);
  }
  if (built_in.contains("counterexample")) {
    REQUIRE(lua.contains("counterexample"));
    CHECK(lua["counterexample"]["schedule"] == built_in["counterexample"]["schedule"]);
  }
  return true;
}

TEST_CASE("the Lua ports give the built-ins' verdicts, states and shrunk counterexamples",
          "[sweep]") {
  testing::TempDir tmp;
  int compared = 0;
  int all_time = 0;
  int lost = 0;
  for (const std::string& path : testing::AllScenarioPaths()) {
    const json doc = json::parse(testing::ReadText(path));
    const std::string name = std::filesystem::path(path).stem().string();
    if (!ComparePorts(tmp, name, doc, doc)) continue;
    ++compared;
    all_time += doc["clock"]["horizon"].is_null();
    // A lost request or reply is an error reply: the ports handle it as
    // the built-ins do, and the search goes on.
    if (doc.contains("faults") && doc["faults"].contains("lose")) continue;
    json lose = doc;
    lose["faults"]["lose"] = 1;
    lose["expect"] = "safe";  // the verdict compared is the built-in's
    lost += ComparePorts(tmp, name + "-lose", lose, lose);
  }
  CHECK(compared >= 14);
  CHECK(all_time >= 2);
  CHECK(lost >= 10);
}

// A scenario: the documented race, C1 and C2 running `source`.
std::string WriteRace(const testing::TempDir& dir, const std::string& name,
                      const std::string& source) {
  dir.Write(name + ".lua", source);
  json doc = json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
  for (json& c : doc["clients"]) {
    if (c.contains("algorithm")) c["algorithm"] = {{"lua", name + ".lua"}};
  }
  doc.erase("schedule");
  return dir.Write(name + ".json", doc.dump(2));
}

TEST_CASE("bad Lua and rules broken are errors naming the file and the line, with exit code 2") {
  testing::TempDir tmp;
  struct Case {
    const char* name;
    const char* source;
    const char* message;
  };
  const Case cases[] = {
      {"syntax", "local x = = 1\n", "at /clients/0/algorithm/lua: expected a Lua algorithm; "},
      // A runtime error before the first step: after it, an error is a
      // finding (tests/check/client_error_test.cc).
      {"runtime", "local t = nil\nt.x = 1\n", "threw: "},
      {"endless", "redis.call('GET', 'k')\nwhile true do end\n", "without a step"},
      {"endless-under-pcall", "pcall(function() while true do end end)\n", "without a step"},
      {"os", "os.exit(1)\n", "attempt to index global 'os'"},
      {"io", "io.write('x')\n", "attempt to index global 'io'"},
      {"require", "require('os')\n", "attempt to call global 'require'"},
      {"load", "loadstring('return 1')\n", "attempt to call global 'loadstring'"},
      {"random", "math.random()\n", "attempt to call field 'random'"},
      {"bad-argument", "redis.call('GET', {})\n",
       "redis.call: argument 2 is a table; expected a string, a number or lock.clock_plus(n)"},
      {"numbers-undeclared", "lock.random()\n", "\"draws_numbers\": true"},
      {"sleep-backwards", "redis.call('GET', 'k')\nlock.sleep(3, 1)\n",
       "lock.sleep: expected most >= least"},
      // Misuse of the critical-section calls, which no pcall hides: the
      // trace would show nobody inside, or a client leaving where it was not.
      {"enter-first", "lock.enter(5)\nredis.call('GET', 'k')\n",
       "enter-first.lua:1: enters the critical section before its first step"},
      {"enter-twice", "redis.call('GET', 'k')\nlock.enter(5)\nlock.enter(5)\n",
       "enter-twice.lua:3: enters the critical section again without leaving it"},
      {"leave-outside", "redis.call('GET', 'k')\npcall(lock.leave)\n",
       "leave-outside.lua:2: leaves the critical section without having entered it"},
      {"renew-unheld", "redis.call('GET', 'k')\nlock.renew(5)\n",
       "renew-unheld.lua:2: renews a lock it does not hold"},
      {"renew-forgotten",
       "if redis.call('SETNX', 'k', 1) == 0 then return end\nlock.enter(5)\nlock.leave()\n"
       "lock.forget()\nlock.renew(5)\n",
       "renew-forgotten.lua:5: renews a lock it does not hold"},
      // Its command sent no time: 0 would have been a time no one sent.
      {"stamp-unsent", "redis.call('GET', 'k')\nlocal t = lock.sent_timestamp()\n",
       "stamp-unsent.lua:2: asks for the time its last command sent"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string scenario = WriteRace(tmp, c.name, c.source);
    for (const std::string command : {"explore", "run"}) {
      testing::ProcessResult r =
          command == "run"
              ? testing::RunLockstep(
                    {"run", scenario, "--seed", "1", "--trace-out", tmp.File("t.json")})
              : testing::RunLockstep({"explore", scenario, "--out", tmp.File("t.json")});
      INFO(command << ": " << r.err);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find(c.message) != std::string::npos);
      if (std::string(c.name) != "syntax" && std::string(c.name) != "random") {
        CHECK(r.err.find(std::string(c.name) + ".lua:") != std::string::npos);  // file and line
      }
      CHECK_FALSE(std::filesystem::exists(tmp.File("t.json")));
    }
  }
}

// lock.sleep(least, most) is a back-off of any length between them: every
// reachable state, enumerated, shows the client waking at each.
TEST_CASE("lock.sleep with two bounds wakes the client at every tick between them") {
  testing::TempDir tmp;
  const scenario::Scenario sc = scenario::LoadScenarioFile(tmp.Write("s.json", R"js({"name":"nap",
    "clients":[{"name":"C1","algorithm":{"lua_inline":
      "lock.sleep(1, 3)\nredis.call('SET', 'woke', lock.now())"}}],
    "clock":{"start":0,"horizon":4},"properties":["mutual_exclusion"],"expect":"safe"})js"));
  world::Model model(sc.world, false);
  std::set<std::string> woke;
  std::vector<world::WorldState> todo{model.Initial()};
  std::vector<world::Action> enabled;
  while (!todo.empty()) {
    world::WorldState s = std::move(todo.back());
    todo.pop_back();
    if (const kv::Entry* e = s.servers[0].keyspace.Find("woke", s.now)) woke.insert(e->value);
    model.EnabledActions(s, &enabled);
    for (const world::Action& a : enabled) {
      todo.push_back(s);
      model.Apply(todo.back(), a, nullptr);
    }
  }
  CHECK(woke == std::set<std::string>{"1", "2", "3"});
}

TEST_CASE("a counterexample of a Lua algorithm replays and renders without the Lua file") {
  testing::TempDir tmp;
  const std::string scenario =
      WriteRace(tmp, "naive", testing::ReadText(soundness::LuaPortPath("setnx_naive.lua")));
  testing::ProcessResult found =
      testing::RunLockstep({"explore", scenario, "--out", tmp.File("found")});
  INFO(found.out << found.err);
  REQUIRE(found.exit_code == 1);
  const std::string saved = tmp.File("found/setnx-docs-race-mutual_exclusion-3clients.json");
  REQUIRE(std::filesystem::exists(saved));
  // Elsewhere, without naive.lua beside it.
  testing::TempDir elsewhere;
  const std::string copy = elsewhere.Write("race.json", testing::ReadText(saved));
  std::filesystem::remove(tmp.File("naive.lua"));
  testing::ProcessResult replayed = testing::RunLockstep({"replay", copy});
  INFO(replayed.out << replayed.err);
  CHECK(replayed.exit_code == 1);
  CHECK(replayed.out.find("VIOLATION of mutual_exclusion") != std::string::npos);
  CHECK(replayed.out.find("replay reproduces the trace byte for byte") != std::string::npos);
  testing::ProcessResult drawn =
      testing::RunLockstep({"render", copy, "--svg", elsewhere.File("race.svg")});
  CHECK(drawn.exit_code == 0);
  CHECK(testing::ReadText(elsewhere.File("race.svg")).find("<svg") != std::string::npos);
}

TEST_CASE("the README's Lua lock is found unsafe under a stall, and the API is listed") {
  testing::TempDir tmp;
  testing::ProcessResult r = testing::RunLockstep(
      {"explore", testing::SourceDir() + "/examples/lua/get-compare-del-stall.json", "--out",
       tmp.File("out")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("VIOLATION of foreign_release: C1 released lock.foo, but the value it removed "
                   "was C2's lock") != std::string::npos);
  CHECK(r.out.find("counterexample: 9 steps") != std::string::npos);
  testing::ProcessResult listed =
      testing::RunLockstep({"list", "--dir", testing::SourceDir() + "/examples/lua"});
  CHECK(listed.out.find("  lua:get_compare_del.lua\n      written in Lua, in ") !=
        std::string::npos);
  testing::ProcessResult fields = testing::RunLockstep({"list", "--fields"});
  for (const char* name : {"redis.call(", "redis.call_on(", "lock.clock_plus(", "lock.leave(",
                           "lock.forget_history(", "lua_inline"}) {
    CHECK(fields.out.find(name) != std::string::npos);
  }
}

}  // namespace
}  // namespace lockstep
