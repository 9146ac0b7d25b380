// foreign_release follows ownership, not the last writer: a value belongs to
// the acquisition of the client that entered the critical section holding
// it. Each case is a scenario replayed step by step, then explored with and
// without reductions.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

explore::SearchResult Search(const scenario::Scenario& sc, explore::Reductions r) {
  explore::SearchOptions o;
  o.reductions = r;
  if (!r.cache) o.bounds.max_steps = 40;
  return explore::DepthFirstSearch(sc.world, explore::MakeProperties(sc.properties), o);
}

TEST_CASE("the owner's release after a losing GETSET wrote its value back is not foreign") {
  // The documented fix: C5's GETSET takes the expired lock over and C5
  // enters; C4's GETSET, at the same clock, writes the same timestamp back
  // and loses. C5's DEL then removes its own lock, though C4 wrote last.
  testing::TempDir dir;
  std::string text = testing::ReadText(testing::ScenarioPath("getset-docs-fix.json"));
  text.replace(text.find("\"expect\""), 0, "\"properties\": [\"foreign_release\"],\n  ");
  scenario::Scenario s = scenario::LoadScenarioFile(dir.Write("s.json", text));
  trace::Trace t = run::ReplaySchedule(s);
  INFO(trace::Timeline(t));
  // The GETSET race happened: C4 wrote C5's timestamp back while C5 held
  // it, and the value stayed C5's, then C5 released.
  bool c4_wrote_back = false;
  for (const auto& step : t.steps) {
    auto w = step.writers.find("lock.foo");
    c4_wrote_back |= step.actor == "C4" && !step.command.empty() && step.command[0] == "GETSET" &&
                     w != step.writers.end() && w->second == "C5" &&
                     !step.in_critical_section.empty();
  }
  CHECK(c4_wrote_back);
  CHECK_FALSE(t.violation);
  for (explore::Reductions r :
       {explore::Reductions{}, explore::Reductions{.symmetry = false, .por = false}}) {
    explore::SearchResult res = Search(s, r);
    CHECK(res.verdict == explore::Verdict::kSafe);
  }
}

TEST_CASE("a release that removes another client's acquired lock is still foreign") {
  // The GET-compare-DEL release: C1 compares, stalls past its TTL, C2
  // acquires, and C1's DEL removes C2's lock.
  scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("set-px-get-del-stall.json"));
  REQUIRE(s.expect.property == "foreign_release");
  for (explore::Reductions r :
       {explore::Reductions{}, explore::Reductions{.symmetry = false, .por = false}}) {
    explore::SearchResult res = Search(s, r);
    REQUIRE(res.verdict == explore::Verdict::kViolation);
    scenario::Scenario found = s;
    found.schedule = res.counterexample;
    trace::Trace t = run::ReplaySchedule(found);
    REQUIRE(t.violation);
    CHECK(t.violation->property == "foreign_release");
    CHECK(t.violation->message.find("was C2's lock") != std::string::npos);
  }
}

// C2 takes the lock and enters; C1, a careless client, first writes C2's
// value back unchanged with `touch`, then enters without holding anything.
// The value stays C2's: C1's entering claims nothing, and C2's DEL of its
// own lock is no foreign release.
nlohmann::json SameValueWrite(const std::string& touch) {
  const std::string c1 =
      "local k = lock.settings.key\n" + touch + "\nlock.enter(lock.now() + 1)\nlock.leave()\n";
  const std::string c2 = R"(local k = lock.settings.key
local r = redis.call("SET", k, "c2", "NX", "PX", 50)
if type(r) == "table" and r.ok then
  lock.enter(lock.now() + 50)
  lock.leave({"DEL", k})
end
)";
  nlohmann::json doc = {{"name", "same-value write"},
                        {"clients",
                         {{{"name", "C1"}, {"algorithm", {{"lua_inline", c1}}}},
                          {{"name", "C2"}, {"algorithm", {{"lua_inline", c2}}}}}},
                        {"lock", {{"key", "lock"}, {"ttl", 50}}},
                        {"clock", {{"start", 0}, {"horizon", 4}}},
                        {"properties", {"foreign_release"}},
                        {"expect", "safe"}};
  return doc;
}

TEST_CASE("a write that leaves the value as it was keeps its writer and owner, for every command",
          "[ghost]") {
  const std::vector<std::pair<const char*, std::string>> touches = {
      {"PEXPIRE", R"(redis.call("PEXPIRE", k, 100))"},
      {"EXPIRE", R"(redis.call("EXPIRE", k, 10))"},
      {"PEXPIREAT", R"(redis.call("PEXPIREAT", k, 100000))"},
      {"EXPIREAT", R"(redis.call("EXPIREAT", k, 100))"},
      {"PERSIST", R"(redis.call("PERSIST", k))"},
      {"SET KEEPTTL",
       R"(local v = redis.call("GET", k) if v then redis.call("SET", k, v, "KEEPTTL") end)"},
      {"GETSET", R"(local v = redis.call("GET", k) if v then redis.call("GETSET", k, v) end)"},
      {"a script",
       R"lua(redis.call("EVAL", "return redis.call('PEXPIRE', KEYS[1], 100)", 1, k))lua"},
  };
  for (const auto& [command, touch] : touches) {
    INFO(command);
    const scenario::Scenario s = scenario::LoadScenario(SameValueWrite(touch), "same.json");
    for (explore::Reductions r :
         {explore::Reductions{}, explore::Reductions{.symmetry = false, .por = false}}) {
      explore::SearchResult res = Search(s, r);
      if (!res.counterexample.empty()) {
        scenario::Scenario found = s;
        found.schedule = res.counterexample;
        INFO(trace::Timeline(run::ReplaySchedule(found)));
        CHECK(res.verdict == explore::Verdict::kSafe);
      }
      CHECK(res.verdict == explore::Verdict::kSafe);
    }
    // Replayed C2 (SET, enters), then C1 (the touch, enters): the key's
    // writer is still C2.
    nlohmann::json doc = SameValueWrite(touch);
    doc["schedule"] = {"C2", "C1"};
    const trace::Trace t = run::ReplaySchedule(scenario::LoadScenario(doc, "replayed.json"));
    INFO(trace::Timeline(t));
    REQUIRE(t.steps.size() >= 3);
    CHECK(t.steps[2].actor == "C1");
    CHECK(t.steps[2].writers.at("lock") == "C2");
  }
}

}  // namespace
}  // namespace lockstep
