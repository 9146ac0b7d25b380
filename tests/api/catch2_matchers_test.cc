// The public interface as a program that links lockstep sees it
// (<lockstep/lockstep.h>), and its Catch2 matchers: each matches what it
// says and nothing else, and a failing one shows the counterexample.
#include <lockstep/catch2.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

const std::string kDir = LOCKSTEP_SOURCE_DIR "/scenarios/";

TEST_CASE("IsSafe matches an exhaustive safe verdict only") {
  const ExploreResult safe = Explore(kDir + "getset-docs-fix.json");
  CHECK(safe.exhaustive);
  CHECK(IsSafe().match(safe));
  CHECK_FALSE(IsSafe().match(Explore(kDir + "setnx-naive.json")));
  // Sampling that finds nothing proves nothing.
  ExploreOptions sampling;
  sampling.strategy = "random";
  sampling.request.executions = 5;
  const ExploreResult sampled = Explore(kDir + "getset-docs-fix.json", sampling);
  CHECK(sampled.search.verdict == Verdict::kIncomplete);
  CHECK_FALSE(sampled.exhaustive);
  CHECK_FALSE(IsSafe().match(sampled));
  // A SAFE in which a client never entered says nothing about it.
  ExploreResult vacuous = safe;
  vacuous.never_entered = {"C2"};
  CHECK(vacuous.safe());
  CHECK_FALSE(IsSafe().match(vacuous));
  CHECK(Catch::Detail::stringify(vacuous).find("vacuous: never entered the critical section: C2") !=
        std::string::npos);
}

TEST_CASE("Violates and HasCounterexample read the shrunk counterexample") {
  const ExploreResult r = Explore(kDir + "setnx-naive.json");
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->shrunk);
  CHECK(r.counterexample->trace.schedule.size() <= r.counterexample->found_steps);
  CHECK(Violates("mutual_exclusion").match(r));
  CHECK_FALSE(Violates("foreign_release").match(r));
  const std::string line = OneLine(r.counterexample->trace);
  CHECK(HasCounterexample(line).match(r));
  CHECK_FALSE(HasCounterexample(line + " ").match(r));
  CHECK_FALSE(HasCounterexample(line).match(Explore(kDir + "getset-docs-fix.json")));
  // The counterexample is the trace its own steps give when replayed.
  std::vector<world::Action> schedule;
  for (size_t i = 1; i < r.counterexample->trace.steps.size(); ++i) {
    schedule.push_back(r.counterexample->trace.steps[i].action);
  }
  CHECK(ToJsonText(run::RecordTrace(LoadScenarioFile(kDir + "setnx-naive.json"), schedule)) ==
        ToJsonText(r.counterexample->trace));
}

TEST_CASE("a failing matcher shows the verdict, the counts and the counterexample's timeline") {
  const ExploreResult r = Explore(kDir + "setnx-naive.json");
  const std::string shown = Catch::StringMaker<ExploreResult>::convert(r);
  CHECK_THAT(shown, Catch::Matchers::StartsWith("violation after " +
                                                std::to_string(r.search.stats.states) + " states"));
  CHECK_THAT(shown, Catch::Matchers::Contains(
                        Timeline(r.counterexample->trace, {.width = detail::kTimelineWidth})));
  CHECK_THAT(shown, Catch::Matchers::EndsWith("to pin it: lockstep::HasCounterexample(\n" +
                                              OneLineLiteral(r.counterexample->trace, 76) + ")"));
  CHECK(IsSafe().describe() ==
        "is safe: an exhaustive search found no schedule violating a property, and every "
        "client expected to enter entered");
  CHECK(Violates("mutual_exclusion").describe() == "violates mutual_exclusion");
}

TEST_CASE("an unknown strategy is bad input, not a crash") {
  ExploreOptions o;
  o.strategy = "astar";
  CHECK_THROWS_AS(Explore(kDir + "setnx-naive.json", o), InputError);
}

}  // namespace
}  // namespace lockstep
