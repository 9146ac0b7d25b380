// The game's graph against an independent enumeration: breadth-first over
// the concrete states of a model that never forgets (each client named by
// everything it observed), each transition named as the game would show it:
// the abstract state it leaves (what the clients observed since they last
// forgot), the move's text, and the abstract state it reaches or the
// property it breaks. The game merges concrete states into abstract ones;
// its graph must be exactly the quotient: the same states, and from each
// the same moves to the same places, the documented race included.
#include <deque>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>
#include <variant>

#include <catch2/catch.hpp>

#include "sim/check/property.h"
#include "sim/explore/execution.h"
#include "sim/explore/fingerprint.h"
#include "sim/run/play_page.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// Where a move leads: an abstract state, or a property broken.
using Target = std::variant<explore::Fingerprint, std::string>;
struct FingerprintLess {
  bool operator()(const explore::Fingerprint& x, const explore::Fingerprint& y) const {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  }
};
struct TargetLess {
  bool operator()(const Target& x, const Target& y) const {
    if (x.index() != y.index()) return x.index() < y.index();
    if (x.index() == 1) return std::get<1>(x) < std::get<1>(y);
    return FingerprintLess()(std::get<0>(x), std::get<0>(y));
  }
};
using Moves = std::map<std::string, Target>;  // the move's text, where it leads

// Each abstract state's moves (none if it is not expanded: at the step
// bound, or an end), and the property an end breaks ("" if none).
struct Quotient {
  std::map<explore::Fingerprint, Moves, FingerprintLess> moves;
  std::map<explore::Fingerprint, std::string, FingerprintLess> end_violation;
  explore::Fingerprint initial;
  uint64_t concrete_states = 0;
  // Moves that lead elsewhere from two concrete states of one abstract state.
  std::vector<std::string> unlike;
};

std::string Broken(const std::optional<check::Violation>& v) { return v ? v->property : ""; }

Quotient Enumerate(const scenario::Scenario& s) {
  const explore::Properties properties = explore::MakeProperties(s.properties);
  world::Model model(s.world, /*use_forget_history=*/false);
  const uint32_t ghost = explore::GhostOf(properties);
  const explore::Fingerprinter concrete(model, /*symmetry=*/false, /*abstract=*/false, ghost);
  const explore::Fingerprinter abstract(model, /*symmetry=*/false, /*abstract=*/true, ghost);
  const std::vector<std::string>& names = model.client_names();
  const std::vector<std::string>& servers = model.server_names();

  Quotient q;
  std::unordered_map<explore::Fingerprint, bool, explore::FingerprintHash> seen;
  std::deque<std::pair<world::WorldState, int>> queue;  // a state, its depth
  world::WorldState initial = model.Initial();
  q.initial = abstract.Of(initial, nullptr, nullptr);
  seen.emplace(concrete.Of(initial, nullptr, nullptr), true);
  queue.emplace_back(std::move(initial), 0);
  std::vector<world::Action> enabled;
  while (!queue.empty()) {
    auto [state, depth] = std::move(queue.front());
    queue.pop_front();
    ++q.concrete_states;
    const explore::Fingerprint from = abstract.Of(state, nullptr, nullptr);
    Moves& moves = q.moves[from];
    model.EnabledActions(state, &enabled);
    if (enabled.empty()) {
      q.end_violation[from] = Broken(check::CheckAllEnd(properties, model, state, depth));
      continue;
    }
    // Breadth-first, so the first time an abstract state is met is at its
    // least depth: the one the game's bound is applied at.
    if (depth >= s.max_steps) continue;
    const std::vector<world::Action> actions = enabled;
    for (const world::Action& a : actions) {
      world::WorldState next = state;
      model.Apply(next, a, nullptr);
      const std::string broken = Broken(check::CheckAll(properties, model, next, depth + 1));
      const Target to = broken.empty() ? Target(abstract.Of(next, nullptr, nullptr)) : broken;
      const std::string text = world::FormatAction(a, names, servers);
      // Concrete states of one abstract state have the same futures.
      auto [it, fresh] = moves.try_emplace(text, to);
      if (TargetLess()(it->second, to) || TargetLess()(to, it->second)) {
        q.unlike.push_back(text);
      }
      if (!broken.empty()) continue;
      if (seen.emplace(concrete.Of(next, nullptr, nullptr), true).second) {
        queue.emplace_back(std::move(next), depth + 1);
      }
    }
  }
  return q;
}

// Names the game's states by the enumeration's abstract states, following
// its moves from the start, and compares every state's moves.
void CompareWithGame(const nlohmann::json& game, const Quotient& q) {
  const nlohmann::json& states = game["states"];
  REQUIRE(states.size() == q.moves.size());
  std::vector<std::optional<explore::Fingerprint>> name(states.size());
  std::deque<size_t> queue = {0};
  name[0] = q.initial;
  std::set<explore::Fingerprint, FingerprintLess> named = {q.initial};
  while (!queue.empty()) {
    const size_t i = queue.front();
    queue.pop_front();
    const nlohmann::json& state = states[i];
    const Moves& expected = q.moves.at(*name[i]);
    INFO("game state " << i);
    REQUIRE(state["moves"].size() == expected.size());
    for (const nlohmann::json& m : state["moves"]) {
      const std::string text = m["action"];
      INFO("move " << text);
      REQUIRE(expected.contains(text));
      const Target& to = expected.at(text);
      if (m["to"] == -1) {
        REQUIRE(to.index() == 1);
        CHECK(m["violation"]["property"] == std::get<1>(to));
        continue;
      }
      REQUIRE(to.index() == 0);
      const size_t j = m["to"];
      REQUIRE(j < states.size());
      if (!name[j]) {
        // Two game states for one abstract state would name it twice.
        REQUIRE(named.insert(std::get<0>(to)).second);
        name[j] = std::get<0>(to);
        queue.push_back(j);
      }
      CHECK(*name[j] == std::get<0>(to));
    }
    const std::string end = q.end_violation.contains(*name[i]) ? q.end_violation.at(*name[i]) : "";
    CHECK(state.contains("violation") == !end.empty());
    if (!end.empty()) CHECK(state["violation"]["property"] == end);
  }
  // Every game state reached, each a different abstract state.
  CHECK(named.size() == states.size());
}

TEST_CASE("the game's graph is plain enumeration's quotient by what clients forget", "[sweep]") {
  // The race the game ships (its fix, 375,207 concrete states, is left to
  // play_page_test.cc's comparison with the cached search), a script and a
  // fencing token.
  // The race again under a step bound that cuts it short: states at the
  // bound are shown without moves. A holder that outlives its lease ends
  // stuck: a state that breaks a property where nothing is left to do.
  for (auto [name, max_steps] :
       {std::pair{"setnx-docs-race.json", 0}, std::pair{"setnx-docs-race.json", 9},
        std::pair{"set-px-script-safe.json", 0}, std::pair{"fenced-stall.json", 0},
        std::pair{"holder-outlives-lease.json", 30}}) {
    INFO(name << " max_steps " << max_steps);
    scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath(name));
    if (max_steps > 0) s.max_steps = max_steps;
    const Quotient q = Enumerate(s);
    CHECK(q.unlike.empty());
    const nlohmann::json game = run::PlayGraph(s, name);
    CompareWithGame(game, q);
    std::cout << name << " (max_steps " << s.max_steps << "): " << q.concrete_states
              << " concrete states, " << q.moves.size() << " in the game\n";
  }
}

}  // namespace
}  // namespace lockstep
