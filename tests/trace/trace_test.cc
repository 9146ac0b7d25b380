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

// A client that leaves a hash and a sorted set behind.
trace::Trace Collections() {
  testing::TempDir dir;
  return run::ReplaySchedule(scenario::LoadScenarioFile(dir.Write("c.json", R"json({
    "name":"collections",
    "clients":[{"name":"C1","algorithm":{"lua_inline":
      "redis.call('HSET', 'h', 'f', 'v', 'g', 'w')\nredis.call('ZADD', 'z', 2, 'b', 1.5, 'a')"}}],
    "clock":{"start":0,"horizon":2},"properties":["mutual_exclusion"],
    "schedule":["C1","C1"]})json")));
}

TEST_CASE(
    "a trace keeps a hash's and a sorted set's items, and refuses ones the model never "
    "holds, naming the place") {
  const trace::Trace t = Collections();
  nlohmann::json j = trace::ToJson(t);
  const nlohmann::json& last = j["steps"].back()["keyspace"];
  REQUIRE(last.size() == 2);
  CHECK(last[0]["hash"] == nlohmann::json({"f", "v", "g", "w"}));
  CHECK(last[1]["zset"] == nlohmann::json({"a", "1.5", "b", "2"}));
  CHECK(trace::ToJsonText(trace::FromJson(j, "c.json")) == trace::ToJsonText(t));
  CHECK(trace::EntriesText(t.steps.back().keyspace, t.steps.back().writers) ==
        "h={f=v, g=w} by C1  z={a:1.5, b:2} by C1");
  const std::string at = "/steps/" + std::to_string(j["steps"].size() - 1) + "/keyspace/1/zset";
  const struct {
    nlohmann::json items;
    std::string message;
  } bad[] = {
      {{"b", "2", "a", "1.5"},
       "expected members by score, then by their bytes; word 2 is out of order"},
      {{"a", "1.50", "b", "2"}, "expected a score as Redis writes it (%.17g) at word 1"},
      {{"a", "nan", "b", "2"}, "expected a score as Redis writes it (%.17g) at word 1"},
      {{"a", "1", "a", "2"}, "expected each member once; got the member at word 2 twice"},
      {{"a", "1", "b"}, "expected member, score pairs; got an odd count of words"},
      {nlohmann::json::array(), "expected at least one member: Redis keeps no empty zset"},
  };
  for (const auto& b : bad) {
    INFO(b.items.dump());
    nlohmann::json tampered = j;
    tampered["steps"].back()["keyspace"][1]["zset"] = b.items;
    CHECK_THROWS_WITH(trace::FromJson(tampered, "c.json"), "c.json: at " + at + ": " + b.message);
  }
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
