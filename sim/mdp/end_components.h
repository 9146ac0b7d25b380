// End components: where the adversary can keep a run for ever, whatever
// the random draws give (de Alfaro 1997; Hart, Sharir and Pnueli 1983 for
// its use in almost-sure verdicts).
//
// An end component is a set of states and of choices of those states such
// that every outcome of each choice stays in the set and the graph they
// make is strongly connected. A run that stays in a set of states for ever
// takes, with probability 1, the states and choices of an end component
// infinitely often; and an adversary that takes all of an end component's
// choices in turn stays in it for ever and takes each of them infinitely
// often. So a property is violated with positive probability by some
// adversary iff a reachable end component of the states and choices the
// violation allows is one the violation may end in.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/mdp/mdp.h"

namespace lockstep::mdp {

struct EndComponent {
  std::vector<int> states;   // increasing
  std::vector<int> choices;  // increasing; every choice of these states that stays in it
};

// The maximal end components among the states `keep_state` accepts and the
// choices `keep_choice` accepts (a choice of a state not kept is never
// used), in the order of their least state. Every end component of those
// states and choices lies inside exactly one of them.
std::vector<EndComponent> MaximalEndComponents(const Mdp& m,
                                               const std::function<bool(int)>& keep_state,
                                               const std::function<bool(int)>& keep_choice);

// Whether an adversary that is weakly fair can stay in `ec` for ever: every
// fairness class enabled in all of its states is that of some choice in it.
// (With weak fairness an end component allows a fair run iff taking all of
// its choices in turn is one: a larger set of choices only adds classes
// taken, and more states only adds places where a class is disabled.)
bool WeaklyFair(const Mdp& m, const EndComponent& ec);

}  // namespace lockstep::mdp
