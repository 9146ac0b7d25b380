// The strategy registry is what `lockstep explore --strategy` offers: every
// entry runs through the command line, and the command line accepts no
// other name.
#include "sim/explore/strategy_registry.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;
using testing::ScenarioPath;

TEST_CASE("every registered strategy runs through explore and reports as its kind") {
  testing::TempDir tmp;
  REQUIRE(!explore::Strategies().empty());
  for (const explore::StrategyEntry& e : explore::Strategies()) {
    const std::string name(e.name);
    INFO(name);
    REQUIRE(explore::FindStrategy(name) == &e);
    auto r = RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--strategy", name,
                          "--clients", "2", "--out", tmp.path().string(), "--json"});
    REQUIRE(r.exit_code == 1);
    json report = json::parse(r.out);
    CHECK(report["strategy"] == name);
    CHECK(report["verdict"] == "violation");
    CHECK(report["counterexample"]["steps"] == 9);
    // Sampling runs a requested number of executions; an exhaustive search
    // does not.
    CHECK(report.contains("executions_requested") == (e.kind == explore::StrategyKind::kSampling));
  }
}

TEST_CASE("explore accepts exactly the registry's strategy names") {
  std::string names;
  for (const std::string& n : explore::StrategyNames()) names += (names.empty() ? "" : ",") + n;
  auto help = RunLockstep({"explore", "--help"});
  REQUIRE(help.exit_code == 0);
  CHECK(help.out.find("{" + names + "}") != std::string::npos);
  for (const explore::StrategyEntry& e : explore::Strategies()) {
    CHECK(help.out.find(std::string(e.help)) != std::string::npos);
  }
  CHECK(explore::FindStrategy("astar") == nullptr);
  auto unknown = RunLockstep({"explore", ScenarioPath("setnx-naive.json"), "--strategy", "astar"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("astar") != std::string::npos);
}

TEST_CASE("each option names the strategies that read it") {
  CHECK(explore::StrategiesReading("--preemptions") == "dfs");
  CHECK(explore::StrategiesReading("--seed") == "random, pct");
  CHECK(explore::StrategiesReading("--depth") == "pct");
  CHECK(explore::StrategiesReading("--no-such-option").empty());
}

}  // namespace
}  // namespace lockstep
