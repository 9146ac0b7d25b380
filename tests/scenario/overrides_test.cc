// The scenario has one form: an overridden scenario is its document, loaded.
#include "sim/scenario/overrides.h"

#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "sim/base/input_error.h"
#include "sim/check/liveness.h"
#include "tests/test_util.h"

namespace lockstep::scenario {
namespace {

// What a search depends on, compared field by field between two loads.
void RequireSameWorld(const Scenario& a, const Scenario& b) {
  REQUIRE(a.document == b.document);
  REQUIRE(a.algorithms == b.algorithms);
  REQUIRE(a.properties == b.properties);
  REQUIRE(a.world.clients.size() == b.world.clients.size());
  for (size_t i = 0; i < a.world.clients.size(); ++i) {
    CHECK(a.world.clients[i].name == b.world.clients[i].name);
    CHECK(a.world.clients[i].crashed == b.world.clients[i].crashed);
    CHECK(a.world.clients[i].skew == b.world.clients[i].skew);
  }
  CHECK(a.world.horizon == b.world.horizon);
  CHECK(a.world.assumptions.max_arg_delay == b.world.assumptions.max_arg_delay);
  CHECK(static_cast<const world::FaultCounts&>(a.world.faults) ==
        static_cast<const world::FaultCounts&>(b.world.faults));
}

TEST_CASE("An overridden scenario is its own document, loaded again", "[scenario][overrides]") {
  for (const std::string& path : testing::AllScenarioPaths()) {
    CAPTURE(path);
    Scenario s = LoadScenarioFile(path);
    // A horizon is refused beside liveness properties (liveness_test.cc).
    if (std::any_of(s.properties.begin(), s.properties.end(),
                    [](const std::string& p) { return check::IsLiveness(p); }))
      continue;
    Overrides o;
    o.clients = 1;
    o.horizon = std::to_string(s.world.start_time + 5);
    o.max_arg_delay = "none";
    o.faults = "crash=1";
    ApplyOverrides(s, o);
    int kept = 0;
    for (const auto& c : s.world.clients) kept += !c.crashed;
    CHECK(kept == 1);
    CHECK(s.world.horizon == s.world.start_time + 5);
    CHECK_FALSE(s.world.assumptions.max_arg_delay.has_value());
    CHECK(s.world.faults.crash == 1);
    CHECK(s.document["clock"]["horizon"] == s.world.start_time + 5);
    CHECK(s.document["faults"]["crash"] == 1);
    RequireSameWorld(s, LoadScenario(s.document, s.file));
  }
}

TEST_CASE("No overrides leave the scenario as loaded", "[scenario][overrides]") {
  const std::string path = testing::AllScenarioPaths().front();
  Scenario s = LoadScenarioFile(path);
  Scenario t = s;
  ApplyOverrides(t, {});
  RequireSameWorld(s, t);
}

TEST_CASE("A value the scenario cannot take names the option", "[scenario][overrides]") {
  Scenario s = LoadScenarioFile(testing::AllScenarioPaths().front());
  auto message = [&](const Overrides& o) {
    Scenario t = s;
    try {
      ApplyOverrides(t, o);
    } catch (const base::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Overrides clients, horizon, delay, faults;
  clients.clients = 99;
  horizon.horizon = "-1";
  delay.max_arg_delay = "soon";
  faults.faults = "bogus=1";
  CHECK(message(clients).rfind("--clients 99: the scenario has ", 0) == 0);
  CHECK(message(horizon).rfind("--horizon -1: expected ", 0) == 0);
  CHECK(message(delay) ==
        "--max-arg-delay: expected a non-negative integer or \"none\", got \"soon\"");
  CHECK(message(faults).rfind("--faults: expected KIND=N items", 0) == 0);
}

}  // namespace
}  // namespace lockstep::scenario
