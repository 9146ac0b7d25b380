// An algorithm registers itself in one file, as this test's does: the
// scenario loader, the explorer and the listing know it with nothing else
// changed.
#include <algorithm>

#include <catch2/catch.hpp>

#include "sim/algo/algorithm.h"
#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// SET NX PX, released by a plain DEL: a stall past the TTL lets the
// release remove another client's lock.
void RunPlainDelLock(world::Client& c, const algo::LockSettings& s) {
  const std::string token = c.RandomToken();
  for (;;) {
    c.ForgetHistory("acquire", {});
    if (c.Call({"SET", s.key, token, "NX", "PX", world::Value(s.ttl)}).type ==
        kv::Reply::Type::kStatus) {
      break;
    }
    c.Sleep(s.retry_delay);
  }
  algo::HoldLock(c, s, c.Now() + s.ttl, 0);
  c.LeaveCriticalSection();
  c.Del(s.key);
  c.ForgetLock();
}

LOCKSTEP_ALGORITHM(plain_del_lock_for_tests,
                   {.name = "test-plain-del",
                    .summary = "a test's own lock: SET NX PX; release by DEL",
                    .make = algo::MakeBody<RunPlainDelLock>});

TEST_CASE("an algorithm registered in its own file is listed, loaded and explored") {
  const algo::AlgorithmInfo* info = algo::FindAlgorithm("test-plain-del");
  REQUIRE(info != nullptr);
  CHECK(info->summary == "a test's own lock: SET NX PX; release by DEL");
  auto all = algo::Algorithms();
  CHECK(std::is_sorted(all.begin(), all.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));

  testing::TempDir tmp;
  scenario::Scenario s = scenario::LoadScenarioFile(tmp.Write("s.json", R"({
    "clients": [{"name": "C1", "algorithm": "test-plain-del"},
                {"name": "C2", "algorithm": "test-plain-del"}],
    "lock": {"ttl": 3},
    "clock": {"start": 0, "horizon": 8},
    "assumptions": {"max_arg_delay": 0, "holders_release_in_time": true},
    "faults": {"stall": 1, "stall_where": "releasing"},
    "properties": ["foreign_release"],
    "expect": "violation:foreign_release"})"));
  explore::SearchResult r =
      explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), {});
  CHECK(r.verdict == explore::Verdict::kViolation);
  // Without the stall it is safe.
  s.world.faults = {};
  r = explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), {});
  CHECK(r.verdict == explore::Verdict::kSafe);
}

TEST_CASE("a scenario naming an unknown algorithm lists the registered ones") {
  testing::TempDir tmp;
  CHECK_THROWS_WITH(scenario::LoadScenarioFile(
                        tmp.Write("s.json", R"({"clients": [{"name": "C1", "algorithm": "nope"}],
                      "clock": {"start": 0, "horizon": 1}, "expect": "safe"})")),
                    Catch::Matchers::Contains("test-plain-del"));
}

}  // namespace
}  // namespace lockstep
