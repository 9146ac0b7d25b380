// Faults are explored actions within a budget, overridable from the command
// line, shown in traces and counted.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;
using testing::ScenarioPath;

TEST_CASE("the faults option overrides the scenario's budget") {
  testing::TempDir tmp;
  auto r = RunLockstep(
      {"explore", ScenarioPath("set-px-script-safe.json"), "--json", "--out", tmp.path().string()});
  CHECK(r.exit_code == 0);
  r = RunLockstep({"explore", ScenarioPath("set-px-script-safe.json"), "--faults", "stall=1",
                   "--json", "--out", tmp.path().string()});
  CHECK(r.exit_code == 1);
  json j = json::parse(r.out);
  bool stalled = false;
  for (const auto& a : j["counterexample"]["schedule"])
    stalled |= a.get<std::string>().starts_with("stall ");
  CHECK(stalled);
  // A lost reply makes a client retry a lock it already holds: no harm to
  // mutual exclusion.
  r = RunLockstep({"explore", ScenarioPath("set-px-script-safe.json"), "--faults", "lose=1",
                   "--json", "--out", tmp.path().string()});
  CHECK(r.exit_code == 0);
  r = RunLockstep({"explore", ScenarioPath("set-px-script-safe.json"), "--faults", "crash=x"});
  CHECK(r.exit_code == 2);
}

TEST_CASE("every kind of fault is shown in the trace and its timeline") {
  const std::pair<const char*, const char*> cases[] = {
      {"set-px-script-stall.json", "stall C1"},
      {"clock-jump.json", "jump +4"},
      {"restart-none.json", "restart"},
  };
  for (const auto& [file, line] : cases) {
    INFO(file);
    scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath(file));
    trace::Trace t = run::ReplaySchedule(s);
    CHECK(trace::OneLine(t).find(line) != std::string::npos);
    REQUIRE(t.violation);
    CHECK(t.violation->property == s.expect.property);
  }
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath("set-px-script-stall.json"));
  CHECK(trace::Timeline(run::ReplaySchedule(s)).find("STALLS") != std::string::npos);
  // A crash ends in no violation of its own: the lock it leaves is judged
  // on infinite executions (setnx-expire-crash.json).
  scenario::Scenario crash = scenario::LoadScenarioFile(ScenarioPath("setnx-expire-crash.json"));
  for (const char* a : {"C1", "crash C1", "C2"}) {
    crash.schedule.push_back(world::ParseAction(a, {"C1", "C2"}, {"A"}));
  }
  crash.has_schedule = true;
  const trace::Trace t = run::ReplaySchedule(crash);
  CHECK(trace::OneLine(t).find("crash C1") != std::string::npos);
  CHECK(trace::Timeline(t).find("CRASHES") != std::string::npos);
}

TEST_CASE("a lost request and a lost reply both look like a timeout to the client") {
  scenario::Scenario s = scenario::LoadScenarioFile(ScenarioPath("set-px-script-safe.json"));
  s.world.faults.lose = 2;
  std::vector<std::string> names = {"C1", "C2", "C3"};
  s.schedule = {world::ParseAction("lose-request C1", names),
                world::ParseAction("lose-reply C2", names)};
  trace::Trace t = run::ReplaySchedule(s);
  std::string line = trace::OneLine(t);
  INFO(line);
  CHECK(line.find("C1 SET lock.foo") != std::string::npos);
  CHECK(line.find("-> request lost") != std::string::npos);
  CHECK(line.find("-> OK (reply lost)") != std::string::npos);
  // The lost request wrote nothing; the lost reply's SET did.
  REQUIRE(t.steps.back().keyspace.size() == 1);
  CHECK(t.steps.back().writers.at("lock.foo") == "C2");
}

}  // namespace
}  // namespace lockstep
