// Locks on several servers: the counterexamples explore finds for a lost
// failover write and for Redlock (Kleppmann's scenarios, a process pause,
// fencing tokens) are pinned step by step, and each fault is shown to be
// needed: without it, or with Redlock's remedy, the same search is safe.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

scenario::Scenario LoadShipped(const std::string& file) {
  return scenario::LoadScenarioFile(testing::ScenarioPath(file));
}

// The scenario with another schedule (or other fields) put in its document.
scenario::Scenario LoadWith(const std::string& file, const json& changes) {
  const std::string path = testing::ScenarioPath(file);
  json doc = json::parse(scenario::ReadFile(path));
  doc.merge_patch(changes);
  return scenario::LoadScenario(doc, path);
}

trace::Trace ReplayWith(const std::string& file, const std::vector<std::string>& schedule) {
  return run::ReplaySchedule(LoadWith(file, {{"schedule", schedule}}));
}

// Kleppmann's schedules: C1 locks A and B, its request to C is lost and
// times out, C1 holds a majority; then the fault on B; then C2 locks A
// (refused), B and C.
std::vector<std::string> Kleppmann(const std::string& fault) {
  return {"C1", "C1", "lose-request C1", "tick", fault, "C2", "C2", "C2"};
}

explore::SearchResult Search(const scenario::Scenario& s) {
  return explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), {});
}

// Scripts show as their first line in a one-line trace.
const std::string kDelIfMine = "[if redis.call(\"get\",KEYS[1]) == ARGV[1] then ...]";
const std::string kSetWithToken =
    "[if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then ...]";

using testing::Has;

TEST_CASE("replica_failover: C1's lock dies with the master before it reaches the replica") {
  scenario::Scenario s = LoadShipped("replica-failover.json");
  trace::Trace t = run::ReplaySchedule(s);
  // Oracle: hand derivation of the scenario's schedule (C1's SET is not yet
  // replicated when S1 fails; S2 grants C2 the same lock). The tokens are
  // the seeded random source's and only guard against regressions.
  CHECK(trace::OneLine(t) ==
        "C1 @S1 SET lock.foo e4bacea5c4b9b499 NX PX 5 -> OK; failover S1; "
        "C2 @S2 SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> OK !mutual_exclusion(C1,C2)@3");
  // Replicated before the failover, the lock survives it.
  trace::Trace r = ReplayWith("replica-failover.json", {"C1", "replicate S1", "failover S1", "C2"});
  CHECK(!r.violation);
  CHECK(Has(trace::OneLine(r), "C2 @S2 SET lock.foo"));
  // No failover, no violation.
  s.world.faults.failover = 0;
  CHECK(Search(s).verdict == explore::Verdict::kSafe);
}

TEST_CASE("redlock_jump: a forward jump on one instance gives two majorities") {
  scenario::Scenario s = LoadShipped("redlock-jump.json");
  trace::Trace t = run::ReplaySchedule(s);
  // Oracle: hand derivation (Kleppmann's clock jump: B's jump expires C1's
  // key there, so C2 gets B and C); the tokens only guard against regressions.
  CHECK(trace::OneLine(t) ==
        "C1 @A SET lock.foo e4bacea5c4b9b499 NX PX 5 -> OK; "
        "C1 @B SET lock.foo e4bacea5c4b9b499 NX PX 5 -> OK; "
        "C2 @A SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> nil; tick; jump B +5; "
        "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> OK; "
        "C2 @C SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> OK; "
        "C1 @C SET lock.foo e4bacea5c4b9b499 NX PX 5 -> nil !mutual_exclusion(C1,C2)@8");
  // The search needs no lost request: C2 reaching C first does its work. Kleppmann's
  // form, with C1's request to C lost, is a violation too.
  trace::Trace k = ReplayWith("redlock-jump.json", Kleppmann("jump B +5"));
  REQUIRE(k.violation);
  CHECK(k.violation->property == "mutual_exclusion");
  CHECK(Has(trace::OneLine(k), "request lost"));
  // Within two ticks the jump still breaks it; without the jump it holds.
  s.world.horizon = 2;
  CHECK(Search(s).verdict == explore::Verdict::kViolation);
  s.world.faults.jump = 0;
  CHECK(Search(s).verdict == explore::Verdict::kSafe);
}

TEST_CASE("redlock_restart: an instance that restarts without persistence forgets C1's lock",
          "[sweep]") {
  scenario::Scenario s = LoadShipped("redlock-restart.json");
  trace::Trace t = run::ReplaySchedule(s);
  // Oracle: hand derivation (B restarts without persistence and forgets
  // C1's key); the tokens only guard against regressions.
  CHECK(trace::OneLine(t) ==
        "C1 @A SET lock.foo e4bacea5c4b9b499 NX PX 4 -> OK; "
        "C1 @B SET lock.foo e4bacea5c4b9b499 NX PX 4 -> OK; "
        "C2 @A SET lock.foo 3f4aa7cabeb88997 NX PX 4 -> nil; restart B; "
        "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 4 -> OK; "
        "C2 @C SET lock.foo 3f4aa7cabeb88997 NX PX 4 -> OK; "
        "C1 @C SET lock.foo e4bacea5c4b9b499 NX PX 4 -> nil !mutual_exclusion(C1,C2)@7");
  trace::Trace k = ReplayWith("redlock-restart.json", Kleppmann("restart B"));
  REQUIRE(k.violation);
  CHECK(k.violation->property == "mutual_exclusion");
  CHECK(Has(trace::OneLine(k), "request lost"));
  // With delayed restarts B does not answer C2 where C2 locked it above:
  // C2 times out, and Kleppmann's schedule cannot go on.
  std::vector<std::string> delayed = Kleppmann("restart B");
  delayed.pop_back();
  trace::Trace d = ReplayWith("redlock-restart-delayed.json", delayed);
  CHECK(trace::OneLine(d) ==
        "C1 @A SET lock.foo e4bacea5c4b9b499 NX PX 4 -> OK; "
        "C1 @B SET lock.foo e4bacea5c4b9b499 NX PX 4 -> OK; "
        "C1 @C SET lock.foo e4bacea5c4b9b499 NX PX 4 -> request lost; tick; restart B; "
        "C2 @A SET lock.foo 3f4aa7cabeb88997 NX PX 4 -> nil; "
        "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 4");
  // Within this horizon an instance restarted with the scenario's delay (5)
  // never comes back. A delay of 3 lets it come back at the horizon, once
  // C1's validity (TTL - drift = 2) has ended: safe. A delay of 2 is not:
  // C2, backing off a single tick, locks the restarted instance at clock 2,
  // the last tick of C1's validity.
  scenario::Scenario shorter = LoadShipped("redlock-restart-delayed.json");
  for (auto& server : shorter.world.servers) server.restart_delay = 3;
  CHECK(Search(shorter).verdict == explore::Verdict::kSafe);
  for (auto& server : shorter.world.servers) server.restart_delay = 2;
  CHECK(Search(shorter).verdict == explore::Verdict::kViolation);
}

TEST_CASE("redlock_stall: a client paused after its validity check still writes") {
  scenario::Scenario s = LoadShipped("redlock-stall.json");
  trace::Trace t = run::ReplaySchedule(s);
  // Regression guard: the trace of the scenario's schedule as recorded when
  // it was written, read by hand against the description (C1 holds all three
  // instances, C2's attempts fail, C1 stalls past its validity, C2 locks).
  CHECK(trace::OneLine(t) ==
        "C1 @A SET lock.foo e4bacea5c4b9b499 NX PX 5 -> OK; "
        "C1 @B SET lock.foo e4bacea5c4b9b499 NX PX 5 -> OK; "
        "C1 @C SET lock.foo e4bacea5c4b9b499 NX PX 5 -> OK; "
        "C2 @A SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> nil; "
        "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> nil; "
        "C2 @C SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> nil; "
        "C2 @A EVAL " +
            kDelIfMine +
            " 1 lock.foo 3f4aa7cabeb88997 -> 0; "
            "C2 @B EVAL " +
            kDelIfMine +
            " 1 lock.foo 3f4aa7cabeb88997 -> 0; tick; "
            "C2 @C EVAL " +
            kDelIfMine +
            " 1 lock.foo 3f4aa7cabeb88997 -> 0; tick; tick; stall C1; "
            "C2 @A SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> nil; tick; tick; "
            "C2 @B SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> OK; "
            "C2 @C SET lock.foo 3f4aa7cabeb88997 NX PX 5 -> OK !mutual_exclusion(C1,C2)@18");
}

TEST_CASE(
    "redlock_instance_tokens_stall: per-instance counters give the paused holder the larger "
    "token") {
  scenario::Scenario s = LoadShipped("redlock-instance-tokens-stall.json");
  trace::Trace t = run::ReplaySchedule(s);
  const std::string v1 = "e4bacea5c4b9b499", v2 = "3f4aa7cabeb88997";
  auto lock = [&](const std::string& c, const std::string& at, const std::string& reply) {
    return c + " @" + at + " EVAL " + kSetWithToken + " 2 lock.foo lock.foo:token " +
           (c == "C1" ? v1 : v2) + " 5 -> " + reply + "; ";
  };
  auto unlock = [&](const std::string& at, const std::string& reply) {
    return "C2 @" + at + " EVAL " + kDelIfMine + " 1 lock.foo " + v2 + " -> " + reply + "; ";
  };
  // Oracle: the hand derivation that follows.
  // C1 locks A and B (token 1 on each); C2's two failed attempts (the second
  // after a back-off of one tick) each lock C and raise C's counter to 2; C1
  // then locks C and takes its token, 3.
  // Paused, C1's locks expire; C2 locks A and B with token 2 and writes; C1's
  // late write with token 3 is accepted.
  CHECK(trace::OneLine(t) ==
        lock("C1", "A", "1") + lock("C1", "B", "1") + lock("C2", "A", "nil") +
            lock("C2", "B", "nil") + lock("C2", "C", "1") + unlock("A", "0") + unlock("B", "0") +
            unlock("C", "1") + "tick; C2 wakes; " + lock("C2", "A", "nil") +
            lock("C2", "B", "nil") + lock("C2", "C", "2") + unlock("A", "0") + unlock("B", "0") +
            unlock("C", "1") + lock("C1", "C", "3") + "tick; tick; stall C1; tick; tick; " +
            lock("C2", "A", "2") + lock("C2", "B", "2") + lock("C2", "C", "nil") +
            "C2 WRITE resource token=2 -> 1; C1 WRITE resource token=3 -> 1 "
            "!stale_write(C1,C2)@27");
  // The exhaustive search finds the stale write the replayed trace shows.
  const explore::SearchResult unfenced = Search(s);
  REQUIRE(unfenced.verdict == explore::Verdict::kViolation);
  CHECK(unfenced.violation->property == "stale_write");
  // redlock-fenced-stall, which scenario_verdicts_test searches whole and
  // finds safe, is this scenario with fencing tokens from a token server T
  // and nothing else changed.
  json fenced =
      LoadWith("redlock-instance-tokens-stall.json",
               {{"clients",
                 {{{"name", "C1"}, {"algorithm", "redlock-fenced"}},
                  {{"name", "C2"}, {"algorithm", "redlock-fenced"}}}},
                {"servers", {{{"name", "A"}}, {{"name", "B"}}, {{"name", "C"}}, {{"name", "T"}}}},
                {"lock", {{"token_server", "T"}}}})
          .document;
  json shipped = LoadShipped("redlock-fenced-stall.json").document;
  for (const char* label : {"name", "description", "expect"}) {
    fenced.erase(label);
    shipped.erase(label);
  }
  CHECK(fenced == shipped);
}

}  // namespace
}  // namespace lockstep
