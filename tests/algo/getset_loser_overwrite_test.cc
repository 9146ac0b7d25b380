// The translator's question about the SETNX page: C4 lost the GETSET race
// but wrote its own timestamp over C5's lock. Searched, not argued: harmless
// when timestamps are read in the command's own step, fatal with one tick of
// argument delay whatever the timeout T, through exactly that overwrite.
#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

run::ExploreResult Search(int64_t timeout, int64_t max_arg_delay, bool third_contender) {
  nlohmann::json doc =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-loser-overwrite.json")).document;
  doc.erase("schedule");
  doc["lock"]["timeout"] = timeout;
  doc["clock"]["horizon"] = 10 + 2 * timeout + 6;
  doc["assumptions"]["max_arg_delay"] = max_arg_delay;
  if (third_contender) doc["clients"].push_back({{"name", "C6"}, {"algorithm", "setnx-getset"}});
  run::ExploreOptions o;
  o.strategy = "bfs";
  return run::Explore(scenario::LoadScenario(doc, "getset-loser-overwrite (edited)"), o);
}

TEST_CASE("a losing GETSET's overwrite is harmless with timestamps read in their own step") {
  for (int64_t timeout : {2, 4}) {
    INFO("T = " << timeout);
    CHECK(Search(timeout, 0, true).search.verdict == explore::Verdict::kSafe);
  }
}

TEST_CASE("with one tick of argument delay the loser's overwrite lets it in beside the winner") {
  for (int64_t timeout : {2, 4, 6}) {
    INFO("T = " << timeout);
    const run::ExploreResult r = Search(timeout, 1, false);
    REQUIRE(r.counterexample);
    const trace::Trace& t = r.counterexample->trace;
    CHECK(t.violation->property == "mutual_exclusion");
    CHECK(t.schedule.size() == static_cast<size_t>(11 + timeout));  // 13, 15, 17
    // The overwrite: a GETSET with an argument older than the value it
    // replaced, which belonged to the client inside.
    bool overwrote = false;
    for (const world::StepRecord& step : t.steps) {
      if (step.command.size() == 3 && step.command[0] == "GETSET" && step.action.arg_age == 1 &&
          step.reply && step.reply->type == kv::Reply::Type::kBulk &&
          std::stoll(step.command[2]) < std::stoll(step.reply->text)) {
        overwrote = true;
      }
    }
    CHECK(overwrote);
  }
}

}  // namespace
}  // namespace lockstep
