// Determinism is the product: the same scenario and seed give the same
// trace, byte for byte, every time.
#include <catch2/catch.hpp>

#include <filesystem>

#include "sim/cli/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

TEST_CASE("the same seed gives a byte-identical trace, over many seeds and every scenario") {
  int violations = 0, runs = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    for (uint64_t seed = 0; seed < 300; ++seed) {
      std::string a = trace::ToJsonText(cli::RunSeeded(s, seed, 200));
      std::string b = trace::ToJsonText(cli::RunSeeded(s, seed, 200));
      REQUIRE(a == b);
      ++runs;
      if (a.find("\"violation\": {") != std::string::npos) ++violations;
    }
  }
  CHECK(runs >= 600);
  CHECK(violations > 0);  // random schedules do find the naive race sometimes
}

TEST_CASE("every scenario with a schedule replays to the outcome it expects") {
  for (const std::string& file : testing::AllScenarioPaths()) {
    INFO(file);
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    if (!s.has_schedule) continue;
    trace::Trace t = cli::ReplaySchedule(s);
    if (s.expect.safe) {
      CHECK_FALSE(t.violation);
    } else {
      REQUIRE(t.violation);
      CHECK(t.violation->property == s.expect.property);
    }
    // Replaying the recorded schedule again gives the same trace.
    CHECK(trace::ToJsonText(cli::ReplaySchedule(s)) == trace::ToJsonText(t));
  }
}

}  // namespace
}  // namespace lockstep
