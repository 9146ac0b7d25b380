// The distributed search against the depth-first one: the same verdicts,
// the same distinct states, and (once the command has shrunk them)
// shortest counterexamples, whether its ranks are threads of one process or
// processes mpirun started.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/check/liveness.h"
#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Fingerprint;
using nlohmann::json;

// The scenario's safety properties (liveness is judged in one process).
explore::Properties SafetyOf(const scenario::Scenario& sc) {
  const std::vector<std::string> liveness = check::LivenessIn(sc.properties);
  std::vector<std::string> safety;
  for (const std::string& p : sc.properties) {
    if (std::find(liveness.begin(), liveness.end(), p) == liveness.end()) safety.push_back(p);
  }
  return explore::MakeProperties(safety);
}

// The shipped scenarios whose searches reach over 80,000 states (from
// 80,818 for redlock-instance-tokens-stall to 625,400 for
// redlock-restart-delayed), and the lower horizon at which the mpirun sweep
// searches them; the other sweeps leave them out.
std::optional<int> HeavyHorizon(const std::string& path) {
  static const std::vector<std::pair<std::string, int>> kHeavy = {
      {"getset-delay-2.json", 5},
      {"redlock-fenced-stall.json", 4},
      {"redlock-instance-tokens-stall.json", 4},
      {"redlock-restart-delayed.json", 1},
      {"redlock-safe.json", 5}};
  for (const auto& [name, horizon] : kHeavy) {
    if (path.ends_with("/" + name)) return horizon;
  }
  return std::nullopt;
}
bool Heavy(const std::string& path) { return HeavyHorizon(path).has_value(); }

void Sort(std::vector<Fingerprint>& states) {
  std::sort(states.begin(), states.end(), [](const Fingerprint& x, const Fingerprint& y) {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  });
}

TEST_CASE(
    "the distributed search on one to three ranks finds what the depth-first search finds, "
    "on every shipped scenario short of the heaviest",
    "[sweep]") {
  for (const std::string& path : testing::ScenarioSweep()) {
    if (Heavy(path)) continue;
    const scenario::Scenario sc = scenario::LoadScenarioFile(path);
    const explore::Properties properties = SafetyOf(sc);
    explore::SearchOptions o;
    o.collect_states = true;
    const explore::SearchResult dfs = explore::DepthFirstSearch(sc.world, properties, o);
    std::vector<Fingerprint> dfs_states = dfs.states;
    Sort(dfs_states);
    for (int ranks : {1, 2, 3}) {
      INFO(path << " on " << ranks << " ranks");
      explore::SearchResult got = soundness::DistributedOnThreads(sc.world, properties, o, ranks);
      REQUIRE(got.verdict == dfs.verdict);
      if (dfs.verdict == explore::Verdict::kViolation) {
        // Asynchronous: a real violation (judged again where found), not
        // necessarily a shortest one; the command shrinks it.
        auto shortest = explore::ShortestCounterexample(sc.world, properties, 1000, 10'000'000);
        REQUIRE(shortest);
        REQUIRE(got.violation.has_value());
        CHECK(got.counterexample.size() >= shortest->counterexample.size());
      } else {
        Sort(got.states);
        CHECK(got.stats.states == dfs.stats.states);
        CHECK(got.states == dfs_states);
      }
    }
  }
}

TEST_CASE("the distributed search cuts a step bound where the depth-first search does") {
  const scenario::Scenario sc =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-bounded.json"));
  const explore::Properties properties = SafetyOf(sc);
  explore::SearchOptions o;
  o.bounds.max_steps = 6;
  o.collect_states = true;
  explore::SearchResult dfs = explore::DepthFirstSearch(sc.world, properties, o);
  explore::SearchResult got = soundness::DistributedOnThreads(sc.world, properties, o, 2);
  REQUIRE(dfs.verdict == explore::Verdict::kIncomplete);
  CHECK(got.verdict == explore::Verdict::kIncomplete);
  CHECK(got.incomplete == dfs.incomplete);
  Sort(dfs.states);
  Sort(got.states);
  CHECK(got.states == dfs.states);
}

TEST_CASE(
    "the distributed search ends only once no rank has work and no batch is on its way, "
    "however the ranks' threads interleave") {
  // Small spaces end while some ranks have never had work and others are
  // still sending: an end called too soon misses states. Run often, on two
  // and three ranks, each run with its own interleaving.
  for (const char* file : {"getset-docs-fix.json"}) {
    const scenario::Scenario sc = scenario::LoadScenarioFile(testing::ScenarioPath(file));
    const explore::Properties properties = SafetyOf(sc);
    explore::SearchOptions o;
    o.collect_states = true;
    explore::SearchResult dfs = explore::DepthFirstSearch(sc.world, properties, o);
    Sort(dfs.states);
    for (int run = 0; run < 6; ++run) {
      for (int ranks : {2, 3}) {
        INFO(file << " on " << ranks << " ranks, run " << run);
        explore::SearchResult got = soundness::DistributedOnThreads(sc.world, properties, o, ranks);
        REQUIRE(got.verdict == dfs.verdict);
        Sort(got.states);
        CHECK(got.stats.states == dfs.stats.states);
        CHECK(got.states == dfs.states);
      }
    }
  }
}

TEST_CASE("explore --distributed refuses what it cannot honour, naming it") {
  testing::TempDir tmp;
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  auto no_cache =
      testing::RunLockstep({"explore", race, "--strategy", "distributed", "--no-cache"});
  CHECK(no_cache.exit_code == 2);
  CHECK_THAT(no_cache.err, Catch::Contains("--no-cache"));
  auto preemptions =
      testing::RunLockstep({"explore", race, "--strategy", "distributed", "--preemptions", "1"});
  CHECK(preemptions.exit_code == 2);
  CHECK_THAT(preemptions.err, Catch::Contains("--preemptions"));
  auto shortest = testing::RunLockstep({"explore", race, "--distributed", "--shortest"});
  CHECK(shortest.exit_code == 2);
  CHECK_THAT(shortest.err, Catch::Contains("excludes"));
  auto liveness =
      testing::RunLockstep({"explore", testing::ScenarioPath("setnx-expire-orphan.json"),
                            "--strategy", "distributed", "--out", tmp.File("out")});
  CHECK(liveness.exit_code == 2);
  CHECK_THAT(liveness.err, Catch::Contains("liveness property"));
}

#ifdef LOCKSTEP_MPIEXEC
TEST_CASE(
    "mpirun -np 2 lockstep explore --distributed gives the verdicts and distinct states of "
    "one process, on every shipped scenario (the heaviest at a lower horizon)",
    "[sweep]") {
  testing::TempDir tmp;
  for (const std::string& path : testing::ScenarioSweep()) {
    if (testing::kAddressSanitizer && Heavy(path)) continue;
    INFO(path);
    const scenario::Scenario sc = scenario::LoadScenarioFile(path);
    std::vector<std::string> bounds;
    if (auto horizon = HeavyHorizon(path)) bounds = {"--horizon", std::to_string(*horizon)};
    INFO("horizon " << (bounds.empty() ? "as shipped" : bounds[1]));
    std::vector<std::string> one_args{"explore", path, "--json", "--out", tmp.File("one")};
    std::vector<std::string> two_args{"explore", path,    "--distributed",
                                      "--json",  "--out", tmp.File("two")};
    one_args.insert(one_args.end(), bounds.begin(), bounds.end());
    two_args.insert(two_args.end(), bounds.begin(), bounds.end());
    auto one = testing::RunLockstep(one_args);
    // Only rank 0 exits with the verdict's code, once it has written it.
    auto two = testing::RunOnRanks(2, two_args, /*prompt_exit=*/true);
    INFO(two.err);
    if (!check::LivenessIn(sc.properties).empty()) {
      CHECK(two.exit_code == 2);
      CHECK_THAT(two.err, Catch::Contains("liveness property"));
      continue;
    }
    REQUIRE(two.exit_code == one.exit_code);
    const json a = json::parse(one.out), b = json::parse(two.out);
    CHECK(b["distributed"]["ranks"] == 2);
    REQUIRE(b["verdict"] == a["verdict"]);
    if (a["verdict"] == "violation") {
      // Both shortest: the depth-first one shrunk, the distributed one breadth first.
      CHECK(b["counterexample"]["steps"] == a["counterexample"]["steps"]);
      CHECK(b["counterexample"]["violation"]["property"] ==
            a["counterexample"]["violation"]["property"]);
      auto replay = testing::RunLockstep(
          {"replay", b["counterexample"]["file"].get<std::string>(), "--json"});
      CHECK(replay.exit_code == 1);
    } else {
      CHECK(b["states"] == a["states"]);
    }
  }
}
#endif

}  // namespace
}  // namespace lockstep
