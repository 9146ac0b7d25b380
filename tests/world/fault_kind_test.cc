// The one list of fault kinds, and every place that derives from it.
#include "sim/world/fault_kind.h"

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"
#include "sim/world/world.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

TEST_CASE("each action that spends a fault budget names its kind, and only those do") {
  using K = world::Action::Kind;
  for (K k : {K::kStep, K::kTick, K::kCrash, K::kStall, K::kJump, K::kRestart, K::kLoseRequest,
              K::kLoseReply, K::kReplicate, K::kFailover}) {
    world::Action a;
    a.kind = k;
    CHECK((world::FaultKindOf(k) != nullptr) == a.is_fault());
  }
  CHECK(world::FaultKindOf(K::kLoseReply)->name == "lose");
  CHECK(world::FaultKindOf(K::kLoseRequest)->name == "lose");
  CHECK(world::FaultKindOf(K::kCrash)->name == "crash");
}

TEST_CASE("an action whose kind's budget is used up is refused naming that kind") {
  world::WorldConfig cfg;
  cfg.horizon = 10;
  cfg.faults.jump_by = {1};
  world::ClientSetup c1;
  c1.name = "C1";
  c1.algorithm = "test";
  c1.body = [](world::Client& c) {
    for (;;) c.Get("k");
  };
  cfg.clients.push_back(c1);
  world::World w(cfg);
  using world::Action;
  for (const Action& a : {Action::Crash(0), Action::Stall(0), Action::Jump(1), Action::Restart(),
                          Action::LoseRequest(0), Action::LoseReply(0), Action::Failover(0)}) {
    std::string why;
    CHECK_FALSE(w.IsEnabled(a, &why));
    CHECK(why == "the " + std::string(world::FaultKindOf(a.kind)->name) + " budget (0) is used up");
  }
}

TEST_CASE("every fault kind is read from a scenario's faults, documented in the field reference") {
  json doc = json::parse(testing::ReadText(testing::ScenarioPath("clock-jump.json")));
  for (const world::FaultKind& k : world::kFaultKinds) {
    const std::string name(k.name);
    INFO(name);
    json d = doc;
    d["faults"][name] = 2;
    scenario::Scenario s = scenario::LoadScenario(d, "faults.json");
    CHECK(s.world.faults.*k.count == 2);
    // Only this kind's budget moved.
    world::FaultBudget expected = scenario::LoadScenario(doc, "faults.json").world.faults;
    expected.*k.count = 2;
    CHECK(static_cast<const world::FaultCounts&>(s.world.faults) ==
          static_cast<const world::FaultCounts&>(expected));

    d["faults"][name] = k.max_budget + 1;
    CHECK_THROWS_WITH(scenario::LoadScenario(d, "faults.json"), Catch::Contains("/faults/" + name));

    CHECK(scenario::FieldReference().find("\n    " + name + std::string(14 - name.size(), ' ') +
                                          "integer      0.." + std::to_string(k.max_budget) + ": " +
                                          std::string(k.help) + "\n") != std::string::npos);
  }
}

TEST_CASE("every fault kind is read from explore --faults and named in its help") {
  std::string help = testing::RunLockstep({"explore", "--help"}).out;
  const size_t kinds_at = help.find("(kinds: ");
  REQUIRE(kinds_at != std::string::npos);
  const std::string kinds = help.substr(kinds_at, help.find(')', kinds_at) - kinds_at);
  testing::TempDir tmp;
  for (const world::FaultKind& k : world::kFaultKinds) {
    const std::string name(k.name);
    INFO(name);
    CHECK((kinds.find(" " + name + ",") != std::string::npos ||
           kinds.find(" " + name) + name.size() + 1 == kinds.size()));
    // The saved counterexample embeds the budgets that were searched.
    const std::string out = tmp.File(name);
    auto r = testing::RunLockstep({"explore", testing::ScenarioPath("clock-jump.json"), "--faults",
                                   name + "=2", "--out", out});
    REQUIRE(r.exit_code == 1);
    REQUIRE(std::filesystem::exists(out));
    for (const auto& file : std::filesystem::directory_iterator(out)) {
      json trace = json::parse(testing::ReadText(file.path().string()));
      CHECK(trace["scenario"]["faults"][name] == 2);
    }
  }
  auto r = testing::RunLockstep(
      {"explore", testing::ScenarioPath("clock-jump.json"), "--faults", "flood=1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("KIND one of " + world::FaultKindNames() + " and N in 0..16") !=
        std::string::npos);
}

}  // namespace
}  // namespace lockstep
