// Replays a given schedule action by action; ends the execution when the
// schedule ends. An action that is not enabled where the schedule puts it is
// a ScheduleError naming the position and the reason.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/base/input_error.h"
#include "sim/explore/strategy.h"

namespace lockstep::explore {

// The caller names the file and the place ("at /schedule/N").
struct ScheduleError : base::InputError {
  ScheduleError(size_t position_in, const std::string& what)
      : base::InputError("", "", what), position(position_in) {}
  size_t position;  // 0-based index into the schedule
};

class ReplayStrategy final : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<world::Action> schedule) : schedule_(std::move(schedule)) {}
  std::optional<world::Action> Next(const world::Model& m, const world::WorldState& s,
                                    const std::vector<world::Action>& enabled) override;

 private:
  std::vector<world::Action> schedule_;
  size_t next_ = 0;
};

}  // namespace lockstep::explore
