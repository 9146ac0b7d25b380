// Random draws, the scheduler's or weighed (docs/design.md, "Probabilistic
// choices"): an ordinary search tries every value of a draw; with
// --probabilistic a liveness property holds with probability 1, or a fair
// end component violates it with a positive one. The showcase is a split
// vote on four masters (examples/lua/redlock-split-vote.json).
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/explore/liveness.h"
#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"
#include "sim/world/model.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Verdict;
using world::Action;

// The split-vote scenario on two masters (a vote splits one to one, in a
// space small enough for a test), its jitter, the scheduler's delay bound
// and whether draws are weighed set as given.
scenario::Scenario SplitVote(int jitter, int max_ready, bool probabilistic) {
  const std::string file = testing::SourceDir() + "/examples/lua/redlock-split-vote.json";
  nlohmann::json doc = nlohmann::json::parse(scenario::ReadFile(file));
  for (auto& c : doc["clients"]) c["algorithm"]["settings"]["jitter"] = jitter;
  doc["assumptions"]["max_ready_ticks"] = max_ready;
  doc["probabilistic"] = probabilistic;
  doc["servers"] = nlohmann::json::array({{{"name", "A"}}, {{"name", "B"}}});
  doc.erase("expect");
  return scenario::LoadScenario(doc, file);
}

bool CycleDraws(const trace::Trace& t) {
  REQUIRE(t.lasso);
  const auto first = t.schedule.begin() + static_cast<long>(t.lasso->start);
  return std::any_of(first, first + static_cast<long>(t.lasso->length),
                     [](const std::string& a) { return a.find(" draws ") != std::string::npos; });
}

TEST_CASE("a jitter the scheduler picks splits the vote for ever", "[explore][probabilistic]") {
  const run::ExploreResult r = run::Explore(SplitVote(2, 0, false));
  REQUIRE(r.search.verdict == Verdict::kViolation);
  const trace::Trace& t = r.counterexample->trace;
  CHECK(t.violation->property == "deadlock_free");
  CHECK(t.violation->message.find("positive probability") == std::string::npos);
  // The scheduler's draws are in the cycle: the same delay for both.
  CHECK(CycleDraws(t));
}

TEST_CASE("with probabilistic draws a jitter makes progress with probability 1",
          "[explore][probabilistic]") {
  const run::ExploreResult r = run::Explore(SplitVote(1, 0, true));
  CHECK(r.search.verdict == Verdict::kSafe);
  REQUIRE(r.liveness);
  CHECK(r.liveness->states > 100);  // the vote is split many ways before it is won
  CHECK_FALSE(r.vacuous());         // and each client gets in in some schedule
}

TEST_CASE(
    "with probabilistic draws no jitter, or one the scheduler's delay covers, keeps the split",
    "[explore][probabilistic]") {
  // Without a jitter every retry is at the same tick; with a jitter of one
  // tick and a scheduler that may hold a woken client one tick, the client
  // that drew the shorter delay is held until the other wakes.
  struct Case {
    int jitter, max_ready;
    bool draws_in_cycle;
  };
  for (const Case& c : {Case{0, 0, false}, Case{1, 1, true}}) {
    INFO("jitter " << c.jitter << ", max_ready_ticks " << c.max_ready);
    const run::ExploreResult r = run::Explore(SplitVote(c.jitter, c.max_ready, true));
    REQUIRE(r.search.verdict == Verdict::kViolation);
    const trace::Trace& t = r.counterexample->trace;
    CHECK(t.violation->property == "deadlock_free");
    CHECK_THAT(t.violation->message, Catch::Contains("so this happens with positive probability"));
    CHECK(CycleDraws(t) == c.draws_in_cycle);
    // Saved and replayed, the lasso is judged again.
    const nlohmann::json doc = nlohmann::json::parse(trace::ToJsonText(t));
    const run::ReplayedTrace again = run::ReplaySavedTrace("lasso.json", doc);
    CHECK(trace::ToJson(again.trace) == doc);
  }
  // The scheduler may hold each of a client's steps for a tick, and so
  // make up for a small difference between the delays drawn: a jitter of
  // -4 to 3 keeps the split with a positive probability, one of -5 to 4
  // does not (retry_delay 1, a delay never below 0).
  CHECK(run::Explore(SplitVote(4, 1, true)).search.verdict == Verdict::kViolation);
  CHECK(run::Explore(SplitVote(5, 1, true)).search.verdict == Verdict::kSafe);
}

TEST_CASE("the built-in Redlock's back-off is drawn when draws are random",
          "[explore][probabilistic]") {
  // Four masters: a vote can split two to two. Its retry waits 1 to
  // retry_delay ticks (Client::SleepRandom).
  nlohmann::json doc = nlohmann::json::parse(
      testing::ReadText(testing::SourceDir() + "/examples/lua/redlock-split-vote.json"));
  for (auto& c : doc["clients"]) c["algorithm"] = "redlock";
  doc["lock"] = {{"key", "lock.foo"}, {"ttl", 5}, {"retry_delay", 3}};
  doc.erase("expect");
  const run::ExploreResult chosen = run::Explore(scenario::LoadScenario(doc, "redlock.json"));
  REQUIRE(chosen.search.verdict == Verdict::kViolation);
  CHECK(chosen.counterexample->trace.violation->property == "deadlock_free");
  doc["probabilistic"] = true;
  const run::ExploreResult drawn = run::Explore(scenario::LoadScenario(doc, "redlock.json"));
  CHECK(drawn.search.verdict == Verdict::kSafe);
  CHECK_FALSE(drawn.vacuous());
}

TEST_CASE("an ordinary search tries every value of a draw, each a step of its own",
          "[explore][probabilistic]") {
  // A lock that enters without asking the server when it draws 3.
  testing::TempDir tmp;
  const std::string lua = tmp.Write("draw.lua",
                                    "local s = lock.settings\n"
                                    "local v = lock.draw(1, 3)\n"
                                    "if v ~= 3 then\n"
                                    "  while not redis.pcall('SET', s.key, 'x', 'NX').ok do\n"
                                    "    lock.sleep(1)\n"
                                    "  end\n"
                                    "end\n"
                                    "lock.enter(lock.now() + s.ttl)\n"
                                    "lock.leave()\n");
  const nlohmann::json doc = {{"clients",
                               {{{"name", "C1"}, {"algorithm", {{"lua", lua}}}},
                                {{"name", "C2"}, {"algorithm", {{"lua", lua}}}}}},
                              {"lock", {{"key", "k"}, {"ttl", 3}}},
                              {"clock", {{"start", 0}, {"horizon", 2}}},
                              {"properties", {"mutual_exclusion"}}};
  const scenario::Scenario s = scenario::LoadScenario(doc, tmp.File("draw.json"));
  const run::ExploreResult r = run::Explore(s);
  REQUIRE(r.search.verdict == Verdict::kViolation);
  const std::vector<std::string>& schedule = r.counterexample->trace.schedule;
  CHECK(std::count(schedule.begin(), schedule.end(), "C1 draws 3") +
            std::count(schedule.begin(), schedule.end(), "C2 draws 3") >=
        1);

  // The text form, and what a schedule may say at a draw.
  const std::vector<std::string> names = {"C1", "C2"};
  const Action drawn = world::ParseAction("C2 draws 3", names);
  CHECK(drawn == Action::Drawn(1, 3));
  CHECK(world::FormatAction(drawn, names) == "C2 draws 3");
  CHECK(world::ParseAction("C1 draws -2", names).drawn == -2);
  CHECK_THROWS_AS(world::ParseAction("C1 draws x", names), base::InputError);
  world::Model m(s.world, true);
  const world::WorldState start = m.Initial();
  std::string why;
  CHECK(m.IsEnabled(start, Action::Drawn(0, 2), &why));
  CHECK_FALSE(m.IsEnabled(start, Action::Drawn(0, 4), &why));
  CHECK(why == "C1 draws a value from 1 to 3");
  CHECK_FALSE(m.IsEnabled(start, Action::Step(0), &why));
  CHECK(why == "C1 draws a value from 1 to 3: its step says which (\"C1 draws N\")");
}

TEST_CASE("max_ready_ticks: the clock waits for a client that waited that long for its step",
          "[explore][probabilistic]") {
  scenario::Scenario s = SplitVote(0, 1, false);
  world::Model m(s.world, true);
  world::WorldState st = m.Initial();  // both clients ready at 0
  std::string why;
  CHECK(m.IsEnabled(st, Action::Tick(), &why));  // they have waited 0 ticks
  m.Apply(st, Action::Tick(), nullptr);
  CHECK_FALSE(m.IsEnabled(st, Action::Tick(), &why));
  CHECK(why == "C1 has waited 1 ticks for its step, and max_ready_ticks is 1");
}

TEST_CASE("the shipped split votes: the scheduler's jitter, a weighed one, and none",
          "[explore][probabilistic]") {
  // The README quotes the cycles: "steps 1 to 18", "steps 1 to 17".
  struct Case {
    const char* file;
    Verdict verdict;
    int cycle;
  };
  for (const Case& c : {Case{"redlock-split-vote.json", Verdict::kViolation, 18},
                        Case{"redlock-jitter.json", Verdict::kSafe, 0},
                        Case{"redlock-no-jitter.json", Verdict::kViolation, 17}}) {
    INFO(c.file);
    const scenario::Scenario s =
        scenario::LoadScenarioFile(testing::SourceDir() + "/examples/lua/" + c.file);
    const run::ExploreResult r = run::Explore(s);
    CHECK(r.search.verdict == c.verdict);
    CHECK(s.expect.Text() == (c.verdict == Verdict::kSafe ? "safe" : "violation:deadlock_free"));
    if (r.counterexample) {
      // From the start: the clock begins far from 0, where no deadline can fall
      // before time 0 and set the first rounds apart.
      CHECK(r.counterexample->trace.lasso->start == 0);
      CHECK(r.counterexample->trace.lasso->length == c.cycle);
    }
  }
}

}  // namespace
}  // namespace lockstep
