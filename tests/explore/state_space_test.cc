// Every walk of the state space gives a transition the one meaning
// explore::StateSpace writes: the first state is checked like any other, a
// violation is found at the step it happens, and an end is judged as an
// end. Each walk is run on properties made to fail at a chosen place.
#include "sim/explore/state_space.h"

#include <catch2/catch.hpp>

#include "sim/explore/communicator.h"
#include "sim/explore/random_strategy.h"
#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

const check::PropertyInfo kAtDepth{.name = "at_depth", .reads = 0, .make = nullptr};
const check::PropertyInfo kAtEnd{.name = "at_end", .reads = 0, .make = nullptr};

// Violated by every state reached in exactly `depth` steps.
class AtDepth final : public check::Property {
 public:
  explicit AtDepth(int depth) : Property(kAtDepth), depth_(depth) {}
  std::optional<check::Violation> Check(const world::Model&, const world::WorldState&,
                                        int step) const override {
    if (step != depth_) return std::nullopt;
    return check::Violation{.property = "at_depth", .clients = {}, .step = step, .message = ""};
  }

 private:
  int depth_;
};

// Violated by every end: a state where nothing is enabled.
class AtEnd final : public check::Property {
 public:
  AtEnd() : Property(kAtEnd) {}
  std::optional<check::Violation> Check(const world::Model&, const world::WorldState&,
                                        int) const override {
    return std::nullopt;
  }
  std::optional<check::Violation> CheckEnd(const world::Model&, const world::WorldState&,
                                           int step) const override {
    return check::Violation{.property = "at_end", .clients = {}, .step = step, .message = ""};
  }
};

// What each walk found: the violation's property and step, and its path's length.
struct Found {
  std::string property;
  int step = -1;
  size_t steps = 0;
  friend bool operator==(const Found&, const Found&) = default;
};

Found Of(const explore::SearchResult& r) {
  REQUIRE(r.verdict == explore::Verdict::kViolation);
  REQUIRE(r.violation);
  return {r.violation->property, r.violation->step, r.counterexample.size()};
}

// The walks, each on `properties`.
std::vector<std::pair<std::string, Found>> EveryWalk(const world::WorldConfig& config,
                                                     const explore::Properties& properties) {
  std::vector<std::pair<std::string, Found>> found;
  explore::SearchOptions o;
  found.emplace_back("dfs", Of(explore::DepthFirstSearch(config, properties, o)));
  explore::SearchOptions plain = o;
  plain.reductions = {.cache = false, .symmetry = false, .por = false, .forget_history = true};
  plain.bounds.max_steps = 40;
  found.emplace_back("plain dfs", Of(explore::DepthFirstSearch(config, properties, plain)));
  found.emplace_back(
      "bfs", Of(*explore::ShortestCounterexample(config, properties, 40, 1'000'000, nullptr)));
  auto ranks = explore::InProcessGroup(1);
  found.emplace_back("distributed",
                     Of(explore::DistributedSearch(config, properties, o, *ranks[0])));
  found.emplace_back(
      "random", Of(explore::SampleExecutions(
                    config, properties,
                    [](uint64_t i, int) { return std::make_unique<explore::RandomStrategy>(i); },
                    100, 40, o)));
  return found;
}

TEST_CASE("every walk of the state space checks the first state, a step's state and an end alike") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-docs-fix.json"));
  SECTION("a violation in the first state: found at step 0, with no step taken") {
    explore::Properties properties;
    properties.push_back(std::make_unique<AtDepth>(0));
    for (const auto& [walk, f] : EveryWalk(s.world, properties)) {
      INFO(walk);
      CHECK(f == Found{"at_depth", 0, 0});
    }
  }
  SECTION("a violation three steps in: found at step 3, after three steps") {
    explore::Properties properties;
    properties.push_back(std::make_unique<AtDepth>(3));
    for (const auto& [walk, f] : EveryWalk(s.world, properties)) {
      INFO(walk);
      CHECK(f == Found{"at_depth", 3, 3});
    }
  }
  SECTION("a violation at an end: judged where nothing is enabled, at the end's depth") {
    explore::Properties properties;
    properties.push_back(std::make_unique<AtEnd>());
    for (const auto& [walk, f] : EveryWalk(s.world, properties)) {
      INFO(walk);
      CHECK(f.property == "at_end");
      CHECK(static_cast<size_t>(f.step) == f.steps);
    }
  }
}

}  // namespace
}  // namespace lockstep
