// Traces: the JSON form round-trips, is versioned, and renders.
#include <catch2/catch.hpp>

#include "sim/run/runner.h"
#include "sim/trace/json_reader.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

trace::Trace DocsRace() {
  return run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
}

TEST_CASE("a trace's JSON reads back to the same trace") {
  trace::Trace t = DocsRace();
  nlohmann::json j = trace::ToJson(t);
  trace::Trace back = trace::FromJson(j, "docs-race.json");
  CHECK(trace::ToJsonText(back) == trace::ToJsonText(t));
  CHECK(trace::OneLine(back) == trace::OneLine(t));
}

TEST_CASE("a trace of several servers reads back the same, with each server's state") {
  for (const char* file : {"replica-failover.json", "redlock-restart.json", "redlock-jump.json"}) {
    INFO(file);
    trace::Trace t = run::ReplaySchedule(scenario::LoadScenarioFile(testing::ScenarioPath(file)));
    nlohmann::json j = trace::ToJson(t);
    trace::Trace back = trace::FromJson(j, file);
    CHECK(trace::ToJsonText(back) == trace::ToJsonText(t));
    CHECK(trace::OneLine(back) == trace::OneLine(t));
    CHECK(j["steps"][1]["servers"].size() == t.server_names.size());
  }
  // The failover step: S1 is gone, S2 is the master, without C1's lock.
  nlohmann::json j = trace::ToJson(run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("replica-failover.json"))));
  const auto& after = j["steps"][2]["servers"];
  CHECK(after[0]["role"] == "failed");
  CHECK(after[1]["role"] == "master");
  CHECK(after[1]["keyspace"].empty());
  CHECK(j["steps"][2]["events"][0] ==
        "S1 fails; S2 is promoted to master, losing 1 unreplicated write");
}

TEST_CASE("a trace records per step the actor, command, reply, clocks, keyspace and ghost state") {
  nlohmann::json j = trace::ToJson(DocsRace());
  CHECK(j["format"] == "lockstep-trace/2");
  CHECK(j["schedule"].size() == 8);
  const auto& step6 = j["steps"][6];
  CHECK(step6["actor"] == "C1");
  CHECK(step6["action"] == "C1");
  CHECK(step6["command"] == nlohmann::json({"SETNX", "lock.foo", "13"}));
  CHECK(step6["reply"] == nlohmann::json({{"type", "integer"}, {"value", 1}}));
  CHECK(step6["clock"] == 10);
  CHECK(step6["client_clocks"] == nlohmann::json({{"C1", 10}, {"C2", 10}, {"C3", 10}}));
  CHECK(
      step6["keyspace"] ==
      nlohmann::json::parse(R"([{"key":"lock.foo","value":"13","deadline":null,"writer":"C1"}])"));
  CHECK(step6["in_critical_section"] == nlohmann::json({"C1"}));
  CHECK(j["violation"]["step"] == 8);
  CHECK(j["violation"]["clients"] == nlohmann::json({"C1", "C2"}));
}

TEST_CASE("a trace of another format version is refused, naming the field") {
  nlohmann::json j = trace::ToJson(DocsRace());
  j["format"] = "lockstep-trace/4";
  CHECK_THROWS_WITH(trace::FromJson(j, "t.json"),
                    "t.json: at /format: expected \"lockstep-trace/3\", \"lockstep-trace/2\" or "
                    "\"lockstep-trace/1\", got \"lockstep-trace/4\"");
  j = trace::ToJson(DocsRace());
  j["steps"][3]["clock"] = "ten";
  CHECK_THROWS_WITH(trace::FromJson(j, ""),
                    "at /steps/3/clock: expected an integer in [-2305843009213693952, "
                    "2305843009213693951], got string \"ten\"");
}

TEST_CASE("the timeline has a column per client and marks the violating step") {
  std::string text = trace::Timeline(DocsRace());
  INFO(text);
  CHECK(text.find("step  clock  C1") != std::string::npos);
  CHECK(text.find("!!    8     10") != std::string::npos);
  CHECK(text.find("SETNX lock.foo 13 -> 1 [enters CS]") != std::string::npos);
  CHECK(text.find("VIOLATION of mutual_exclusion at step 8: C1 and C2 are in the critical "
                  "section at once") != std::string::npos);
}

TEST_CASE("malformed JSON is reported with its line and column") {
  try {
    lockstep::json::Parse("{\n  \"a\": 1,\n  oops\n}");
    FAIL("no error");
  } catch (const lockstep::json::JsonError& e) {
    CHECK(std::string(e.what()).find("line 3, column 3") != std::string::npos);
  }
  CHECK_THROWS_AS(lockstep::json::Parse(std::string(100, '[') + std::string(100, ']')),
                  lockstep::json::JsonError);
}

}  // namespace
}  // namespace lockstep
