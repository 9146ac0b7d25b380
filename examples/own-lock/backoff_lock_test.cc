// Regression tests of the backoff lock: safe where it should be, and the one
// way it is known to fail pinned step by step, so that a change to the lock
// that changes either is seen.
#define CATCH_CONFIG_MAIN
#include <lockstep/catch2.h>

namespace {

const std::string kScenarios = OWN_LOCK_SCENARIOS;

TEST_CASE("the backoff lock excludes when holders release in time") {
  REQUIRE_THAT(lockstep::Explore(kScenarios + "/backoff-safe.json"), lockstep::IsSafe());
}

TEST_CASE("a stall past the TTL lets a second client in, in this schedule") {
  const lockstep::ExploreResult r = lockstep::Explore(kScenarios + "/backoff-stall.json");
  REQUIRE_THAT(r, lockstep::Violates("mutual_exclusion"));
  CHECK_THAT(r, lockstep::HasCounterexample(
                    "C1 SET lock.foo e4bacea5c4b9b499 NX PX 3 -> OK; tick; tick; tick; stall C1; "
                    "C2 SET lock.foo 3f4aa7cabeb88997 NX PX 3 -> OK !mutual_exclusion(C1,C2)@6"));
}

TEST_CASE("the lock's own settings are checked against its declaration") {
  lockstep::Scenario s = lockstep::LoadScenarioFile(kScenarios + "/backoff-safe.json");
  nlohmann::json doc = s.document;
  doc["lock"]["max_delay"] = 0;
  REQUIRE_THROWS_WITH(lockstep::LoadScenario(doc, "edited.json"),
                      Catch::Matchers::Contains("at /lock/max_delay: expected an integer in "
                                                "[1, 1000], got number 0"));
}

}  // namespace
