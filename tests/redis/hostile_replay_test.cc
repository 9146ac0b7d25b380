// A shared trace may be crafted. Replayed on a user's own Redis (--redis)
// or on servers lockstep starts (--redis-server), it may send only what the
// model executed and vouches for: a command outside the model's table, a
// SELECT, or a script that calls one, refuses the whole replay before
// anything is sent, and --redis-flush empties database 0 alone.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/redis/redis_server.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;

using testing::Has;

// A one-client scenario whose Lua algorithm runs `body` (one command per
// line), then takes the lock; its schedule runs every step.
std::string HostileScenario(const testing::TempDir& tmp, const std::string& name,
                            const std::string& body, int steps) {
  json doc = {{"name", name},
              {"clients", {{{"name", "C1"}, {"algorithm", {{"lua_inline", body}}}}}},
              {"lock", {{"key", "lock.foo"}}},
              {"clock", {{"horizon", 4}}},
              {"expect", "safe"}};
  json schedule = json::array();
  for (int i = 0; i < steps; ++i) schedule.push_back("C1");
  doc["schedule"] = schedule;
  return tmp.Write(name + ".json", doc.dump(2));
}

struct Hostile {
  const char* name;
  const char* body;
  int steps;
  const char* refused;  // what the refusal says of the step
};

const Hostile kHostile[] = {
    {"flushall", "redis.pcall('FLUSHALL')\nredis.call('SET', 'lock.foo', 'x')\n", 2,
     "step 1: C1 sends FLUSHALL: a command the model does not implement"},
    {"select", "redis.pcall('SELECT', '3')\nredis.pcall('DEL', 'precious')\n", 2,
     "step 1: C1 sends SELECT 3: a SELECT of a database other than 0, which the model does not "
     "keep"},
    {"shutdown", "redis.pcall('GET', 'lock.foo')\nredis.pcall('SHUTDOWN', 'NOSAVE')\n", 2,
     "step 2: C1 sends SHUTDOWN NOSAVE: a command the model does not implement"},
    {"script-flushall", "redis.pcall('EVAL', \"redis.call('FLUSHALL')\", '0')\n", 1,
     "step 1: C1 sends EVAL redis.call('FLUSHALL') 0: its script calls a command the model "
     "does not implement"},
    {"script-pcall-flushall",
     "redis.pcall('EVAL', \"redis.pcall('SELECT', '3') redis.pcall('FLUSHDB') return 1\", "
     "'0')\n",
     1, "a SELECT of a database other than 0, which the model does not keep"},
    {"script-instructions", "redis.pcall('EVAL', 'while true do end', '0')\n", 1,
     "its script ran into the model's instruction limit"},
};

TEST_CASE("replay --redis sends nothing of a trace with a command the model does not vouch for",
          "[redis-replay]") {
  testing::RedisServer server;
  auto admin = server.Connect();
  std::string error;
  // Database 3 holds the user's data; database 0, the replay's, is empty.
  REQUIRE(admin->Command({"SELECT", "3"}, &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"SET", "precious", "data"}, &error) == kv::Reply::Ok());
  testing::TempDir tmp;
  for (const Hostile& h : kHostile) {
    INFO(h.name);
    const std::string scenario = HostileScenario(tmp, h.name, h.body, h.steps);
    const std::string trace = tmp.File(std::string(h.name) + "-trace.json");
    // The model runs it (answering the unknown command with an error), so
    // the trace is the model's own record: only the vetting refuses it.
    auto recorded = RunLockstep({"replay", scenario, "--trace-out", trace});
    INFO(recorded.out << recorded.err);
    REQUIRE(recorded.exit_code == 0);
    for (const std::string& file : {scenario, trace}) {
      for (const bool flush : {false, true}) {
        std::vector<std::string> args = {"replay", "--redis", server.ReplayUrl(), file};
        if (flush) args.push_back("--redis-flush");
        auto r = RunLockstep(args);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK(Has(r.err, h.refused));
        CHECK(Has(r.err, "sends nothing of this trace"));
        CHECK(r.out.empty());
      }
    }
  }
  // Nothing reached the server: database 3 still holds the user's key
  // alone, and database 0 is still empty.
  CHECK(admin->Command({"DBSIZE"}, &error) == kv::Reply::Integer(1));
  CHECK(admin->Command({"GET", "precious"}, &error) == kv::Reply::Bulk("data"));
  REQUIRE(admin->Command({"SELECT", "0"}, &error) == kv::Reply::Ok());
  CHECK(admin->Command({"DBSIZE"}, &error) == kv::Reply::Integer(0));
}

TEST_CASE("replay --redis-server refuses the same traces before it starts a server",
          "[redis-replay]") {
  testing::TempDir tmp;
  for (const Hostile& h : kHostile) {
    INFO(h.name);
    const std::string scenario = HostileScenario(tmp, h.name, h.body, h.steps);
    auto r = RunLockstep({"replay", scenario, "--redis-server"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, h.refused));
    CHECK_FALSE(Has(r.out, "lockstep started"));
  }
}

TEST_CASE("replay --redis --redis-flush empties database 0 alone", "[redis-replay]") {
  testing::RedisServer server;
  auto admin = server.Connect();
  std::string error;
  REQUIRE(admin->Command({"SET", "in-db0", "x"}, &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"SELECT", "3"}, &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"SET", "precious", "data"}, &error) == kv::Reply::Ok());
  auto r = RunLockstep({"replay", "--redis", server.ReplayUrl(), "--redis-flush",
                        testing::ScenarioPath("setnx-docs-race.json")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out,
            "database 0, as user lockstep-replay, one connection per client (C1, C2, C3), "
            "emptied first (FLUSHDB); the other databases are out of its reach"));
  CHECK(admin->Command({"GET", "precious"}, &error) == kv::Reply::Bulk("data"));
}

}  // namespace
}  // namespace lockstep
