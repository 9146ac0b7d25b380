#include "sim/explore/end_component_search.h"

#include <algorithm>

#include "sim/mdp/end_components.h"

namespace lockstep::explore {

GraphChoices ChoicesOf(const LivenessGraph& g) {
  GraphChoices out;
  std::vector<mdp::Outcome> outcomes;
  for (size_t v = 0; v < g.size(); ++v) {
    out.mdp.AddState();
    const std::vector<int>& edges = g.out(static_cast<int>(v));
    std::vector<char> taken(edges.size(), 0);
    for (size_t k = 0; k < edges.size(); ++k) {
      if (taken[k]) continue;
      const world::Action& a = g.edges()[edges[k]].action;
      std::vector<int> choice;
      // A draw's values are the outcomes of one choice: the same client's
      // drawn steps from this state.
      for (size_t j = k; j < edges.size(); ++j) {
        const world::Action& b = g.edges()[edges[j]].action;
        if (j == k || (a.drawn && b.drawn && b.client == a.client && b.kind == a.kind)) {
          taken[j] = 1;
          choice.push_back(edges[j]);
        }
      }
      outcomes.clear();
      for (int e : choice) outcomes.push_back({.to = g.edges()[e].to, .weight = 1});
      out.mdp.AddChoice(g.edges()[edges[k]].fair, outcomes);
      out.edges.push_back(std::move(choice));
    }
  }
  return out;
}

std::optional<std::vector<int>> FairEndComponent(const GraphChoices& gc, Restriction& r,
                                                 std::vector<char>* within) {
  const std::vector<mdp::EndComponent> ecs = mdp::MaximalEndComponents(
      gc.mdp, [&](int v) { return r.State(v); },
      [&](int c) {
        const std::vector<int>& edges = gc.edges[c];
        return std::all_of(edges.begin(), edges.end(), [&](int e) { return r.Edge(e); });
      });
  for (const mdp::EndComponent& ec : ecs) {
    if (!mdp::WeaklyFair(gc.mdp, ec) ||
        std::none_of(ec.states.begin(), ec.states.end(), [&](int v) { return r.Witness(v); })) {
      continue;
    }
    for (int c : ec.choices) {
      for (int e : gc.edges[c]) (*within)[e] = 1;
    }
    return ec.states;
  }
  return std::nullopt;
}

}  // namespace lockstep::explore
