// An algorithm registers itself in one file, as this test's does, with the
// settings it declares: the scenario loader, the explorer and the listing
// know it with nothing else changed.
#include <algorithm>

#include <catch2/catch.hpp>

#include "sim/algo/algorithm.h"
#include "sim/algo/lock_settings.h"
#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// SET NX PX, released by a plain DEL: a stall past the TTL lets the
// release remove another client's lock.
void RunPlainDelLock(world::Client& c, const algo::Settings& s) {
  const std::string& key = s.String("key");
  const int64_t ttl = s.Int("test_lease");
  const std::string token = c.RandomToken();
  for (;;) {
    c.ForgetHistory("acquire", {});
    if (c.Call({"SET", key, token, "NX", "PX", world::Value(ttl)}).type ==
        kv::Reply::Type::kStatus) {
      break;
    }
    c.Sleep(1);
  }
  algo::HoldLock(c, s.world.write_resource, c.Now() + ttl, 0);
  c.LeaveCriticalSection();
  c.Del(key);
  c.ForgetLock();
}

// A setting of the shipped algorithms, and one of its own.
constexpr algo::Setting kPlainDelSettings[] = {
    algo::kKeySetting,
    {.name = "test_lease", .help = "the lock's PX", .min = 1, .max = 50, .default_value = 4}};

LOCKSTEP_ALGORITHM(plain_del_lock_for_tests,
                   {.name = "test-plain-del",
                    .summary = "a test's own lock: SET NX PX; release by DEL",
                    .make = algo::MakeBody<RunPlainDelLock>,
                    .settings = kPlainDelSettings});

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
    "lock": {"test_lease": 3},
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

TEST_CASE("an algorithm's declared settings are read, checked and make its symmetry key") {
  testing::TempDir tmp;
  auto load = [&](const std::string& lock, const std::string& c2_lock) {
    return scenario::LoadScenarioFile(tmp.Write("s.json", R"({
      "clients": [{"name": "C1", "algorithm": "test-plain-del"},
                  {"name": "C2", "algorithm": "test-plain-del", "lock": )" +
                                                              c2_lock + R"(}],
      "lock": )" + lock + R"(, "clock": {"start": 0, "horizon": 8}, "expect": "safe"})"));
  };
  // The default, the shared value and a client's own value.
  scenario::Scenario s = load("{}", "{}");
  CHECK(s.world.clients[0].settings == s.world.clients[1].settings);
  CHECK_THAT(s.world.clients[0].settings, Catch::Matchers::Contains("test_lease=4 "));
  s = load(R"({"test_lease": 7, "key": "k"})", R"({"test_lease": 9})");
  CHECK_THAT(s.world.clients[0].settings, Catch::Matchers::Contains("test_lease=7 "));
  CHECK_THAT(s.world.clients[0].settings, Catch::Matchers::Contains("key=1:k "));
  CHECK_THAT(s.world.clients[1].settings, Catch::Matchers::Contains("test_lease=9 "));
  // Settings of other algorithms are not part of this one's key.
  s = load(R"({"timeout": 5})", R"({"timeout": 6})");
  CHECK(s.world.clients[0].settings == s.world.clients[1].settings);
  // Checked against the declaration, with the loader's usual messages.
  CHECK_THROWS_WITH(load(R"({"test_lease": 51})", "{}"),
                    Catch::Matchers::Contains(
                        "at /lock/test_lease: expected an integer in [1, 50], got number 51"));
  CHECK_THROWS_WITH(
      load("{}", R"({"test_lease": true})"),
      Catch::Matchers::Contains("at /clients/1/lock/test_lease: expected an integer"));
  CHECK_THROWS_WITH(load(R"({"test_leese": 1})", "{}"),
                    Catch::Matchers::Contains("unknown field \"test_leese\"") &&
                        Catch::Matchers::Contains("test_lease"));
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
