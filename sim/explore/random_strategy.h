// Uniformly random choice among the enabled actions, from a seed: the same
// seed gives the same execution.
#pragma once

#include <cstdint>

#include "sim/explore/strategy.h"

namespace lockstep::explore {

// splitmix64: small, fast, and the same on every machine (unlike the
// standard library's distributions).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    // Rejection sampling keeps it exactly uniform.
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = Next(); while (x >= limit);
    return x % n;
  }

 private:
  uint64_t state_;
};

class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed) : rng_(seed) {}
  std::optional<world::Action> Next(const world::Model&, const world::WorldState&,
                                    const std::vector<world::Action>& enabled) override {
    return enabled[rng_.Below(enabled.size())];
  }

 private:
  SplitMix64 rng_;
};

}  // namespace lockstep::explore
