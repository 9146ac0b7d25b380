// Uniformly random choice among the enabled actions, from a seed: the same
// seed gives the same execution.
#pragma once

#include <cstdint>

#include "sim/base/hash.h"
#include "sim/explore/strategy.h"

namespace lockstep::explore {

class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed) : rng_(seed) {}
  std::optional<world::Action> Next(const world::Model&, const world::WorldState&,
                                    const std::vector<world::Action>& enabled) override {
    return enabled[rng_.Below(enabled.size())];
  }

 private:
  base::SplitMix64 rng_;
};

}  // namespace lockstep::explore
