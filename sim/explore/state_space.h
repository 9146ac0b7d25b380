// The state space of a scenario: what a transition means, written once.
//
// Every search (depth first with its sleep sets and preemption bound on
// top, breadth first, sampling, the shortest continuation, the distributed
// search, the liveness graph), the game's graph and the recording of a
// trace walk the same space through this class: its initial state, what a
// state offers (the end of a run, the step bound, or the actions enabled
// there), the successor an action gives with every property checked on it,
// and a state's identity. What differs between them is only the order in
// which they walk it and what they remember of it (docs/design.md, "One
// state space").
#pragma once

#include <optional>
#include <vector>

#include "sim/check/property.h"
#include "sim/explore/execution.h"
#include "sim/explore/fingerprint.h"
#include "sim/world/model.h"

namespace lockstep::explore {

struct SpaceOptions {
  // Clients' states are named by what they observed since their last
  // ForgetHistory (world::Model's use_forget_history); off, by everything
  // they observed (always sound).
  bool forget_history = true;
  // A state's identity names clients' states so, whatever the automata do
  // (Fingerprinter's `abstract`): a plain enumeration keeps every history
  // and still counts states by what decides their future.
  bool abstract_identity = true;
  bool symmetry = false;  // interchangeable clients share an identity
  // The step bound: a state reached in this many steps offers nothing more.
  std::optional<int> max_steps;
  // Ghost facts the identity keeps beyond what the properties read (the
  // check::Property::Ghost bits of properties judged elsewhere: on lassos).
  uint32_t ghost = 0;
};

// What a state offers.
enum class Offer {
  kActions,    // the actions enabled there
  kEnd,        // nothing is enabled: the run ends, and its end is checked
  kStepBound,  // actions are enabled, but the step bound cuts the run here
};

class StateSpace {
 public:
  StateSpace(const world::WorldConfig& config, const Properties& properties, SpaceOptions options);
  // Its identity refers to its model.
  StateSpace(const StateSpace&) = delete;
  StateSpace& operator=(const StateSpace&) = delete;

  // The initial state into *s. Returns the violation it shows already, if
  // any: a property is checked on every state, the first included.
  std::optional<check::Violation> Initial(world::WorldState* s);

  // What `s`, reached in `depth` steps, offers. kActions: *enabled holds
  // the enabled actions (model order). kEnd: *end_violation is what the end
  // violates, if anything. The end is judged before the step bound: a run
  // that ends exactly at the bound is an end, not a cut.
  Offer Offers(const world::WorldState& s, int depth, std::vector<world::Action>* enabled,
               std::optional<check::Violation>* end_violation) {
    model_.EnabledActions(s, enabled);
    if (enabled->empty()) {
      *end_violation = check::CheckAllEnd(properties_, model_, s, depth);
      return Offer::kEnd;
    }
    if (max_steps_ && depth >= *max_steps_) return Offer::kStepBound;
    return Offer::kActions;
  }

  // Applies `a` to `s`, which `step - 1` steps reached; returns the
  // violation the successor shows, if any. Fills *effects if given (a
  // trace's record). REQUIRES: a is enabled in s
  std::optional<check::Violation> Step(world::WorldState& s, const world::Action& a, int step,
                                       world::StepEffects* effects = nullptr) {
    model_.Apply(s, a, effects);
    return check::CheckAll(properties_, model_, s, step);
  }

  // A state's identity; `path`, `canonical` and `packed` as for
  // Fingerprinter::Of.
  Fingerprint Identity(const world::WorldState& s, const Fingerprinter::PathState* path = nullptr,
                       std::vector<int>* canonical = nullptr, PackedState* packed = nullptr) const {
    return identity_.Of(s, path, canonical, packed);
  }

  world::Model& model() { return model_; }
  const world::Model& model() const { return model_; }
  const Properties& properties() const { return properties_; }
  const std::optional<int>& max_steps() const { return max_steps_; }
  // The classes of interchangeable clients the identity uses (none without
  // symmetry).
  const std::vector<std::vector<int>>& symmetry_classes() const { return identity_.classes(); }
  // The check::Property::Ghost bits the identity keeps: what the
  // properties read (GhostOf), and SpaceOptions::ghost.
  uint32_t ghost() const { return ghost_; }

 private:
  world::Model model_;
  const Properties& properties_;
  uint32_t ghost_;
  Fingerprinter identity_;
  std::optional<int> max_steps_;
};

}  // namespace lockstep::explore
