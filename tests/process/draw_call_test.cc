// A process client's random draw and giving up (ECHO lockstep:draw LEAST
// MOST, lockstep:give_up; the helpers' draw and give_up): each value a step
// an ordinary search tries, weighed as likely with --probabilistic, and a
// malformed draw a rule broken.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::TempDir;

// Two Python clients: each draws 0 to 1 and gives up on 0, or takes the
// lock with SET NX and enters (gives up if it is taken).
constexpr const char* kCoin =
    "import redis, lockstep_client as l\n"
    "r = redis.Redis.from_url(l.redis_url())\n"
    "c = l.Lockstep(r)\n"
    "if c.draw(0, 1) == 0:\n"
    "    c.give_up()\n"
    "elif r.set('lock.foo', 'v', nx=True, px=5):\n"
    "    c.enter(l.now_ms() + 5)\n"
    "    c.leave()\n"
    "else:\n"
    "    c.give_up()\n";

std::string CoinScenario(const TempDir& dir, const std::string& script) {
  dir.Write("lockstep_client.py",
            testing::ReadText(testing::SourceDir() + "/examples/real-clients/lockstep_client.py"));
  dir.Write("client.py", script);
  nlohmann::json clients = nlohmann::json::array();
  for (const char* name : {"C1", "C2"}) {
    clients.push_back(
        {{"name", name},
         {"algorithm", {{"process", {{"command", {"/usr/bin/python3", "client.py"}}}}}}});
  }
  const nlohmann::json scenario = {{"name", "coins"},
                                   {"clients", clients},
                                   {"lock", {{"key", "lock.foo"}, {"ttl", 5}}},
                                   {"clock", {{"start", 0}, {"horizon", 3}}},
                                   {"assumptions", {{"holders_release_in_time", true}}},
                                   {"properties", {"mutual_exclusion", "some_contender_enters"}}};
  return dir.Write("scenario.json", scenario.dump(2));
}

TEST_CASE("a process client's draws are steps, and weighed they give the odds of all giving up",
          "[process]") {
  const TempDir dir;
  const std::string s = CoinScenario(dir, kCoin);
  const auto chosen =
      testing::RunLockstep({"explore", "--allow-programs", s, "--out", dir.File("out"), "--json"});
  INFO(chosen.err);
  REQUIRE(chosen.exit_code == 1);
  const nlohmann::json a = nlohmann::json::parse(chosen.out);
  CHECK(a["counterexample"]["violation"]["property"] == "some_contender_enters");
  CHECK(a["counterexample"]["schedule"] == nlohmann::json({"C1 draws 0", "C2 draws 0"}));
  CHECK_FALSE(a.contains("odds"));  // the scheduler's draws have no odds
  const auto weighed = testing::RunLockstep(
      {"explore", "--allow-programs", s, "--probabilistic", "--out", dir.File("out2"), "--json"});
  INFO(weighed.err);
  REQUIRE(weighed.exit_code == 1);
  const nlohmann::json b = nlohmann::json::parse(weighed.out);
  bool seen = false;
  for (const nlohmann::json& o : b["odds"]["properties"]) {
    if (o["property"] != "some_contender_enters") continue;
    seen = true;
    CHECK(o["least_exact"] == "1/4");
    CHECK(o["greatest_exact"] == "1/4");
  }
  CHECK(seen);
}

TEST_CASE("a malformed draw of a process client is a rule it broke", "[process]") {
  const TempDir dir;
  struct Case {
    const char* call;
    const char* expected;
  };
  for (const Case& c : {Case{"draw 3", "two integers, the least and the most"},
                        Case{"draw 3 1", "a least and a most at most 999 above it"},
                        Case{"draw 0 5000", "a least and a most at most 999 above it"},
                        Case{"draw x 1", "an argument that is an integer"}}) {
    INFO(c.call);
    const std::string s = CoinScenario(dir, std::string("import redis, lockstep_client as l\n"
                                                        "r = redis.Redis.from_url(l.redis_url())\n"
                                                        "r.echo('lockstep:") +
                                                c.call + "')\n");
    const auto r = testing::RunLockstep({"explore", "--allow-programs", s, "--out", dir.File("o")});
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, std::string("sent ECHO lockstep:draw with ") + c.expected));
  }
}

}  // namespace
}  // namespace lockstep
