// The liveness graph as a Markov decision process (docs/design.md,
// "Probabilistic choices"): a client's draw in a state is one choice of
// the adversary, whose outcomes, each as likely, are the transitions of its
// values; every other transition is a choice of its own. A liveness
// property is violated with positive probability by some fair adversary
// iff a maximal end component of what the property allows is weakly fair
// and passes a witness.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "sim/explore/liveness_graph.h"
#include "sim/mdp/mdp.h"

namespace lockstep::explore {

struct GraphChoices {
  mdp::Mdp mdp;                         // its states are the graph's
  std::vector<std::vector<int>> edges;  // edges[c]: the graph's transitions of choice c
};

GraphChoices ChoicesOf(const LivenessGraph& g);

// The scheduler's choices among one state's `n` transitions (action(k):
// the k-th one's action), each as the transitions' positions: a client's
// drawn steps are one choice, the values its outcomes; any other
// transition is a choice of its own.
std::vector<std::vector<int>> DrawChoices(int n,
                                          const std::function<const world::Action&(int)>& action);

// The first such end component (by its least state) for `r`: its states,
// increasing, and in *within (one entry per transition) its transitions.
std::optional<std::vector<int>> FairEndComponent(const GraphChoices& gc, Restriction& r,
                                                 std::vector<char>* within);

}  // namespace lockstep::explore
