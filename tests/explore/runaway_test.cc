// A client that never stops, each pass a new state, cannot keep a search
// running until memory runs out: the scenario's max_steps ends every search
// (depth first, on several threads, distributed) as incomplete, and the
// line whose learned states keep growing is named in a warning.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "sim/world/client_automaton.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

// Two clients poll, without sleeping between two GETs, for a key nobody
// sets; `forget` puts lock.forget_history at the head of their loop.
json Poller(bool forget, std::optional<int> max_steps) {
  const std::string head = forget ? "  lock.forget_history('poll', {})\n" : "";
  const json poller = {{"lua_inline", "while true do\n" + head +
                                          "  if redis.call('GET', 'k') == 'x' then break end\n"
                                          "end\n"}};
  json doc = {{"name", "poller"},
              {"clients",
               {{{"name", "C1"}, {"algorithm", poller}, {"may_never_enter", true}},
                {{"name", "C2"}, {"algorithm", poller}, {"may_never_enter", true}}}},
              {"clock", {{"start", 0}, {"horizon", 2}}},
              {"properties", {"mutual_exclusion"}},
              {"expect", "safe"}};
  if (max_steps) doc["max_steps"] = *max_steps;
  return doc;
}

TEST_CASE(
    "a loop that remembers every reply ends the search at max_steps, incomplete, naming its line",
    "[explore][runaway]") {
  const run::ExploreResult r =
      run::Explore(scenario::LoadScenario(Poller(false, std::nullopt), "poller.json"));
  REQUIRE(r.search.verdict == explore::Verdict::kIncomplete);
  CHECK(r.search.incomplete == explore::RunawayText(10'000));
  CHECK(r.search.stats.max_depth == 10'000);
  // Depth first, C1 polls first: every pass is a state it has never been
  // in...
  REQUIRE(r.search.warnings.size() == 1);
  const std::string& w = r.search.warnings[0];
  CHECK(Has(w, "C1's algorithm made 1000 requests without forgetting its history, the last at "));
  CHECK(Has(w, "the last at lua_inline:2"));
  CHECK(Has(w, "lock.forget_history"));

  // ...and the same loop that says what matters at its head is finite.
  const run::ExploreResult finite =
      run::Explore(scenario::LoadScenario(Poller(true, std::nullopt), "poller.json"));
  CHECK(finite.safe());
  CHECK(finite.search.warnings.empty());
  CHECK(finite.search.stats.states < 100);
}

TEST_CASE("a scenario's max_steps ends every search that runs away, and --max-steps stays a bound",
          "[explore][runaway]") {
  const scenario::Scenario s = scenario::LoadScenario(Poller(false, 40), "poller.json");
  const explore::Properties props = explore::MakeProperties(s.properties);
  explore::SearchOptions o;
  o.bounds.runaway_steps = s.max_steps;
  for (int jobs : {1, 2}) {
    INFO("jobs " << jobs);
    o.jobs = jobs;
    const explore::SearchResult dfs = explore::DepthFirstSearch(s.world, props, o);
    REQUIRE(dfs.verdict == explore::Verdict::kIncomplete);
    CHECK(dfs.incomplete == explore::RunawayText(40));
    CHECK(dfs.stats.max_depth == 40);
    CHECK(dfs.warnings.empty());  // 40 passes are far from a warning
  }
  o.jobs = 1;
  const explore::SearchResult distributed = soundness::DistributedOnThreads(s.world, props, o, 2);
  REQUIRE(distributed.verdict == explore::Verdict::kIncomplete);
  CHECK(distributed.incomplete == explore::RunawayText(40));

  // Given as a bound, max_steps cuts each execution and the search goes on
  // to the end: the verdict is incomplete for the bound, not a runaway.
  o.bounds.max_steps = 40;
  const explore::SearchResult bounded = explore::DepthFirstSearch(s.world, props, o);
  REQUIRE(bounded.verdict == explore::Verdict::kIncomplete);
  CHECK(bounded.incomplete == "stopped at max-steps 40");
  CHECK(bounded.stats.executions > 1);
}

TEST_CASE("explore reports a runaway search with exit 3 and the warning", "[explore][runaway]") {
  testing::TempDir tmp;
  const std::string file = tmp.Write("poller.json", Poller(false, std::nullopt).dump(2));
  const testing::ProcessResult r = testing::RunLockstep({"explore", file, "--json"});
  CHECK(r.exit_code == 3);
  const json report = json::parse(r.out);
  CHECK(report["verdict"] == "incomplete");
  CHECK(report["incomplete"] == explore::RunawayText(10'000));
  REQUIRE(report["warnings"].size() == 1);
  CHECK(Has(r.err,
            "poller.json: warning: C1's algorithm made 1000 requests without forgetting its "
            "history, the last at "));
  static_assert(world::ClientAutomaton::kRememberedRequests < 10'000,
                "the default max_steps lets the warning show");
}

}  // namespace
}  // namespace lockstep
