// The bounds in base::Limits are the ones the scenario loader and the
// command line apply: a default taken, a value just past a bound refused.
#include "sim/base/limits.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using base::Limits;
using nlohmann::json;

TEST_CASE("a scenario's bounds come from base::Limits") {
  const std::string file = testing::ScenarioPath("setnx-naive.json");
  json doc = json::parse(testing::ReadText(file));
  REQUIRE(!doc.contains("max_steps"));
  CHECK(scenario::LoadScenario(doc, file).max_steps == Limits::kDefaultMaxSteps);

  doc["max_steps"] = Limits::kMaxSteps;
  CHECK(scenario::LoadScenario(doc, file).max_steps == Limits::kMaxSteps);
  doc["max_steps"] = Limits::kMaxSteps + 1;
  CHECK_THROWS_AS(scenario::LoadScenario(doc, file), base::InputError);
  doc.erase("max_steps");

  const int64_t start = doc["clock"]["start"];
  doc["clock"]["horizon"] = start + Limits::kMaxSpan;
  CHECK(scenario::LoadScenario(doc, file).world.horizon == start + Limits::kMaxSpan);
  doc["clock"]["horizon"] = start + Limits::kMaxSpan + 1;
  CHECK_THROWS_AS(scenario::LoadScenario(doc, file), base::InputError);
}

TEST_CASE("the command line's step and horizon bounds come from base::Limits") {
  const std::string file = testing::ScenarioPath("setnx-naive.json");
  auto r =
      testing::RunLockstep({"explore", file, "--max-steps", std::to_string(Limits::kMaxSteps + 1)});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(std::to_string(Limits::kMaxSteps)) != std::string::npos);
  r = testing::RunLockstep({"explore", file, "--horizon", std::to_string(Limits::kMaxSpan + 1)});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("to " + std::to_string(Limits::kMaxSpan)) != std::string::npos);
}

}  // namespace
}  // namespace lockstep
