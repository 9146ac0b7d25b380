// When two actions enabled in the same state are independent: they cannot
// disable each other and either order reaches the same state. Partial-order
// reduction (sleep sets) relies on it, so it errs towards "dependent".
//
// - Steps of the same client, ticks and crashes are dependent on everything
//   (a tick changes what every clock reading and every expiry decision sees;
//   a crash changes the crash budget and the clock's holders).
// - Steps of two clients are independent iff their commands go to different
//   instances (so different servers), or commute at the server
//   (kv::CommandsCommute: different keys, or both reads). Two writes to the
//   protected resource are dependent. A step
//   without a command (leaving the critical section) commutes with any other
//   client's step. A command built from the clock at the step is not known
//   in advance, and conflicts with every command.
#pragma once

#include <unordered_map>
#include <utility>

#include "sim/world/model.h"

namespace lockstep::explore {

bool Independent(const world::Model& m, const world::WorldState& s, const world::Action& x,
                 const world::Action& y);

// The same answers, remembered per pair of requests (a step's independence
// depends only on the two requests, which the automata keep in place).
class IndependenceCache {
 public:
  bool Independent(const world::Model& m, const world::WorldState& s, const world::Action& x,
                   const world::Action& y);

 private:
  struct PairHash {
    size_t operator()(const std::pair<const void*, const void*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  std::unordered_map<std::pair<const void*, const void*>, bool, PairHash> known_;
};

}  // namespace lockstep::explore
