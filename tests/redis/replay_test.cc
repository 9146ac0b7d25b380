// `lockstep replay --redis`: traces from the model replayed on a real
// redis-server, as a user runs it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/redis/redis_server.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;

using testing::Has;

// The model's trace of a scenario's schedule, saved in `tmp`.
std::string SaveTrace(const testing::TempDir& tmp, const std::string& scenario) {
  const std::string path = tmp.File(scenario);
  RunLockstep({"replay", testing::ScenarioPath(scenario), "--trace-out", path});
  REQUIRE(!testing::ReadText(path).empty());
  return path;
}

TEST_CASE(
    "the documented race reproduces on redis-server with both SETNX returning 1 at steps 6 and 8") {
  testing::RedisServer server;
  testing::TempDir tmp;
  const std::string trace = SaveTrace(tmp, "setnx-docs-race.json");
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", trace});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out,
            "time: no server-side expiry in this trace; virtual timestamps are sent as "
            "they are"));
  CHECK(Has(r.out, "setup: SET lock.foo 7 -> OK"));
  CHECK(Has(r.out,
            "C1's SETNX lock.foo 13 at step 6 returned 1 and C2's SETNX lock.foo 13 at "
            "step 8 returned 1"));
  CHECK(Has(r.out,
            "mutual_exclusion reproduced on the real server at step 8: C1 and C2 are in "
            "the critical section at once"));
  CHECK_FALSE(Has(r.out, "DIFFERS"));
}

TEST_CASE("a scenario with a schedule replays on redis-server like its trace") {
  testing::RedisServer server;
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush",
                        testing::ScenarioPath("setnx-docs-race.json")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "mutual_exclusion reproduced on the real server at step 8"));
}

TEST_CASE(
    "a Lua algorithm's counterexample, found outside the repository, replays on redis-server") {
  testing::TempDir tmp;
  // The naive takeover, written in Lua beside a scenario of its own.
  tmp.Write("lock.lua", testing::ReadText(testing::SourceDir() + "/examples/lua/setnx_naive.lua"));
  nlohmann::json doc =
      nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
  for (auto& c : doc["clients"]) {
    if (c.contains("algorithm")) c["algorithm"] = {{"lua", "lock.lua"}};
  }
  doc.erase("schedule");
  const std::string scenario = tmp.Write("mine.json", doc.dump(2));
  auto found = RunLockstep({"explore", scenario, "--out", tmp.File("found")});
  INFO(found.out << found.err);
  REQUIRE(found.exit_code == 1);
  testing::RedisServer server;
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush",
                        tmp.File("found/setnx-docs-race-mutual_exclusion-3clients.json")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "mutual_exclusion reproduced on the real server"));
  CHECK_FALSE(Has(r.out, "DIFFERS"));
}

TEST_CASE("the documented GETSET fix replays on redis-server with every reply matching") {
  testing::RedisServer server;
  testing::TempDir tmp;
  const std::string trace = SaveTrace(tmp, "getset-docs-fix.json");
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", trace});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "no violation in the trace, and every real reply matched it"));
  CHECK_FALSE(Has(r.out, "DIFFERS"));
}

TEST_CASE("a run that releases with the compare-and-delete script replays on redis-server") {
  testing::RedisServer server;
  testing::TempDir tmp;
  // A tick is a real millisecond in the replay, and steps go out a few
  // milliseconds late: a TTL far beyond the run keeps expiry certain.
  nlohmann::json scenario =
      nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("set-px-script-safe.json")));
  scenario["lock"]["ttl"] = 2000;
  const std::string file = tmp.Write("script.json", scenario.dump());
  for (const char* seed : {"1", "2", "3"}) {
    INFO("seed " << seed);
    const std::string trace = tmp.File(std::string("script-") + seed + ".json");
    auto run = RunLockstep({"run", file, "--seed", seed, "--trace-out", trace});
    REQUIRE(run.exit_code == 0);
    REQUIRE(Has(testing::ReadText(trace), "\"EVAL\""));
    auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", trace});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(Has(r.out, "EVAL [if redis.call(\"get\",KEYS[1]) == ARGV[1] then ...]"));
    CHECK(Has(r.out, "no violation in the trace, and every real reply matched it"));
    CHECK_FALSE(Has(r.out, "DIFFERS"));
  }
}

TEST_CASE("an edited trace is refused before anything reaches the server") {
  testing::RedisServer server;
  testing::TempDir tmp;
  json doc = json::parse(testing::ReadText(SaveTrace(tmp, "setnx-docs-race.json")));
  // Step 3 is C1's GET lock.foo, which the model answers "7".
  REQUIRE(doc["steps"][3]["command"] == json({"GET", "lock.foo"}));
  doc["steps"][3]["reply"]["value"] = "8";
  const std::string edited = tmp.Write("edited.json", doc.dump(2));
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", edited});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "contradicts"));
  CHECK(r.out.empty());
  std::string error;
  CHECK(server.Connect()->Command({"DBSIZE"}, &error) == kv::Reply::Integer(0));
}

TEST_CASE("a trace with deadlines maps virtual time onto the server's clock") {
  testing::RedisServer server;
  testing::TempDir tmp;
  json scenario = json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
  // The crashed holder's key now also carries a deadline, far after the run.
  scenario["keyspace"][0]["deadline"] = 100000;
  const std::string edited = tmp.Write("deadline.json", scenario.dump(2));
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", edited});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "time: virtual time t is the server's Unix time t + "));
  CHECK(Has(r.out, "setup: PEXPIREAT lock.foo "));
  CHECK(Has(r.out, "time: the latest step went out "));
  CHECK(Has(r.out, "mutual_exclusion reproduced on the real server at step 8"));
  CHECK_FALSE(Has(r.out, "DIFFERS"));
}

TEST_CASE("a server fault the replay cannot apply is said so, at its step and in the verdict") {
  testing::RedisServer server;
  testing::TempDir tmp;
  // clock-jump with a TTL no late step can outlast: only the jump expires it.
  json scenario = json::parse(testing::ReadText(testing::ScenarioPath("clock-jump.json")));
  scenario["lock"]["ttl"] = 500;
  scenario["faults"]["jump_by"] = {600};
  scenario["schedule"] = {"C1", "jump +600", "C2"};
  const std::string file = tmp.Write("jump.json", scenario.dump());
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", file});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 4);  // the replay differs: the jump did not happen
  CHECK(Has(r.out, "(jump +600)"));
  CHECK(Has(r.out, "NOT APPLIED to the real server"));
  CHECK(Has(r.out,
            "faults: the server's fault at step 2 (jump +600) is not applied to the real "
            "server: --redis sends commands only, so the replies after it can "
            "differ, as they do here (--redis-server applies it)"));
}

TEST_CASE("a write to the protected resource is the model's, never sent to Redis") {
  testing::RedisServer server;
  testing::TempDir tmp;
  // Two holders in turn, each writing the resource; TTLs far from every
  // step, so that no reply depends on the replay's timing.
  json scenario = json::parse(testing::ReadText(testing::ScenarioPath("unfenced-stall.json")));
  scenario["name"] = "resource-in-turn";
  scenario["lock"]["ttl"] = 100;
  scenario["faults"] = json::object();
  scenario["clock"]["horizon"] = 2;
  scenario["expect"] = "safe";
  scenario["schedule"] = {"C1", "C1", "C1", "C1", "C2", "C2"};
  const std::string file = tmp.Write("in-turn.json", scenario.dump());
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush", file});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // Both writes, each on its row with the model's reply and nothing sent.
  size_t rows = 0;
  for (size_t at = r.out.find("WRITE resource token=0"); at != std::string::npos;
       at = r.out.find("WRITE resource token=0", at + 1)) {
    const std::string row = r.out.substr(at, r.out.find('\n', at) - at);
    CHECK_THAT(row,
               Catch::Matchers::EndsWith("1      (not sent)  the resource is lockstep's model"));
    ++rows;
  }
  CHECK(rows == 2);
  CHECK_FALSE(Has(r.out, "ERR unknown command"));
  CHECK_FALSE(Has(r.out, "DIFFERS"));
  CHECK(Has(r.out, "no violation in the trace, and every real reply matched it"));
}

TEST_CASE("replay --redis refuses a non-empty database unless told to flush it") {
  testing::RedisServer server;
  auto c = server.Connect();
  std::string error;
  REQUIRE(c->Command({"SET", "precious", "data"}, &error));
  auto r = RunLockstep(
      {"replay", "--redis", server.ReplayUrl(), testing::ScenarioPath("setnx-docs-race.json")});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "lockstep: " + server.address() +
                       ": database 0 holds 1 keys; replay needs an "
                       "empty database (pass --redis-flush to empty database 0 first)"));
  CHECK(c->Command({"GET", "precious"}, &error) == kv::Reply::Bulk("data"));
}

TEST_CASE("replay --redis names HOST:PORT when it cannot connect and rejects a bad address") {
  int port = 0;
  {
    testing::RedisServer gone;
    port = gone.port();
  }
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  auto r = RunLockstep({"replay", "--redis", "redis://lockstep-replay:pw@" + address, race});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "lockstep: " + address + ": cannot connect to the Redis server"));

  r = RunLockstep({"replay", "--redis", "localhost", race});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "expected HOST:PORT"));
}

TEST_CASE("replay --redis reports bad input with the file and the JSON location") {
  testing::TempDir tmp;
  const std::string bad = tmp.Write("bad.json", R"({"format": "lockstep-trace/9"})");
  auto r = RunLockstep({"replay", "--redis", "127.0.0.1:1", bad});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "lockstep: " + bad +
                       ": at /format: expected \"lockstep-trace/3\", \"lockstep-trace/2\" or "
                       "\"lockstep-trace/1\""));
}

}  // namespace
}  // namespace lockstep
