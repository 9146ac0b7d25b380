// Times kept relative to the clock, for a search without a horizon
// (docs/design.md, "Time without a horizon"): what of a state's times its
// identity keeps, and the bounds that make that finite and sound.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/world/model.h"

namespace lockstep::explore {

// Every time in a state, on one line with the clock: what an all-time
// search keeps of them is their order and their gaps up to the window, as
// their distances from the clock (the equivalence of clock values beyond
// the largest constant, as in timed automata's regions).
class TimeLine {
 public:
  TimeLine(bool relative, world::Millis now, world::Millis window)
      : relative_(relative), now_(now), window_(window) {}

  void Add(world::Millis t) {
    if (relative_) points_.push_back(t);
  }
  // Call once every time is added.
  void Compress() {
    if (!relative_) return;
    points_.push_back(now_);
    std::sort(points_.begin(), points_.end());
    points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
    at_.resize(points_.size());
    for (size_t k = 1; k < points_.size(); ++k) {
      at_[k] = at_[k - 1] + std::min(points_[k] - points_[k - 1], window_ + 1);
    }
    origin_ = At(now_);
    if (points_.back() - now_ > window_) {
      throw std::runtime_error(
          "a time " + std::to_string(points_.back() - now_) +
          " ticks ahead of the clock, beyond the window of " + std::to_string(window_) +
          " the scenario's settings give: the all-time search cannot follow this algorithm's "
          "times (give the scenario a horizon)");
    }
  }
  // `t` as the search keeps it.
  uint64_t Of(world::Millis t) const {
    return static_cast<uint64_t>(relative_ ? At(t) - origin_ : t);
  }

 private:
  world::Millis At(world::Millis t) const {
    auto it = std::lower_bound(points_.begin(), points_.end(), t);
    return at_[static_cast<size_t>(it - points_.begin())];
  }
  bool relative_;
  world::Millis now_, window_;
  std::vector<world::Millis> points_, at_;
  world::Millis origin_ = 0;
};

// The window: every constant an algorithm or the world can add to a time,
// summed, doubled. No comparison can tell apart two times further apart
// than the sum.
world::Millis TimeWindow(const world::WorldConfig& c);

// The latest clock at which a deadline can fall at or before time 0, or -1
// if none can (see time_line.cc).
world::Millis LatestNearZero(const world::WorldConfig& c);

}  // namespace lockstep::explore
