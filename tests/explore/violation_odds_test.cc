// The worst-case odds of a violation with probabilistic draws
// (explore/violation_odds.h), a client's giving up (Client::GiveUp) and
// some_contender_enters: exact where a hand can work them out, and on
// node-redlock 5.0.0-beta.2's split vote (examples/lua/node_redlock_5.lua).
#include "sim/explore/violation_odds.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::PropertyOdds;
using explore::Verdict;
using nlohmann::json;

// Each client draws 0 to `most` and gives up on 0; otherwise it takes the
// lock with SET NX and enters, or gives up when the key is taken.
constexpr const char* kCoin = R"(
local s = lock.settings
if lock.draw(0, lock.setting("most", 1)) == 0 then
  lock.give_up()
  return
end
local r = redis.pcall("SET", s.key, lock.random_token(), "NX", "PX", s.ttl)
if type(r) == "table" and r.ok then
  lock.enter(lock.now() + s.ttl)
  lock.leave()
else
  lock.give_up()
end
)";

scenario::Scenario Coins(const testing::TempDir& tmp, int clients, int most, bool probabilistic) {
  tmp.Write("coin.lua", kCoin);
  json doc = {{"name", "coins"},
              {"clients", json::array()},
              {"lock", {{"key", "lock.foo"}, {"ttl", 5}}},
              {"clock", {{"horizon", 20}}},
              {"assumptions", {{"holders_release_in_time", true}}},
              {"properties", {"mutual_exclusion", "some_contender_enters"}},
              {"probabilistic", probabilistic}};
  for (int i = 1; i <= clients; ++i) {
    doc["clients"].push_back(
        {{"name", "C" + std::to_string(i)},
         {"algorithm", {{"lua", "coin.lua"}, {"settings", {{"most", most}}}}}});
  }
  return scenario::LoadScenario(doc, tmp.Write("coins.json", doc.dump()));
}

const PropertyOdds& OddsOf(const run::ExploreResult& r, const std::string& property) {
  REQUIRE(r.odds);
  REQUIRE(r.odds->verdict == Verdict::kSafe);
  for (const PropertyOdds& o : r.odds->odds) {
    if (o.property == property) return o;
  }
  FAIL("no odds for " << property);
  throw;
}

TEST_CASE("every contender giving up is a violation of some_contender_enters", "[explore][odds]") {
  const testing::TempDir tmp;
  const run::ExploreResult r = run::Explore(Coins(tmp, 2, 1, false));
  REQUIRE(r.search.verdict == Verdict::kViolation);
  const trace::Trace& t = r.counterexample->trace;
  CHECK(t.violation->property == "some_contender_enters");
  CHECK(t.violation->message == "every contender gave up (C1 and C2), and none holds the lock");
  // The shortest: both draw 0 and give up.
  CHECK(t.schedule == std::vector<std::string>{"C1 draws 0", "C2 draws 0"});
  // Without weighed draws there are no odds.
  CHECK_FALSE(r.odds);
}

TEST_CASE("a client that gave up and then entered is a contender that entered", "[explore][odds]") {
  // One client gives up, then takes the lock after all: never all given up.
  const testing::TempDir tmp;
  tmp.Write("again.lua", R"(
local s = lock.settings
redis.call("GET", s.key)
lock.give_up()
redis.call("SET", s.key, "v", "PX", s.ttl)
lock.enter(lock.now() + s.ttl)
lock.leave()
)");
  const json doc = {{"name", "again"},
                    {"clients", {{{"name", "C1"}, {"algorithm", {{"lua", "again.lua"}}}}}},
                    {"lock", {{"key", "lock.foo"}, {"ttl", 5}}},
                    {"clock", {{"horizon", 10}}},
                    {"properties", {"mutual_exclusion", "some_contender_enters"}}};
  const run::ExploreResult r =
      run::Explore(scenario::LoadScenario(doc, tmp.Write("again.json", doc.dump())));
  CHECK(r.search.verdict == Verdict::kSafe);
}

TEST_CASE("a client gives up after a step, never before its first nor inside", "[explore][odds]") {
  const testing::TempDir tmp;
  for (const char* body : {"lock.give_up()\n",
                           "redis.call('SET', lock.settings.key, 'v')\n"
                           "lock.enter(lock.now() + 5)\nlock.give_up()\n"}) {
    INFO(body);
    tmp.Write("early.lua", body);
    const json doc = {{"name", "early"},
                      {"clients", {{{"name", "C1"}, {"algorithm", {{"lua", "early.lua"}}}}}},
                      {"lock", {{"key", "lock.foo"}, {"ttl", 5}}},
                      {"clock", {{"horizon", 3}}},
                      {"properties", {"some_contender_enters"}}};
    const testing::ProcessResult r =
        testing::RunLockstep({"explore", tmp.Write("early.json", doc.dump())});
    CHECK(r.exit_code == 2);
    CHECK(testing::Has(r.err, "gives up"));
  }
}

TEST_CASE("the odds of every contender giving up are the draws' product, whatever the scheduler",
          "[explore][odds]") {
  // Each gives up unless its draw is not 0 and it wins the SET: both give
  // up iff both draw 0, or one draws 0 and the other loses to nobody (it
  // wins). So: (1/(most+1))^2 for every scheduler.
  const testing::TempDir tmp;
  struct Case {
    int most;
    const char* odds;
  };
  for (const Case& c : {Case{1, "1/4"}, Case{2, "1/9"}}) {
    INFO("draws 0 to " << c.most);
    const run::ExploreResult r = run::Explore(Coins(tmp, 2, c.most, true));
    REQUIRE(r.search.verdict == Verdict::kViolation);
    const PropertyOdds& gave_up = OddsOf(r, "some_contender_enters");
    CHECK(gave_up.exact);
    CHECK(gave_up.least.str() == c.odds);
    CHECK(gave_up.greatest.str() == c.odds);
    CHECK_FALSE(gave_up.certain_after);  // the last draw decides it
    const PropertyOdds& exclusion = OddsOf(r, "mutual_exclusion");
    CHECK(exclusion.exact);
    CHECK(exclusion.greatest == 0);
  }
}

TEST_CASE("node-redlock 5.0.0-beta.2: once the vote splits, every contender gives up",
          "[explore][odds]") {
  const std::string file = testing::SourceDir() + "/examples/lua/node-redlock-5-split-vote.json";
  const run::ExploreResult r = run::Explore(scenario::LoadScenarioFile(file));
  REQUIRE(r.search.verdict == Verdict::kViolation);
  CHECK(r.counterexample->trace.violation->property == "some_contender_enters");
  const PropertyOdds& gave_up = OddsOf(r, "some_contender_enters");
  CHECK(gave_up.exact);
  // A scheduler that lets one client set every key first avoids it; one
  // that splits the vote makes it certain, whatever the jitter draws: the
  // counterexample's first seven steps split the vote two to two.
  CHECK(gave_up.least == 0);
  CHECK(gave_up.greatest == 1);
  REQUIRE(gave_up.certain_after);
  CHECK(*gave_up.certain_after == 7);
  CHECK(OddsOf(r, "mutual_exclusion").greatest == 0);
}

TEST_CASE("a search that samples, splits or cuts runs is refused when draws are weighed",
          "[explore][odds]") {
  const std::string file = testing::SourceDir() + "/examples/lua/node-redlock-5-split-vote.json";
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--strategy", "random"},
                                                {"--strategy", "distributed"},
                                                {"--preemptions", "2"},
                                                {"--max-steps", "20"}}) {
    INFO(extra.front());
    std::vector<std::string> args = {"explore", file};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::ProcessResult r = testing::RunLockstep(args);
    CHECK(r.exit_code == 2);
    CHECK(testing::Has(r.err, extra.front()));
    CHECK(testing::Has(r.err,
                       "are judged on the whole state graph, in one process, over whole runs"));
  }
  // Without weighing draws the same bound is a search's; --probabilistic refuses it.
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  CHECK(testing::RunLockstep({"explore", race, "--max-steps", "20"}).exit_code == 1);
  CHECK(testing::RunLockstep({"explore", race, "--max-steps", "20", "--probabilistic"}).exit_code ==
        2);
}

}  // namespace
}  // namespace lockstep
