// Partial-order reduction against the ghost state properties read, and the
// order a replication backlog keeps: cases where steps to different servers,
// or to different keys, do not commute. Each truth here comes from plain
// enumeration in the same test (no caching, no reduction).
#include <algorithm>

#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Fingerprint;

scenario::Scenario Load(const testing::TempDir& dir, const std::string& text) {
  return scenario::LoadScenarioFile(dir.Write("s.json", text));
}

explore::SearchResult Search(const scenario::Scenario& sc, explore::Reductions r, int jobs = 1,
                             bool collect = false) {
  explore::SearchOptions o;
  o.reductions = r;
  o.jobs = jobs;
  o.collect_states = collect;
  if (!r.cache) o.bounds.max_steps = 40;
  explore::SearchResult res =
      explore::DepthFirstSearch(sc.world, explore::MakeProperties(sc.properties), o);
  std::sort(res.states.begin(), res.states.end(), [](const Fingerprint& x, const Fingerprint& y) {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  });
  return res;
}

// C1 (Redlock, fencing token = the largest INCR among the instances it
// locked) and C2 (a fenced single-instance lock on A) enter the critical
// section after steps on different servers. Who entered last decides
// whether C1's later write is stale: "C2 enters, then C1 enters" must be
// explored although the two steps commute at the servers.
constexpr const char* kStaleWrite = R"({"name":"por-stale-write",
  "clients":[{"name":"C1","algorithm":"redlock-instance-tokens"},{"name":"C2","algorithm":"fenced-set-px"}],
  "lock":{"ttl":3},
  "servers":[{"name":"A"},{"name":"B"}],
  "clock":{"start":0,"horizon":0},
  "faults":{"jump":1,"jump_by":[4]},
  "resource":{"fenced":true},
  "properties":["stale_write"],"expect":"violation:stale_write"})";

TEST_CASE("every search mode finds the stale write that two entries on different servers allow") {
  testing::TempDir dir;
  scenario::Scenario sc = Load(dir, kStaleWrite);
  explore::Reductions plain{
      .cache = false, .symmetry = false, .por = false, .forget_history = false};
  explore::SearchResult truth = Search(sc, plain);
  REQUIRE(truth.verdict == explore::Verdict::kViolation);
  REQUIRE(truth.violation->property == "stale_write");
  for (bool symmetry : {true, false}) {
    for (bool por : {true, false}) {
      for (int jobs : {1, 2}) {
        INFO("symmetry " << symmetry << ", por " << por << ", jobs " << jobs);
        explore::SearchResult r = Search(sc, {.symmetry = symmetry, .por = por}, jobs);
        CHECK(r.verdict == explore::Verdict::kViolation);
        CHECK((r.violation && r.violation->property == "stale_write"));
      }
    }
  }
}

TEST_CASE("sleep sets keep every state whose ghost data records who acquired after whom") {
  // Up to the step before the violation: every state, ghost data included.
  testing::TempDir dir;
  scenario::Scenario sc = Load(dir, kStaleWrite);
  auto states = [&](bool por) {
    explore::SearchOptions o;
    o.reductions = {.symmetry = false, .por = por};
    o.bounds.max_steps = 5;
    o.collect_states = true;
    explore::SearchResult r =
        explore::DepthFirstSearch(sc.world, explore::MakeProperties(sc.properties), o);
    CHECK(r.verdict == explore::Verdict::kIncomplete);
    std::sort(r.states.begin(), r.states.end(), [](const Fingerprint& x, const Fingerprint& y) {
      return std::tie(x.a, x.b) < std::tie(y.a, y.b);
    });
    return r.states;
  };
  CHECK(states(true) == states(false));
}

TEST_CASE("sleep sets keep the order of writes a master logs for its replica") {
  // C1 and C2 lock different keys on a master with a live replica: their
  // SETs commute on the master's keyspace, but the backlog records them in
  // order, and the replica applies them in that order.
  testing::TempDir dir;
  scenario::Scenario sc = Load(dir, R"({"name":"replicated-different-keys",
    "clients":[{"name":"C1","algorithm":"set-px-script","lock":{"key":"a"}},
               {"name":"C2","algorithm":"set-px-script","lock":{"key":"b"}},
               {"name":"C3","algorithm":"set-px-script","lock":{"key":"a"}}],
    "lock":{"ttl":3},
    "servers":[{"name":"S1"},{"name":"S2","replica_of":"S1"}],
    "clock":{"start":0,"horizon":1},
    "properties":["foreign_release"],"expect":"safe"})");
  // With foreign_release, entering already keeps a SET ordered (it makes
  // the values its lock); with no_stuck_states, which reads no ghost
  // state, only the log does.
  for (const char* property : {"foreign_release", "no_stuck_states"}) {
    INFO(property);
    sc.properties = {property};
    explore::SearchResult with = Search(sc, {.symmetry = false, .por = true}, 1, true);
    explore::SearchResult without = Search(sc, {.symmetry = false, .por = false}, 1, true);
    REQUIRE(with.verdict == explore::Verdict::kSafe);
    CHECK(with.states.size() > 1000);
    CHECK(with.states == without.states);
    // Sleep sets still prune transitions here.
    CHECK(with.stats.transitions < without.stats.transitions);
  }
}

TEST_CASE("sleep sets keep a step that enters before another client's write to another server",
          "[explore][por]") {
  // C2's SET on B enters and makes its value on A its lock; C1's DEL on A
  // then removes that lock. The two reach different servers, yet swapped
  // the DEL removes a value that is no one's lock yet.
  const scenario::Scenario sc = scenario::LoadScenarioFile(
      testing::SourceDir() + "/tests/soundness/regressions/por-enter-then-release-elsewhere.json");
  for (bool por : {true, false}) {
    INFO("por " << por);
    explore::SearchResult r = Search(sc, {.symmetry = false, .por = por});
    CHECK(r.verdict == explore::Verdict::kViolation);
    CHECK((r.violation && r.violation->property == "foreign_release"));
  }
  const run::ExploreResult found = run::Explore(sc);
  REQUIRE(found.search.verdict == explore::Verdict::kViolation);
  REQUIRE(found.counterexample);
  const trace::Trace& t = found.counterexample->trace;
  INFO(trace::OneLine(t));
  CHECK(t.schedule.size() == 8);
  CHECK(testing::Has(trace::OneLine(t),
                     "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 1 -> OK; C1 @A DEL lock.foo -> 1 "
                     "!foreign_release(C1,C2)@8"));
}

TEST_CASE("sleep sets keep a step that enters before another client's renewal on another server",
          "[explore][por]") {
  // C2's SET on B enters and marks C1, which still holds, as acquired
  // after; C1's PEXPIRE on A then renews a lease it lost. Swapped, C1
  // renews before anyone else acquired: the two steps reach different
  // servers, yet their order decides lost_lease_renewed.
  const scenario::Scenario sc = scenario::LoadScenarioFile(
      testing::SourceDir() + "/tests/soundness/regressions/por-enter-then-renew-elsewhere.json");
  for (bool por : {true, false}) {
    INFO("por " << por);
    explore::SearchResult r = Search(sc, {.symmetry = false, .por = por});
    CHECK(r.verdict == explore::Verdict::kViolation);
    CHECK((r.violation && r.violation->property == "lost_lease_renewed"));
  }
  const run::ExploreResult found = run::Explore(sc);
  REQUIRE(found.search.verdict == explore::Verdict::kViolation);
  REQUIRE(found.counterexample);
  const trace::Trace& t = found.counterexample->trace;
  INFO(trace::OneLine(t));
  CHECK(t.schedule.size() == 7);
  CHECK(
      testing::Has(trace::OneLine(t),
                   "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 1 -> OK; C1 @A PEXPIRE lock.foo 1 -> "
                   "1 !lost_lease_renewed(C1,C2)@7"));
}

}  // namespace
}  // namespace lockstep
