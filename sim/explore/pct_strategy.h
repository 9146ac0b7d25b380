// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of
// Finding Bugs", ASPLOS 2010).
//
// Each thread gets a random distinct priority above d; d-1 change points are
// drawn among the first k steps; at every step the enabled thread with the
// highest priority runs, and at the i-th change point the running thread's
// priority drops to i (below every initial priority). A bug of depth d is
// found with probability at least 1/(n k^(d-1)).
//
// Threads here are the clients and the clock (which "runs" by ticking). A
// client whose command has clock-based arguments of several possible ages
// takes an age drawn from the seed. Faults are not chosen by PCT.
//
// PCT assumes that a thread that cannot progress blocks. A lock client that
// retries without sleeping spins instead, and the highest-priority spinner
// would starve everyone. So when the system comes back to a state it was
// already in during this execution, the thread that just ran is spinning:
// its priority drops below all others (as a yield would).
#pragma once

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "sim/base/hash.h"
#include "sim/explore/random_strategy.h"

namespace lockstep::explore {

class PctStrategy final : public Strategy {
 public:
  PctStrategy(uint64_t seed, int clients, int depth, int max_steps) : rng_(seed) {
    const int threads = clients + 1;  // the last one is the clock
    priority_.resize(threads);
    for (int t = 0; t < threads; ++t) priority_[t] = depth + t;
    for (int t = threads - 1; t > 0; --t) {  // Fisher-Yates
      std::swap(priority_[t], priority_[rng_.Below(static_cast<uint64_t>(t) + 1)]);
    }
    for (int i = 1; i < depth; ++i) {
      change_points_.push_back(1 + static_cast<int>(rng_.Below(std::max(1, max_steps))));
    }
  }

  std::optional<world::Action> Next(const world::Model& m, const world::WorldState& s,
                                    const std::vector<world::Action>& enabled) override {
    ++step_;
    const int clock = m.client_count();
    if (!seen_.insert(Summary(s)).second && last_ >= 0) priority_[last_] = --lowest_;
    // Ticks and replication are the environment's thread.
    auto thread_of = [clock](const world::Action& a) { return a.client >= 0 ? a.client : clock; };
    int best = -1;
    for (const auto& a : enabled) {
      if (a.is_fault()) continue;
      int t = thread_of(a);
      if (best < 0 || priority_[t] > priority_[best]) best = t;
    }
    if (best < 0) return std::nullopt;  // only faults left
    for (size_t i = 0; i < change_points_.size(); ++i) {
      if (change_points_[i] == step_) priority_[best] = static_cast<int>(i) + 1;
    }
    std::vector<world::Action> mine;
    for (const auto& a : enabled) {
      if (!a.is_fault() && thread_of(a) == best) mine.push_back(a);
    }
    last_ = best;
    return mine[rng_.Below(mine.size())];
  }

 private:
  static uint64_t Summary(const world::WorldState& s) {
    uint64_t h = base::HashCombine(s.servers[0].keyspace.Hash(), static_cast<uint64_t>(s.now));
    for (size_t k = 1; k < s.servers.size(); ++k)
      h = base::HashCombine(h, s.servers[k].keyspace.Hash());
    for (const auto& c : s.clients) {
      h = base::HashCombine(h, c.local ^ (static_cast<uint64_t>(c.status) << 56) ^
                                   (uint64_t{c.in_critical_section} << 60));
    }
    return h;
  }

  std::unordered_set<uint64_t> seen_;
  int last_ = -1;
  int lowest_ = 0;
  base::SplitMix64 rng_;
  std::vector<int> priority_;
  std::vector<int> change_points_;
  int step_ = 0;
};

}  // namespace lockstep::explore
