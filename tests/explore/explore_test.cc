// The explorer finds the documented race by itself, proves the GETSET fix
// within bounds, and reports honestly.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;
using testing::ScenarioPath;

scenario::Scenario WithClients(const std::string& file, int n) {
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath(file));
  s.world.clients.resize(static_cast<size_t>(n));
  s.algorithms.resize(static_cast<size_t>(n));
  return s;
}

TEST_CASE(
    "every strategy finds the naive race for 2 to 5 clients, shrunk to 9 steps, and it replays "
    "byte for byte") {
  testing::TempDir tmp;
  for (const char* strategy : {"dfs", "random", "pct"}) {
    for (int n = 2; n <= 5; ++n) {
      INFO(strategy << " with " << n << " clients");
      auto r =
          RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--strategy", strategy,
                       "--clients", std::to_string(n), "--out", tmp.path().string(), "--json"});
      REQUIRE(r.exit_code == 1);
      json report = json::parse(r.out);
      CHECK(report["verdict"] == "violation");
      // 8 commands and the one tick that makes C0's timestamp 0 expire.
      CHECK(report["counterexample"]["steps"] == 9);
      CHECK(report["counterexample"]["violation"]["property"] == "mutual_exclusion");
      CHECK(report["counterexample"]["violation"]["clients"].size() == 2);
      std::string file = report["counterexample"]["file"];
      CHECK(report["counterexample"]["replay"] == "lockstep replay " + file);
      std::string saved = testing::ReadText(file);
      auto replay = RunLockstep({"replay", file, "--trace-out", tmp.File("again.json")});
      CHECK(replay.exit_code == 1);
      CHECK(replay.out.find("replay reproduces the trace byte for byte") != std::string::npos);
      CHECK(testing::ReadText(tmp.File("again.json")) == saved);
    }
  }
}

TEST_CASE(
    "the shortest naive race is the documentation's: both SETNX fail, both GET, then DEL and SETNX "
    "twice") {
  scenario::Scenario s = WithClients("setnx-naive.json", 2);
  auto shortest = explore::ShortestCounterexample(s.world, explore::MakeProperties(s.properties),
                                                  20, 1'000'000);
  REQUIRE(shortest);
  trace::Trace t = run::RecordTrace(s, shortest->counterexample);
  std::string line = trace::OneLine(t);
  INFO(line);
  // Oracle: SPIN's BFS trail for naive, N=2 (../shared/spin/results.md): 9
  // steps, and the trace's step 0 is the initial state.
  CHECK(t.steps.size() == 10);
  // The order of the first steps may vary; the shape may not.
  int setnx0 = 0, gets = 0, dels = 0, setnx1 = 0;
  for (size_t i = 1; i < t.steps.size(); ++i) {
    std::string step = trace::StepLine(t.steps[i]);
    setnx0 += step.find("SETNX lock.foo") != std::string::npos && step.ends_with("-> 0");
    setnx1 += step.find("SETNX lock.foo") != std::string::npos && step.ends_with("-> 1");
    gets += step.find("GET lock.foo -> \"0\"") != std::string::npos;
    dels += step.find("DEL lock.foo -> 1") != std::string::npos;
  }
  CHECK(setnx0 == 2);
  CHECK(gets == 2);
  CHECK(dels == 2);
  CHECK(setnx1 == 2);
  CHECK(line.ends_with("!mutual_exclusion(C1,C2)@9"));
}

TEST_CASE(
    "exhaustive search proves the GETSET fix safe for 2 to 5 clients with the holder's bound") {
  for (int n = 2; n <= 5; ++n) {
    INFO(n << " clients");
    scenario::Scenario s = WithClients("getset-bounded.json", n);
    explore::SearchResult r =
        explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), {});
    CHECK(r.verdict == explore::Verdict::kSafe);
    // Sleep sets prune transitions, never states: the search without them
    // is safe over the same states.
    explore::SearchOptions no_por;
    no_por.reductions.por = false;
    explore::SearchResult p =
        explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), no_por);
    CHECK(p.verdict == explore::Verdict::kSafe);
    CHECK(p.stats.states == r.stats.states);
    CHECK(r.stats.transitions >= r.stats.states - 1);
  }
}

TEST_CASE("without reductions the GETSET model has exactly SPIN's states and transitions") {
  // ../shared/spin/results.md, getset, T=2, MAXT=8, ROUNDS=1: pan's
  // "transitions" count edges + 1.
  const uint64_t spin_states[] = {444, 2632, 13372};
  const uint64_t spin_transitions[] = {927, 7351, 47373};
  for (int n = 2; n <= 4; ++n) {
    scenario::Scenario s = WithClients("getset-bounded.json", n);
    explore::SearchOptions o;
    o.reductions.symmetry = false;
    o.reductions.por = false;
    explore::SearchResult r =
        explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), o);
    CHECK(r.verdict == explore::Verdict::kSafe);
    CHECK(r.stats.states == spin_states[n - 2]);
    CHECK(r.stats.transitions + 1 == spin_transitions[n - 2]);
  }
}

TEST_CASE("without the holder's bound the GETSET takeover violates mutual exclusion") {
  auto r = RunLockstep({"explore", ScenarioPath("getset-unbounded.json"), "--clients", "2",
                        "--json", "--out", testing::TempDir().path().string()});
  CHECK(r.exit_code == 1);
  json report = json::parse(r.out);
  // SPIN's shortest trail for getset_unbounded has 11 steps.
  CHECK(report["counterexample"]["steps"] == 11);
}

TEST_CASE("a search cut by a bound says which and exits 3") {
  auto r = RunLockstep({"explore", ScenarioPath("getset-bounded.json"), "--clients", "2",
                        "--max-steps", "4", "--json"});
  CHECK(r.exit_code == 3);
  json report = json::parse(r.out);
  CHECK(report["verdict"] == "incomplete");
  CHECK(report["incomplete"] == "stopped at max-steps 4");

  r = RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--clients", "2", "--preemptions",
                   "0", "--json"});
  CHECK(r.exit_code == 3);
  CHECK(json::parse(r.out)["incomplete"] == "stopped at preemptions 0");

  r = RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--clients", "2", "--preemptions",
                   "2", "--json", "--out", testing::TempDir().path().string()});
  CHECK(r.exit_code == 1);
}

TEST_CASE("plain enumeration follows a client that retries forever down to max_steps", "[sweep]") {
  // Without state caching the naive lock's waiting client can GET forever
  // without the clock moving: the search bounds each execution by the
  // scenario's max_steps (10000), or by --max-steps, and goes that deep
  // without running out of stack (8 MiB held about 10,000 steps once).
  testing::TempDir out;
  for (int bound : {10000, 20000}) {
    INFO("bound " << bound);
    std::vector<std::string> args = {"explore",    ScenarioPath("setnx-naive.json"),
                                     "--clients",  "2",
                                     "--no-cache", "--json",
                                     "--out",      out.path().string()};
    if (bound != 10000) args.insert(args.end(), {"--max-steps", std::to_string(bound)});
    auto r = RunLockstep(args);
    CHECK(r.exit_code == 1);
    json j = json::parse(r.out);
    CHECK(j["bounds"]["max_steps"] == bound);
    CHECK(j["max_depth"] == bound);
    CHECK(j["counterexample"]["found_steps"] == bound - 1);
    CHECK(j["counterexample"]["steps"] == 9);
  }
}

TEST_CASE("the JSON report carries verdict, strategy, bounds and honest counts") {
  auto r =
      RunLockstep({"explore", ScenarioPath("getset-bounded.json"), "--clients", "3", "--json"});
  CHECK(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j["verdict"] == "safe");
  CHECK(j["strategy"] == "dfs");
  CHECK(j["bounds"]["horizon"] == 8);
  CHECK(j["bounds"]["max_hold_ticks"] == 1);
  CHECK(j["clients"] == json({"C1", "C2", "C3"}));
  for (const char* k : {"executions", "states", "transitions", "max_depth", "elapsed_s"}) {
    CHECK(j.contains(k));
  }
  CHECK(j["states"].get<uint64_t>() > 0);
}

TEST_CASE("explore refuses bad options with exit 2") {
  CHECK(
      RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--strategy", "astar"}).exit_code ==
      2);
  auto r = RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--clients", "7"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "lockstep: --clients 7: the scenario has 5 contending clients\n");
  r = RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--max-arg-delay", "soon"});
  CHECK(r.exit_code == 2);
}

}  // namespace
}  // namespace lockstep
