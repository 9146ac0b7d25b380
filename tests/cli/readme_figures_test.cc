// The state counts the README quotes, each from the command that gives it:
// a change in the engine that moves one fails here, naming the sentence
// to correct, instead of leaving the README to say what is no longer true.
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/play_page.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

struct Figure {
  std::string readme;              // the README's words, the figure among them
  std::vector<std::string> args;   // `lockstep explore` with these (and --json)
  long states;                     // the distinct states it reports
  std::string verdict = "safe";    // and its verdict
  long odds_states = 0;            // a violation's: the states its odds weighed (0: none)
  std::string greatest_odds = "";  // of some_contender_enters' violation
};

// getset-all-time with every client running examples/lua/setnx_getset.lua,
// declared as tests/algo/lua_algorithm_test.cc declares it.
std::string LuaGetsetAllTime(const testing::TempDir& tmp) {
  nlohmann::json doc =
      nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("getset-all-time.json")));
  for (nlohmann::json& c : doc["clients"]) {
    REQUIRE(c["algorithm"] == "setnx-getset");
    c["algorithm"] = {{"lua", testing::SourceDir() + "/examples/lua/setnx_getset.lua"},
                      {"relative_time", true}};
  }
  for (nlohmann::json& e : doc["keyspace"]) e["timestamp"] = true;
  return tmp.Write("getset-all-time-lua.json", doc.dump());
}

TEST_CASE("every state count the README quotes is what lockstep explore reports", "[sweep]") {
  const std::string scenarios = testing::SourceDir() + "/scenarios/";
  testing::TempDir tmp;
  const std::vector<Figure> figures = {
      {"contenders up to clock 16 (3,946 states)",
       {scenarios + "getset-loser-overwrite-safe.json"},
       3'946},
      {"fix safe for all time with five contenders (2,406 states",
       {scenarios + "getset-all-time.json"},
       2'406},
      {"against 2,309 at\n  horizon 8", {scenarios + "getset-bounded.json"}, 2'309},
      {"Redlock on three instances safe for all time (1,930,351 states",
       {scenarios + "redlock-safe.json", "--horizon", "none"},
       1'930'351},
      {"safe (239 / 635 / 1,303 / 2,309 states with reductions)",
       {scenarios + "getset-bounded.json", "--clients", "2"},
       239},
      {"safe (239 / 635 /", {scenarios + "getset-bounded.json", "--clients", "3"}, 635},
      {"/ 635 / 1,303 /", {scenarios + "getset-bounded.json", "--clients", "4"}, 1'303},
      {"and 22,397 at horizon 32", {scenarios + "getset-bounded.json", "--horizon", "32"}, 22'397},
      {"`redlock-safe` from 135,297 states",
       {scenarios + "redlock-safe.json", "--no-symmetry"},
       135'297},
      {"to 67,663", {scenarios + "redlock-safe.json"}, 67'663},
      {"safe (67,663 states", {scenarios + "redlock-safe.json"}, 67'663},
      {"(`getset-all-time`: 13,651 against\n2,406)", {LuaGetsetAllTime(tmp)}, 13'651},
      {"On `getset-delay-2` (649,836 states)", {scenarios + "getset-delay-2.json"}, 649'836},
      {"holds with probability 1 | 1,022 + 2,038",
       {testing::SourceDir() + "/examples/lua/redlock-jitter.json"},
       1'022},
      {"whatever the jitter draws | 4,518 + 9,365",
       {testing::SourceDir() + "/examples/lua/node-redlock-5-split-vote.json"},
       4'518,
       "violation",
       9'365,
       "1"},
      {"0 at least and 1/4 at most | 1,675 + 3,355",
       {testing::SourceDir() + "/examples/lua/node-redlock-4-retries.json"},
       1'675,
       "violation",
       3'355,
       "1/4"},
      {"# SAFE for all time, 63,852 states",
       {testing::SourceDir() + "/examples/lua/watchdog-script-stall.json"},
       63'852},
  };
  const std::string readme = testing::ReadText(testing::SourceDir() + "/README.md");
  // Each command runs once: the README quotes some counts twice.
  std::map<std::vector<std::string>, nlohmann::json> reports;
  for (const Figure& f : figures) {
    INFO(f.readme);
    CHECK(readme.find(f.readme) != std::string::npos);
    if (!reports.contains(f.args)) {
      std::vector<std::string> args = {"explore"};
      args.insert(args.end(), f.args.begin(), f.args.end());
      for (const char* a : {"--json", "--out"}) args.push_back(a);
      args.push_back(tmp.File("out"));
      const testing::ProcessResult r = testing::RunLockstep(args);
      INFO(r.err);
      REQUIRE(r.exit_code == (f.verdict == "safe" ? 0 : 1));
      reports[f.args] = nlohmann::json::parse(r.out);
    }
    const nlohmann::json& report = reports[f.args];
    CHECK(report["verdict"] == f.verdict);
    CHECK(report["states"] == f.states);
    if (f.odds_states == 0) continue;
    CHECK(report["odds"]["states"] == f.odds_states);
    for (const nlohmann::json& o : report["odds"]["properties"]) {
      if (o["property"] == "some_contender_enters") {
        CHECK(o["greatest_exact"] == f.greatest_odds);
      }
    }
  }
}

TEST_CASE("the game's state count the README quotes is its graph's") {
  const std::string readme = testing::ReadText(testing::SourceDir() + "/README.md");
  CHECK(readme.find("(the documented race has 3,602)") != std::string::npos);
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json"));
  CHECK(run::PlayGraph(s, "setnx-docs-race.json")["states"].size() == 3'602);
}

}  // namespace
}  // namespace lockstep
