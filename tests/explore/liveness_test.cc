// Liveness as lassos under weak fairness (docs/design.md, "Liveness"): the
// issue's false alarms are gone, the spinning waiter against an orphaned
// lock is found, starvation is told from deadlock, unfair cycles are not
// violations, and a lasso is judged again when it is recorded and replayed.
#include "sim/explore/liveness.h"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/diagram.h"
#include "sim/trace/render_svg.h"
#include "sim/world/client.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Verdict;
using world::Action;

const std::vector<std::string> kAll = {"deadlock_free", "starvation_free", "no_orphaned_lock"};

scenario::Scenario Load(const std::string& name) {
  return scenario::LoadScenarioFile(testing::ScenarioPath(name));
}

TEST_CASE("liveness: a crash between SETNX and PEXPIRE leaves an orphan, found as a lasso",
          "[explore][liveness]") {
  const scenario::Scenario s = Load("setnx-expire-orphan.json");
  const run::ExploreResult r = run::Explore(s);
  REQUIRE(r.search.verdict == Verdict::kViolation);
  REQUIRE(r.counterexample);
  const trace::Trace& t = r.counterexample->trace;
  CHECK(t.violation->property == "no_orphaned_lock");
  CHECK(t.violation->clients == std::vector<std::string>{"C1"});
  REQUIRE(t.lasso);
  // C1 sets the key and crashes; C2's SETNX and a tick repeat for ever.
  CHECK(t.lasso->start == 2);
  CHECK(t.lasso->length == 2);
  CHECK(t.schedule == std::vector<std::string>{"C1", "crash C1", "C2", "tick", "C2", "tick"});
  const std::string timeline = trace::Timeline(t);
  CHECK_THAT(timeline, Catch::Contains("~~ the cycle: steps 3 to 4 repeat for ever ~~"));
  CHECK_THAT(timeline, Catch::Contains("~~ the cycle again ~~"));
  // The pictures mark the two turns beside the step numbers.
  int turns[3] = {0, 0, 0};
  for (const trace::DiagramStep& st : trace::Layout(t).steps) ++turns[st.cycle_turn];
  CHECK(turns[1] == 2);
  CHECK(turns[2] == 2);
  CHECK_THAT(trace::RenderSvg(t), Catch::Contains("class=\"cycle\""));

  // Saved as lockstep-trace/3, read back and replayed: judged again.
  const nlohmann::json doc = nlohmann::json::parse(trace::ToJsonText(t));
  CHECK(doc["format"] == "lockstep-trace/3");
  CHECK(doc["lasso"] == nlohmann::json{{"start", 2}, {"length", 2}});
  const run::ReplayedTrace again = run::ReplaySavedTrace("lasso.json", doc);
  CHECK(trace::ToJson(again.trace, 3) == doc);
  // Written without a version, in its own: the lasso is kept.
  CHECK(trace::ToJson(t) == doc);

  // A lasso that does not return where it began is no lasso.
  nlohmann::json broken = doc;
  broken["lasso"]["length"] = 1;
  CHECK_THROWS_AS(run::ReplaySavedTrace("lasso.json", broken), base::InputError);
}

TEST_CASE("liveness: a waiter that sleeps between tries gives a lasso that is fair by itself",
          "[explore][liveness]") {
  // With a delay, the waiter is asleep in part of the cycle: a cycle through
  // only the states where it is ready, taking ticks and never its step, is
  // fair in the component but not by itself (it was recorded, and judged
  // again, as no violation).
  for (int delay : {1, 2, 3}) {
    INFO("retry_delay " << delay);
    nlohmann::json doc =
        nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("setnx-expire-orphan.json")));
    doc["lock"]["retry_delay"] = delay;
    const scenario::Scenario s = scenario::LoadScenario(doc, "orphan.json");
    const run::ExploreResult r = run::Explore(s);
    REQUIRE(r.search.verdict == Verdict::kViolation);
    REQUIRE(r.counterexample);
    const trace::Trace& t = r.counterexample->trace;
    CHECK(t.violation->property == "no_orphaned_lock");
    REQUIRE(t.lasso);
    // The cycle takes C2's step as well as the ticks it sleeps.
    const std::vector<std::string> cycle(t.schedule.begin() + t.lasso->start,
                                         t.schedule.begin() + t.lasso->start + t.lasso->length);
    CHECK(std::count(cycle.begin(), cycle.end(), "C2") == 1);
    CHECK(std::count(cycle.begin(), cycle.end(), "tick") == delay);
    const run::ReplayedTrace again =
        run::ReplaySavedTrace("lasso.json", nlohmann::json::parse(trace::ToJsonText(t)));
    CHECK(again.trace.violation == t.violation);
  }
}

TEST_CASE("liveness: every client is judged for starvation and not the first only",
          "[explore][liveness]") {
  // C1 crashed before the start, holding lock.foo without a TTL: C2, the
  // second client, spins on SETNX for ever, and it is the one that starves.
  const nlohmann::json doc = nlohmann::json::parse(R"({"name":"second-starves",
    "clients":[{"name":"C1","crashed":true},{"name":"C2","algorithm":"setnx-expire"}],
    "keyspace":[{"key":"lock.foo","value":"x","writer":"C1"}],
    "lock":{"key":"lock.foo","ttl":3,"retry_delay":0},
    "clock":{"start":0,"horizon":null},
    "properties":["mutual_exclusion","starvation_free"],"expect":"violation:starvation_free"})");
  const run::ExploreResult r = run::Explore(scenario::LoadScenario(doc, "second-starves.json"));
  REQUIRE(r.search.verdict == Verdict::kViolation);
  CHECK(r.search.violation->property == "starvation_free");
  CHECK(r.search.violation->clients == std::vector<std::string>{"C2"});
}

TEST_CASE("liveness: a key left behind by a client that let go is an orphan while it runs on",
          "[explore][liveness]") {
  // C1 sets the key, enters, leaves and lets go of the lock without
  // deleting it, then sleeps for ever: alive, and holding nothing.
  const nlohmann::json doc = nlohmann::json::parse(R"({"name":"left-behind",
    "clients":[{"name":"C1","algorithm":{"relative_time":true,"lua_inline":
      "redis.call('SET', 'lock.foo', 'x')\nlock.enter(lock.now() + 1)\nlock.leave()\nlock.forget()\nwhile true do lock.forget_history('idle', {}) lock.sleep(1) end\n"}}],
    "clock":{"start":0,"horizon":null},"properties":["no_orphaned_lock"],
    "expect":"violation:no_orphaned_lock"})");
  const run::ExploreResult r = run::Explore(scenario::LoadScenario(doc, "left-behind.json"));
  REQUIRE(r.search.verdict == Verdict::kViolation);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->trace.lasso);
  CHECK_THAT(r.search.violation->message,
             Catch::Contains("keeps the value C1 wrote, though C1 no longer holds the lock"));
}

TEST_CASE("liveness: no false alarm where a sleep crosses any clock value, crash or none",
          "[explore][liveness]") {
  // A correct lock, one crash, a waiter that sleeps: every client gets it.
  CHECK(run::Explore(Load("set-px-script-live.json")).search.verdict == Verdict::kSafe);
  // SETNX then PEXPIRE without a crash: nothing is ever left behind.
  scenario::Scenario expire = Load("setnx-expire-orphan.json");
  expire.world.faults.crash = 0;
  expire.properties = {"mutual_exclusion", "deadlock_free", "starvation_free", "no_orphaned_lock"};
  CHECK(run::Explore(expire).search.verdict == Verdict::kSafe);
  // The GETSET fix takes over the crashed C0's lock, for two and three.
  for (size_t n : {2, 3}) {
    scenario::Scenario fix = Load("getset-all-time.json");
    fix.world.clients.resize(n);
    fix.properties = {"mutual_exclusion", "deadlock_free", "starvation_free", "no_orphaned_lock"};
    INFO(n << " clients");
    CHECK(run::Explore(fix).search.verdict == Verdict::kSafe);
  }
}

// C1 takes the lock, releases it and takes it again, for ever; C2 tries.
void Greedy(world::Client& c) {
  for (;;) {
    c.ForgetHistory("acquire", {});
    while (!c.SetNx("k", "x")) c.ForgetHistory("acquire", {});
    c.EnterCriticalSection(c.Now() + 100);
    c.LeaveCriticalSection();
    c.Del("k");
    c.ForgetLock();
  }
}

world::WorldConfig TwoGreedy() {
  world::WorldConfig w;
  for (const char* name : {"C1", "C2"}) {
    world::ClientSetup c;
    c.name = name;
    c.algorithm = "greedy";
    c.relative_time = true;
    c.time_constants = 100;
    c.body = Greedy;
    w.clients.push_back(std::move(c));
  }
  w.horizon = std::nullopt;
  return w;
}

TEST_CASE("liveness: starvation is told from deadlock", "[explore][liveness]") {
  // Some client always gets the lock again: no deadlock. But a fair
  // schedule can give it to C1 every time C2 asks.
  const world::WorldConfig w = TwoGreedy();
  CHECK(explore::FindLasso(w, {"deadlock_free"}, true, 100'000).verdict == Verdict::kSafe);
  const explore::LassoSearch starve = explore::FindLasso(w, {"starvation_free"}, true, 100'000);
  REQUIRE(starve.verdict == Verdict::kViolation);
  CHECK(starve.violation->clients == std::vector<std::string>{"C1"});
  CHECK_THAT(starve.violation->message, Catch::Contains("C1 wants the lock and never acquires it"));
  // The cycle is fair: both clients step in it.
  bool steps[2] = {false, false};
  for (const Action& a : starve.cycle) {
    if (a.kind == Action::Kind::kStep) steps[a.client] = true;
  }
  CHECK(steps[0]);
  CHECK(steps[1]);
  // Judged again on its own, it shows the same violation.
  std::vector<Action> schedule = starve.prefix;
  for (int turn = 0; turn < 2; ++turn) {
    schedule.insert(schedule.end(), starve.cycle.begin(), starve.cycle.end());
  }
  CHECK(explore::JudgeLasso(w, schedule, starve.prefix.size(), starve.cycle.size(),
                            {"starvation_free"}) == starve.violation);
}

TEST_CASE("liveness: an unfair cycle is no violation", "[explore][liveness]") {
  // C1 holds the key without a TTL yet and could PEXPIRE it; a cycle in
  // which only C2 and the clock move leaves C1 ready for ever: unfair.
  scenario::Scenario s = Load("setnx-expire-orphan.json");
  s.world.faults.crash = 0;
  const std::vector<Action> schedule = {Action::Step(0), Action::Step(1), Action::Tick(),
                                        Action::Step(1), Action::Tick()};
  CHECK_FALSE(explore::JudgeLasso(s.world, schedule, 1, 2, kAll));
  // With C1 crashed instead, the same cycle is fair and the orphan real.
  const std::vector<Action> crashed = {Action::Step(0), Action::Crash(0), Action::Step(1),
                                       Action::Tick(),  Action::Step(1),  Action::Tick()};
  s.world.faults.crash = 1;
  const auto v = explore::JudgeLasso(s.world, crashed, 2, 2, {"no_orphaned_lock"});
  REQUIRE(v);
  CHECK(v->property == "no_orphaned_lock");
}

TEST_CASE("liveness: the verdict is the same from a start a million ticks later",
          "[explore][liveness]") {
  for (const char* name : {"setnx-expire-orphan.json", "set-px-script-live.json"}) {
    INFO(name);
    scenario::Scenario s = Load(name);
    const explore::LassoSearch a = explore::FindLasso(s.world, kAll, true, 100'000);
    s.world.start_time += 1'000'003;
    const explore::LassoSearch b = explore::FindLasso(s.world, kAll, true, 100'000);
    CHECK(a.verdict == b.verdict);
    CHECK(a.stats.states == b.stats.states);
    CHECK(a.prefix.size() == b.prefix.size());
    CHECK(a.cycle.size() == b.cycle.size());
  }
}

TEST_CASE("liveness: a horizon is refused, since it would cut executions short",
          "[explore][liveness]") {
  nlohmann::json doc =
      nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("set-px-script-live.json")));
  doc["clock"]["horizon"] = 10;
  try {
    scenario::LoadScenario(doc, "live.json");
    FAIL("expected the loader to refuse it");
  } catch (const base::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("/properties/1") &&
                             Catch::Contains("judged on infinite executions"));
  }
}

}  // namespace
}  // namespace lockstep
