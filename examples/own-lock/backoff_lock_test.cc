// Regression tests of the backoff lock: safe where it should be, and the one
// way it is known to fail pinned step by step, so that a change to the lock
// that changes either is seen. The same file builds with Catch2 2 and 3
// (CMakeLists.txt: lockstep_link_catch2).
#define CATCH_CONFIG_MAIN  // Catch2 2 takes its main from here; 3 ignores it
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

// The same scenario written in C++: no file, and no "expect" to know first.
TEST_CASE("the stall, written with ScenarioBuilder, finds the same counterexample") {
  const lockstep::ExploreResult r = lockstep::Explore(lockstep::ScenarioBuilder()
                                                          .Clients(2, "backoff-lock")
                                                          .Ttl(3)
                                                          .Lock("first_delay", 1)
                                                          .Lock("max_delay", 2)
                                                          .Horizon(8)
                                                          .HoldersReleaseInTime()
                                                          .Stall(1));
  CHECK_THAT(r, lockstep::HasCounterexample(
                    "C1 SET lock.foo e4bacea5c4b9b499 NX PX 3 -> OK; tick; tick; tick; stall C1; "
                    "C2 SET lock.foo 3f4aa7cabeb88997 NX PX 3 -> OK !mutual_exclusion(C1,C2)@6"));
}

TEST_CASE("the lock's own settings are checked against its declaration") {
  const lockstep::ScenarioBuilder bad =
      lockstep::ScenarioBuilder().Clients(2, "backoff-lock").Lock("max_delay", 0).Horizon(8);
  std::string message;
  try {
    bad.Build();
  } catch (const lockstep::InputError& e) {
    message = e.what();
  }
  CHECK(message ==
        "ScenarioBuilder: at /lock/max_delay: expected an integer in [1, 1000], got number 0");
}

}  // namespace
