// Preemption bounds (Bounds::preemptions): a switch away from a client
// that could go on is one preemption; a switch away from one that cannot
// (done, sleeping, crashed) is free, so that under a bound of 0 each
// client still runs in turn.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"

namespace lockstep {
namespace {

// C1 sets k in `sets` steps; C2 fails if it reads 1, which only a switch
// to C2 after C1's first SET (and before its second, if any) shows.
explore::SearchResult Search(int sets, int preemptions) {
  std::string c1;
  for (int i = 1; i <= sets; ++i) c1 += "redis.call('SET', 'k', '" + std::to_string(i) + "')\n";
  const nlohmann::json doc = {
      {"name", "preemptions"},
      {"clients",
       {{{"name", "C1"}, {"algorithm", {{"lua_inline", c1}}}},
        {{"name", "C2"},
         {"algorithm",
          {{"lua_inline", "if redis.call('GET', 'k') == '1' then error('saw 1') end\n"}}}}}},
      {"clock", {{"horizon", 0}}},
      {"expect", "violation:client_error"}};
  const scenario::Scenario s = scenario::LoadScenario(doc, "preemptions.json");
  explore::SearchOptions o;
  o.bounds.max_steps = 10;
  o.bounds.preemptions = preemptions;
  return explore::DepthFirstSearch(s.world, explore::MakeProperties(s.properties), o);
}

TEST_CASE("a preemption bound counts a switch away from a client that could go on and no other") {
  // C1 is done after its one SET: C2 may run then without a preemption.
  const explore::SearchResult done = Search(1, 0);
  REQUIRE(done.verdict == explore::Verdict::kViolation);
  CHECK(done.violation->property == "client_error");
  // With a second SET to come, C2 reads 1 only by preempting C1.
  const explore::SearchResult ready = Search(2, 0);
  CHECK(ready.verdict == explore::Verdict::kIncomplete);
  CHECK(ready.incomplete.find("preemptions 0") != std::string::npos);
  const explore::SearchResult one = Search(2, 1);
  REQUIRE(one.verdict == explore::Verdict::kViolation);
  CHECK(one.violation->property == "client_error");
}

}  // namespace
}  // namespace lockstep
