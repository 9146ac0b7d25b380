// When two client steps enabled in the same state are independent: in either
// order they reach the same state (ghost data included) and each step does
// and observes the same thing. Sleep sets rely on it, so it errs towards
// "dependent". See docs/design.md, "Partial-order reduction".
//
// - Only client steps are ever independent; ticks, faults and replication
//   are dependent on everything.
// - Two steps of one client, and two writes to the protected resource (which
//   lands first decides which a fenced resource refuses), are dependent.
// - Otherwise two steps are independent when their commands go to different
//   instances (so different servers), or commute at the server
//   (kv::CommandsCommute: different keys, or both reads). A step without a command (leaving the
//   critical section) commutes with any other client's step. A command whose key is built from the
//   clock is not known in advance and conflicts with every command.
// - These rules, like kv::CommandsCommute's, hold only where no key has
//   expired: a command that finds an expired key removes it, a write.
//   world::Model::Settle (sim/world/model.cc) guarantees it: it purges a
//   master's expired keys in Model::Initial and whenever that server's clock
//   moves (Model::Tick, a clock jump in Model::Apply, and Model::Restart;
//   Model::Failover settles the promoted replica). Commands reach masters
//   only, so no command finds an expired key.
// - A master with a live replica records its writes in order in the
//   replication backlog: there, two writes are dependent even on different
//   keys.
// - Ghost state that properties read is part of the state. Entering the
//   critical section marks every other holder as "acquired after" (read by
//   stale_write and lost_lease_renewed): a step that enters and another
//   client's step that enters, stops holding the lock or renews its lease are
//   dependent, whatever servers they address. Entering also makes
//   the values the client wrote its lock (read by foreign_release): a step that enters and another
//   client's step that may write a key are dependent. Which steps do is known only by taking them,
//   so the check takes the second step on a scratch copy when the first did.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>

#include "sim/world/model.h"

namespace lockstep::explore {

class Dependence {
 public:
  // `ghost`: the check::Property::Ghost bits of the properties checked.
  Dependence(world::Model& model, uint32_t ghost);

  // Returns true iff client steps x and y, both enabled in `s`, are
  // independent there. `after_x` is the state x leads to from `s`.
  bool Independent(const world::WorldState& s, const world::Action& x,
                   const world::WorldState& after_x, const world::Action& y);

 private:
  // What the two requests alone say, remembered per pair of requests (the
  // automata keep requests in place).
  enum class Static : uint8_t {
    kDependent,
    kIndependent,
    kUnlessLogged,  // same instance, different keys: dependent if both are
                    // written to a replication backlog
  };
  Static Classify(const world::Request& rx, const world::Request& ry);
  // What the search asks of a pair of requests, worked out once.
  struct Known {
    Static relation;
    bool x_may_write, y_may_write;  // either may write a key
  };

  struct PairHash {
    size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  world::Model& model_;
  bool holders_matter_;
  bool owners_matter_;
  std::unordered_map<std::pair<const void*, const void*>, Known, PairHash> known_;
  world::WorldState scratch_;
};

}  // namespace lockstep::explore
