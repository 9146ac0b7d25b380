// The breadth-first strategy against depth-first search: on every shipped
// scenario small enough, the same verdict and the same property, and its
// counterexample as short as DFS's shrunk one (which a breadth-first search
// found too), with no shrinking of its own.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/explore.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

TEST_CASE("bfs gives DFS's verdicts and shortest counterexamples on the shipped scenarios",
          "[sweep]") {
  int compared = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    INFO(file);
    const scenario::Scenario s = scenario::LoadScenarioFile(file);
    // The large spaces (Redlock's, getset-delay-2) are left to the verdict
    // tests: a search cut after 5,000 states is not compared.
    run::ExploreOptions d;
    d.request.search.bounds.max_states = 5'000;
    const run::ExploreResult dfs = run::Explore(s, d);
    if (dfs.search.verdict == explore::Verdict::kIncomplete) continue;
    run::ExploreOptions o;
    o.strategy = "bfs";
    bool asked_to_shrink = false;
    o.found = [&](size_t) { asked_to_shrink = true; };
    const run::ExploreResult bfs = run::Explore(s, o);
    CHECK(bfs.exhaustive);
    CHECK_FALSE(asked_to_shrink);
    REQUIRE(bfs.search.verdict == dfs.search.verdict);
    if (dfs.counterexample) {
      REQUIRE(bfs.counterexample);
      CHECK(bfs.counterexample->shrunk);
      CHECK(bfs.counterexample->trace.violation->property ==
            dfs.counterexample->trace.violation->property);
      CHECK(bfs.counterexample->trace.schedule.size() == dfs.counterexample->trace.schedule.size());
    }
    ++compared;
  }
  CHECK(compared >= 20);
}

TEST_CASE("a state budget cuts depth-first and breadth-first searches by the states they visit") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-delay-2.json"));
  for (const char* strategy : {"dfs", "bfs"}) {
    INFO(strategy);
    run::ExploreOptions o;
    o.strategy = strategy;
    o.request.search.bounds.max_states = 1'000;
    const run::ExploreResult r = run::Explore(s, o);
    REQUIRE(r.search.verdict == explore::Verdict::kIncomplete);
    CHECK(r.search.incomplete == "stopped after 1000 states");
    CHECK(r.search.stats.states == 1'001);  // the one past the budget stops it
  }
}

TEST_CASE(
    "bfs within a step bound too short for the violation finds none, and says it is bounded") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-naive.json"));
  run::ExploreOptions o;
  o.strategy = "bfs";
  o.request.search.bounds.max_steps = 8;  // the race needs 9
  const run::ExploreResult r = run::Explore(s, o);
  CHECK(r.search.verdict == explore::Verdict::kSafe);
  CHECK(r.search.stats.max_depth == 8);
  o.request.search.bounds.max_steps = 9;
  CHECK(run::Explore(s, o).search.verdict == explore::Verdict::kViolation);
}

TEST_CASE(
    "explore --shortest hunts breadth-first: the naive race's 9 steps, found already shortest") {
  testing::TempDir tmp;
  auto r = testing::RunLockstep({"explore", testing::ScenarioPath("setnx-naive.json"), "--shortest",
                                 "--json", "--out", tmp.File("cx")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  CHECK(report["strategy"] == "bfs");
  CHECK(report["counterexample"]["found_steps"] == 9);
  CHECK(report["counterexample"]["steps"] == 9);
  // Not with another strategy.
  auto both = testing::RunLockstep(
      {"explore", testing::ScenarioPath("setnx-naive.json"), "--shortest", "--strategy", "dfs"});
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("--strategy excludes --shortest") != std::string::npos);
}

TEST_CASE(
    "bfs visits DFS's states, with symmetry or without (--no-symmetry), and says it has no "
    "sleep sets") {
  // Breadth first and depth first without sleep sets keep the same states:
  // sleep sets prune transitions, never states.
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-loser-overwrite-safe.json"));
  for (bool symmetry : {true, false}) {
    INFO("symmetry " << symmetry);
    run::ExploreOptions d;
    d.request.search.reductions.symmetry = symmetry;
    d.request.search.reductions.por = false;
    const run::ExploreResult dfs = run::Explore(s, d);
    run::ExploreOptions o = d;
    o.strategy = "bfs";
    o.request.search.reductions.por = true;  // asked for, and not applied
    const run::ExploreResult bfs = run::Explore(s, o);
    REQUIRE(dfs.safe());
    REQUIRE(bfs.safe());
    CHECK(bfs.search.stats.states == dfs.search.stats.states);
    CHECK_FALSE(bfs.request.search.reductions.por);
  }
}

TEST_CASE("explore refuses an option its strategy does not read, naming who reads it") {
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  const testing::ProcessResult por =
      testing::RunLockstep({"explore", race, "--strategy", "bfs", "--no-por"});
  CHECK(por.exit_code == 2);
  CHECK(por.err ==
        "lockstep explore: --no-por does nothing with --strategy bfs; it is read by dfs\n");
  const testing::ProcessResult jobs =
      testing::RunLockstep({"explore", race, "--strategy", "random", "--jobs", "2"});
  CHECK(jobs.exit_code == 2);
  CHECK(jobs.err.find("--jobs does nothing with --strategy random") != std::string::npos);
}

TEST_CASE("without a horizon explore searches breadth first unless told to go depth first") {
  const std::string all_time = testing::ScenarioPath("getset-all-time.json");
  auto header = [](const testing::ProcessResult& r) { return r.out.substr(0, r.out.find('\n')); };
  const testing::ProcessResult chosen =
      testing::RunLockstep({"explore", all_time, "--clients", "2"});
  CHECK(chosen.exit_code == 0);
  CHECK_THAT(header(chosen), Catch::Contains("strategy bfs (the default without a horizon)"));
  // An option only depth first reads asks for depth first.
  const testing::ProcessResult jobs =
      testing::RunLockstep({"explore", all_time, "--clients", "2", "--jobs", "2"});
  CHECK(jobs.exit_code == 0);
  CHECK_THAT(header(jobs), Catch::Contains("strategy dfs,"));
  const testing::ProcessResult told =
      testing::RunLockstep({"explore", all_time, "--clients", "2", "--strategy", "dfs"});
  CHECK_THAT(header(told), Catch::Contains("strategy dfs,"));
  // With a horizon, depth first, as always.
  const testing::ProcessResult bounded =
      testing::RunLockstep({"explore", all_time, "--clients", "2", "--horizon", "8"});
  CHECK_THAT(header(bounded), Catch::Contains("strategy dfs,"));
  // An option neither reads is refused as before.
  const testing::ProcessResult pct =
      testing::RunLockstep({"explore", all_time, "--executions", "5"});
  CHECK(pct.exit_code == 2);
  CHECK_THAT(pct.err, Catch::Contains("--executions does nothing with --strategy dfs"));
}

}  // namespace
}  // namespace lockstep
