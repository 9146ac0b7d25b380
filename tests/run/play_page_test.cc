// The browser game's graph: every choice shown (the same states and moves
// as plain enumeration without symmetry or sleep sets), each state's
// distance to the nearest violation the breadth-first search's, and a
// scenario too large for a page refused with the reason. The page itself is
// played in Chromium by tests/browser/game_test.mjs.
#include "sim/run/play_page.h"

#include <catch2/catch.hpp>

#include "sim/explore/continuation.h"
#include "sim/explore/execution.h"
#include "sim/run/explore.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

size_t MovesOf(const nlohmann::json& graph) {
  size_t moves = 0;
  for (const auto& s : graph["states"]) moves += s["moves"].size();
  return moves;
}

TEST_CASE("the game's graph has plain enumeration's states and transitions") {
  for (const char* name :
       {"getset-docs-fix.json", "set-px-script-safe.json", "fenced-stall.json"}) {
    INFO(name);
    const scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath(name));
    const nlohmann::json graph = run::PlayGraph(s, name);
    // A scenario expected safe asks to break the fix (the violations' goals
    // are checked with their ghost facts below).
    CHECK(graph["goal"].get<std::string>().starts_with("Try to break the fix"));
    run::ExploreOptions plain;
    plain.request.search.reductions.symmetry = false;
    plain.request.search.reductions.por = false;
    const run::ExploreResult r = run::Explore(s, plain);
    REQUIRE(r.safe());
    CHECK(graph["states"].size() == r.search.stats.states);
    CHECK(MovesOf(graph) == r.search.stats.transitions);
    for (const auto& state : graph["states"]) CHECK(state["distance"].is_null());
  }
}

TEST_CASE("each state's distance to a violation is the shortest continuation's length") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json"));
  const nlohmann::json graph = run::PlayGraph(s, "race");
  const explore::Properties properties = explore::MakeProperties(s.properties);
  // From the start, and along the documented race.
  std::vector<world::Action> prefix;
  int state = 0;
  for (const world::Action& next : s.schedule) {
    const explore::Continuation c =
        explore::ShortestContinuation(s.world, properties, prefix, s.max_steps, 1'000'000);
    REQUIRE(c.outcome == explore::Continuation::Outcome::kFound);
    INFO("after " << prefix.size() << " moves");
    CHECK(graph["states"][static_cast<size_t>(state)]["distance"] ==
          static_cast<int>(c.actions.size()));
    // Follow the move the schedule takes.
    const std::string text = world::FormatAction(next, {"C1", "C2", "C3"});
    int to = -2;
    for (const auto& m : graph["states"][static_cast<size_t>(state)]["moves"]) {
      if (m["action"] == text) to = m["to"];
    }
    REQUIRE(to != -2);
    prefix.push_back(next);
    if (to == -1) break;  // the move that breaks the lock
    state = to;
  }
  CHECK(prefix.size() == s.schedule.size());
}

// The ghost facts of the moves along a scenario's schedule, in the
// debrief's order: "C1 read "7" of C3", "C2 DEL C1" (C2's DEL removed C1's
// lock), " expiry C1", " restart C1".
std::vector<std::string> FactsAlongSchedule(const scenario::Scenario& s,
                                            const nlohmann::json& graph) {
  std::vector<std::string> names;
  for (const auto& c : s.world.clients) names.push_back(c.name);
  std::vector<std::string> told;
  int state = 0;
  for (const world::Action& next : s.schedule) {
    const std::string text = world::FormatAction(next, names);
    const nlohmann::json* move = nullptr;
    for (const auto& m : graph["states"][static_cast<size_t>(state)]["moves"]) {
      if (m["action"] == text) move = &m;
    }
    REQUIRE(move != nullptr);
    const nlohmann::json& facts = (*move)["facts"];
    if (facts.contains("read")) {
      told.push_back(text + " read " + facts["read"]["value"].get<std::string>() + " of " +
                     facts["read"]["writer"].get<std::string>());
    }
    for (const auto& r : facts.value("removed", nlohmann::json::array())) {
      told.push_back(r["by"].get<std::string>() + " " + r["how"].get<std::string>() + " " +
                     r["of"].get<std::string>());
    }
    if ((*move)["to"] == -1) break;
    state = (*move)["to"];
  }
  return told;
}

TEST_CASE("the moves carry the ghost facts the debrief tells and the goal gives no answer") {
  const scenario::Scenario race =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json"));
  const nlohmann::json graph = run::PlayGraph(race, "race");
  CHECK(graph["goal"] == "Make two clients hold the lock (be in the critical section) at once.");
  CHECK(FactsAlongSchedule(race, graph) == std::vector<std::string>{"C1 read \"7\" of C3",
                                                                    "C2 read \"7\" of C3",
                                                                    "C1 DEL C3", "C2 DEL C1"});
  // A lease: the stall lets C1's lock expire, and C1's DEL removes C2's.
  const scenario::Scenario lease =
      scenario::LoadScenarioFile(testing::ScenarioPath("set-px-del-stall.json"));
  CHECK(FactsAlongSchedule(lease, run::PlayGraph(lease, "lease")) ==
        std::vector<std::string>{" expiry C1", "C1 DEL C2"});
  // A fault: the restart loses C1's lock (no persistence).
  const scenario::Scenario restart =
      scenario::LoadScenarioFile(testing::ScenarioPath("restart-none.json"));
  CHECK(FactsAlongSchedule(restart, run::PlayGraph(restart, "restart")) ==
        std::vector<std::string>{" restart C1"});
  // A safe scenario's goal: with its graph, in the first test above.
}

TEST_CASE("a game too large for a page is refused, saying so", "[scaled]") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-naive.json"));
  CHECK_THROWS_WITH(run::PlayGraph(s, "naive.json", 1000),
                    "naive.json: the game has more than 1000 states (with every choice shown, "
                    "nothing merged): too many for a page; a smaller horizon, fewer clients or "
                    "fewer faults make it fit");
  // The command line's bound takes 20,000 states to reach: Release only.
  // The sanitizers check the same refusal above, and the command line's
  // handling of a refused game in the test below.
  if (testing::kAddressSanitizer) return;
  testing::TempDir tmp;
  const testing::ProcessResult r = testing::RunLockstep(
      {"render", testing::ScenarioPath("setnx-naive.json"), "--play-html", tmp.File("g.html")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("the game has more than 20000 states"));
  CHECK_FALSE(std::filesystem::exists(tmp.File("g.html")));
}

TEST_CASE("a game whose texts are too long for a page is refused before it takes the memory") {
  // Reasons of 100 KB on every step: a few states, but megabytes each.
  nlohmann::json doc = {
      {"name", "long-reasons"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm",
          {{"lua_inline",
            "for i = 1, 4 do\n  redis.call('INCR', 'n')\n  lock.because(string.rep('why ', "
            "25000))\nend\n"}}}},
        {{"name", "C2"},
         {"algorithm",
          {{"lua_inline",
            "for i = 1, 4 do\n  redis.call('INCR', 'n')\n  lock.because(string.rep('why ', "
            "25000))\nend\n"}}}}}},
      {"lock", {{"key", "lock.foo"}}},
      {"clock", {{"horizon", 0}}},
      {"expect", "safe"}};
  testing::TempDir tmp;
  const std::string file = tmp.Write("long.json", doc.dump());
  const scenario::Scenario s = scenario::LoadScenarioFile(file);
  CHECK_THROWS_WITH(run::PlayGraph(s, "long.json", 20'000, 1 << 20),
                    Catch::Matchers::Contains("long.json: the game's page would hold more than 1 "
                                              "MiB of data (long reasons or values"));
  CHECK_NOTHROW(run::PlayGraph(s, "long.json", 20'000, 64 << 20));
  // The command line's bound is 64 MiB: a thousand such reasons pass it.
  doc["clients"][0]["algorithm"]["lua_inline"] =
      "for i = 1, 40 do\n  redis.call('INCR', 'n')\n  lock.because(string.rep('why ', "
      "500000))\nend\n";
  const std::string big = tmp.Write("big.json", doc.dump());
  const testing::ProcessResult r =
      testing::RunLockstep({"render", big, "--play-html", tmp.File("g.html")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("the game's page would hold more than 64 MiB"));
  CHECK_FALSE(std::filesystem::exists(tmp.File("g.html")));
}

TEST_CASE("the game's page carries its graph and fetches nothing") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json"));
  const std::string page = run::PlayPage(run::PlayGraph(s, "race"));
  CHECK(page.find("/*LOCKSTEP_GAME*/") == std::string::npos);
  CHECK(page.find("\"name\":\"setnx-docs-race\"") != std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("href=") == std::string::npos);
  CHECK(page.find("http") == std::string::npos);
  // The data cannot end the script early, nor open a comment or a script:
  // no "<" in it at all.
  const size_t script = page.find("<script>");
  CHECK(page.find("</script>", script) == page.rfind("</script>"));
  // The race's reasons compare with "<": the page carries them escaped.
  CHECK(page.find("\\\"7\\\" \\u003c my clock 10") != std::string::npos);
  CHECK(page.find("\\\"7\\\" < my clock 10") == std::string::npos);
}

}  // namespace
}  // namespace lockstep
