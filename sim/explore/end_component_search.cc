#include "sim/explore/end_component_search.h"

#include <algorithm>

#include "sim/mdp/end_components.h"

namespace lockstep::explore {

std::vector<std::vector<int>> DrawChoices(int n,
                                          const std::function<const world::Action&(int)>& action) {
  std::vector<std::vector<int>> choices;
  std::vector<char> taken(n, 0);
  for (int k = 0; k < n; ++k) {
    if (taken[k]) continue;
    const world::Action& a = action(k);
    choices.emplace_back();
    // A draw's values are the outcomes of one choice: the same client's
    // drawn steps from this state.
    for (int j = k; j < n; ++j) {
      const world::Action& b = action(j);
      if (j == k || (a.drawn && b.drawn && b.client == a.client && b.kind == a.kind)) {
        taken[j] = 1;
        choices.back().push_back(j);
      }
    }
  }
  return choices;
}

GraphChoices ChoicesOf(const LivenessGraph& g) {
  GraphChoices out;
  std::vector<mdp::Outcome> outcomes;
  for (size_t v = 0; v < g.size(); ++v) {
    out.mdp.AddState();
    const std::vector<int>& edges = g.out(static_cast<int>(v));
    for (const std::vector<int>& choice :
         DrawChoices(static_cast<int>(edges.size()),
                     [&](int k) -> const world::Action& { return g.edges()[edges[k]].action; })) {
      outcomes.clear();
      std::vector<int> taken;
      for (int k : choice) {
        outcomes.push_back({.to = g.edges()[edges[k]].to, .weight = 1});
        taken.push_back(edges[k]);
      }
      out.mdp.AddChoice(g.edges()[taken.front()].fair, outcomes);
      out.edges.push_back(std::move(taken));
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
