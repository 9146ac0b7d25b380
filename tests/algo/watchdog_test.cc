// Watchdog locks renew their lease while they hold it (Client::Renew,
// lock.renew): the clock is bound by the latest validity, not the first; a
// renewal by compare-and-extend survives a stall between two jobs and one by
// plain PEXPIRE lets two clients in; the shipped Lua lock and the same steps
// in C++ give the same states.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"
#include "sim/world/client.h"
#include "sim/world/model.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

std::string Example(const std::string& file) {
  return testing::SourceDir() + "/examples/lua/" + file;
}

// examples/lua/watchdog.lua, step for step, in C++.
void RunWatchdog(world::Client& c, bool pexpire) {
  static constexpr const char* kCompareAndExtend =
      "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
      "    return redis.call(\"pexpire\",KEYS[1],ARGV[2])\n"
      "else\n    return 0\nend";
  static constexpr const char* kCompareAndDelete =
      "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
      "    return redis.call(\"del\",KEYS[1])\n"
      "else\n    return 0\nend";
  const std::string key = "lock.foo";
  const world::Millis ttl = 3;
  const int jobs = 2;
  const world::Millis work = 2, gap = 2;
  world::Millis valid = 0;
  auto sleep_within_lease = [&](world::Millis n) { c.Sleep(std::min(n, valid - c.Now())); };
  auto renew = [&](const std::string& token) {
    const kv::Reply r =
        pexpire ? c.Call({"PEXPIRE", key, world::Value(ttl)})
                : c.Call({"EVAL", kCompareAndExtend, "1", key, token, world::Value(ttl)});
    if (r.type != kv::Reply::Type::kInteger || r.integer != 1) return false;
    valid = c.Now() + ttl;
    c.Renew(valid);
    return true;
  };
  const int round = 0;
  const std::string token = c.RandomToken();
  for (;;) {
    c.ForgetHistory("acquire", {round});
    const kv::Reply r = c.Call({"SET", key, token, "NX", "PX", world::Value(ttl)});
    if (r.type == kv::Reply::Type::kStatus) break;
    c.Sleep(1);
  }
  valid = c.Now() + ttl;
  c.EnterCriticalSection(valid);
  bool held = true;
  for (int job = 1; job <= jobs; ++job) {
    c.ForgetHistory("job", {round, job}, {valid});
    if (job > 1) {
      sleep_within_lease(gap);
      if (!renew(token)) {
        held = false;
        break;
      }
      c.EnterCriticalSection(valid);
    }
    sleep_within_lease(work);
    held = renew(token);
    c.LeaveCriticalSection();
    if (!held) break;
  }
  if (held) c.Call({"EVAL", kCompareAndDelete, "1", key, token});
  c.ForgetLock();
}

TEST_CASE(
    "a watchdog renewing by compare-and-extend survives a stall between jobs for all time, and "
    "one renewing by plain PEXPIRE lets two clients in",
    "[watchdog][sweep]") {
  const run::ExploreResult script =
      run::Explore(scenario::LoadScenarioFile(Example("watchdog-script-stall.json")));
  CHECK(script.search.verdict == explore::Verdict::kSafe);
  CHECK(script.never_entered.empty());
  CHECK(script.stuck_states == 0);

  const run::ExploreResult pexpire =
      run::Explore(scenario::LoadScenarioFile(Example("watchdog-pexpire-stall.json")));
  REQUIRE(pexpire.search.verdict == explore::Verdict::kViolation);
  REQUIRE(pexpire.counterexample);
  const trace::Trace& t = pexpire.counterexample->trace;
  CHECK(t.violation->property == "mutual_exclusion");
  // Hand derivation: C1 takes the lock, works 2 ticks, renews (until 5),
  // leaves, waits for its next job, stalls past 5; the key expires, C2
  // takes it, and C1's PEXPIRE finds a key (C2's) and says 1: C1 enters.
  // No shorter execution exists: the stall needs C1's lease to run out.
  const std::string line = trace::OneLine(t);
  INFO(line);
  CHECK(line ==
        "C1 SET lock.foo e4bacea5c4b9b499 NX PX 3 -> OK; tick; tick; C1 PEXPIRE lock.foo 3 -> 1; "
        "C1 leaves; tick; tick; tick; stall C1; C2 SET lock.foo 3f4aa7cabeb88997 NX PX 3 -> OK; "
        "C1 PEXPIRE lock.foo 3 -> 1 !mutual_exclusion(C1,C2)@11");

  // C1's renewal after its stall is a lease of its own again: the clock is
  // bound by it (until 9 on C1's clock), and the stall is spent.
  const scenario::Scenario s = scenario::LoadScenarioFile(Example("watchdog-pexpire-stall.json"));
  world::Model model(s.world, true);
  world::WorldState state = model.Initial();
  for (const world::Action& a : pexpire.search.counterexample) model.Apply(state, a, nullptr);
  CHECK(state.clients[0].valid_until == 9);
  CHECK_FALSE(state.clients[0].stalled);
  std::string why;
  state.now = 9;
  CHECK_FALSE(model.IsEnabled(state, world::Action::Tick(), &why));
  CHECK(Has(why, "C1 still holds the lock and must release it before its clock passes 9"));
}

TEST_CASE(
    "a watchdog's plain PEXPIRE renews a lease another client took and its compare-and-extend "
    "never does in all time",
    "[watchdog][sweep]") {
  // The shipped watchdogs, asked only whether a lease is renewed after it
  // was lost (lost_lease_renewed): the PEXPIRE that extends C2's key tells
  // C1 it still holds the lock, at the step that let C1 in above.
  auto asked = [](const std::string& file) {
    json doc = json::parse(testing::ReadText(Example(file)));
    doc["properties"] = {"lost_lease_renewed"};
    doc.erase("expect");
    return run::Explore(scenario::LoadScenario(doc, Example(file)));
  };
  const run::ExploreResult script = asked("watchdog-script-stall.json");
  CHECK(script.search.verdict == explore::Verdict::kSafe);
  CHECK(script.never_entered.empty());
  const run::ExploreResult pexpire = asked("watchdog-pexpire-stall.json");
  REQUIRE(pexpire.counterexample);
  const trace::Trace& t = pexpire.counterexample->trace;
  CHECK(t.violation->message ==
        "C1's lease was renewed after C2 had acquired the lock: it lost the lock and was not told");
  CHECK(trace::OneLine(t) ==
        "C1 SET lock.foo e4bacea5c4b9b499 NX PX 3 -> OK; tick; tick; C1 PEXPIRE lock.foo 3 -> 1; "
        "C1 leaves; tick; tick; tick; stall C1; C2 SET lock.foo 3f4aa7cabeb88997 NX PX 3 -> OK; "
        "C1 PEXPIRE lock.foo 3 -> 1 !lost_lease_renewed(C1,C2)@11");
}

TEST_CASE("the clock is bound by a holder's latest validity: without lock.renew it stops",
          "[watchdog]") {
  testing::TempDir tmp;
  json doc = json::parse(testing::ReadText(Example("watchdog-script-stall.json")));
  doc.erase("faults");
  const std::string source = testing::ReadText(Example("watchdog.lua"));
  const std::string renewing = tmp.Write("watchdog.lua", source);
  const run::ExploreResult renewed =
      run::Explore(scenario::LoadScenarioFile(tmp.Write("renewed.json", doc.dump(2))));
  CHECK(renewed.safe());
  CHECK(renewed.stuck_states == 0);

  // The same lock that renews its lease in Redis but never says so: the
  // clock stops at the first validity, and the jobs never finish.
  const std::string call = "  lock.renew(valid)\n";
  REQUIRE(Has(source, call));
  std::string silent = source;
  silent.replace(silent.find(call), call.size(), "");
  tmp.Write("silent.lua", silent);
  for (json& c : doc["clients"]) c["algorithm"]["lua"] = "silent.lua";
  const run::ExploreResult stopped =
      run::Explore(scenario::LoadScenarioFile(tmp.Write("silent.json", doc.dump(2))));
  CHECK(stopped.safe());
  CHECK(stopped.stuck_states > 0);
  REQUIRE(stopped.stuck);
  CHECK(Has(stopped.stuck->trace.violation->message,
            "must release it before its clock passes 3 (holders_release_in_time)"));
}

TEST_CASE("the Lua watchdog and the same steps in C++ give the same states", "[watchdog]") {
  for (const bool pexpire : {false, true}) {
    INFO((pexpire ? "pexpire" : "script"));
    scenario::Scenario s = scenario::LoadScenarioFile(
        Example(pexpire ? "watchdog-pexpire-stall.json" : "watchdog-script-stall.json"));
    s.world.horizon = 12;  // exact counts: no time window to differ by
    const explore::Properties props = explore::MakeProperties(s.properties);
    const explore::SearchResult lua = explore::DepthFirstSearch(s.world, props, {});
    for (world::ClientSetup& c : s.world.clients) {
      c.body = [pexpire](world::Client& client) { RunWatchdog(client, pexpire); };
    }
    const explore::SearchResult cpp = explore::DepthFirstSearch(s.world, props, {});
    CHECK(lua.verdict == (pexpire ? explore::Verdict::kViolation : explore::Verdict::kSafe));
    CHECK(cpp.verdict == lua.verdict);
    CHECK(cpp.stats.states == lua.stats.states);
    CHECK(cpp.stats.transitions == lua.stats.transitions);
    CHECK(cpp.counterexample == lua.counterexample);
  }
}

// A worker whose work outlasts its lease, then renews with a plain PEXPIRE
// (which extends whoever's key is there) and writes an unfenced resource.
constexpr const char* kOverrunningWorker = R"(local s = lock.settings
local r = redis.pcall("SET", s.key, lock.random_token(), "NX", "PX", s.ttl)
if type(r) == "table" and r.ok then
  lock.enter(lock.now() + s.ttl)
  lock.sleep(2)
  if redis.pcall("PEXPIRE", s.key, s.ttl) == 1 then
    lock.renew(lock.now() + s.ttl)
    lock.write_resource(0)
  end
  lock.leave()
end
lock.forget()
)";

TEST_CASE("a renewal keeps the acquisition it renews: a stale write after it is found",
          "[watchdog]") {
  // A renewal only moves the validity: C2 acquired after C1 whatever C1's
  // PEXPIRE extended, so C1's write after C2's is stale.
  const json algorithm = {
      {"lua_inline", kOverrunningWorker}, {"relative_time", true}, {"never_reads_tokens", true}};
  json doc = {
      {"name", "renewed-stale-write"},
      {"clients",
       {{{"name", "C1"}, {"algorithm", algorithm}}, {{"name", "C2"}, {"algorithm", algorithm}}}},
      {"lock", {{"ttl", 1}}},
      {"clock", {{"start", 0}, {"horizon", 6}}},
      {"properties", {"stale_write"}},
      {"expect", "violation:stale_write"}};
  for (const bool all_time : {false, true}) {
    INFO((all_time ? "all time" : "horizon 6"));
    if (all_time) doc["clock"]["horizon"] = nullptr;
    // Breadth-first for all time, as explore's default is.
    run::ExploreOptions options;
    options.strategy = all_time ? "bfs" : "dfs";
    const run::ExploreResult r = run::Explore(scenario::LoadScenario(doc, "renewed.json"), options);
    CHECK(r.search.verdict == explore::Verdict::kViolation);
    if (!r.counterexample) continue;  // the other bound is still asked
    const trace::Trace& t = r.counterexample->trace;
    CHECK(t.violation->property == "stale_write");
    const std::string line = trace::OneLine(t);
    INFO(line);
    CHECK(t.schedule.size() == 10);
    CHECK(line ==
          "C1 SET lock.foo e4bacea5c4b9b499 NX PX 1 -> OK; tick; tick; C2 SET lock.foo "
          "3f4aa7cabeb88997 NX PX 1 -> OK; tick; C1 PEXPIRE lock.foo 1 -> 1; tick; C2 PEXPIRE "
          "lock.foo 1 -> 1; C2 WRITE resource token=0 -> 1; C1 WRITE resource token=0 -> 1 "
          "!stale_write(C1,C2)@10");
  }
}

TEST_CASE("max_hold_ticks counts from the acquisition and not from the latest renewal",
          "[watchdog]") {
  // C1 holds from 0, renews at 1 and works on to 3: a hold of 3 ticks,
  // which max_hold_ticks 2 forbids, so the clock stops at 2.
  constexpr const char* kLongHolder = R"(local s = lock.settings
local r = redis.pcall("SET", s.key, lock.random_token(), "NX", "PX", s.ttl)
if type(r) == "table" and r.ok then
  lock.enter(lock.now() + s.ttl)
  lock.sleep(1)
  if redis.pcall("PEXPIRE", s.key, s.ttl) == 1 then lock.renew(lock.now() + s.ttl) end
  lock.sleep(2)
  lock.leave({"DEL", s.key})
end
lock.forget()
)";
  const json doc = {
      {"name", "renewed-long-hold"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm",
          {{"lua_inline", kLongHolder}, {"relative_time", true}, {"never_reads_tokens", true}}}}}},
      {"lock", {{"ttl", 3}}},
      {"clock", {{"start", 0}, {"horizon", nullptr}}},
      {"assumptions", {{"max_hold_ticks", 2}}},
      {"properties", {"mutual_exclusion", "no_stuck_states"}},
      {"expect", "violation:no_stuck_states"}};
  run::ExploreOptions options;
  options.strategy = "bfs";
  const run::ExploreResult r = run::Explore(scenario::LoadScenario(doc, "long-hold.json"), options);
  REQUIRE(r.search.verdict == explore::Verdict::kViolation);
  REQUIRE(r.counterexample);
  const trace::Trace& t = r.counterexample->trace;
  CHECK(t.violation->property == "no_stuck_states");
  CHECK(
      Has(t.violation->message, "C1 still holds the lock, acquired at 0, and max_hold_ticks is 2"));
  CHECK(trace::OneLine(t) ==
        "C1 SET lock.foo e4bacea5c4b9b499 NX PX 3 -> OK; tick; C1 PEXPIRE lock.foo 3 -> 1; tick "
        "!no_stuck_states(C1)@4");
}

}  // namespace
}  // namespace lockstep
