// Running a scenario into a trace: the glue between the scenario, explore
// and trace layers that the CLI and the tests share.
#pragma once

#include <string>

#include "sim/explore/execution.h"
#include "sim/explore/replay_strategy.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"

namespace lockstep::cli {

// Replays `schedule` on `s`, recording every step, up to the end of the
// schedule or the first violation. `end` says why the execution ended.
// Setting `*stop` (a memory bound) ends the recording early, with end
// "stopped". Throws explore::ScheduleError for an action that is not enabled.
trace::Trace RecordTrace(const scenario::Scenario& s,
                         const std::vector<world::Action>& schedule, const std::string& end,
                         const std::atomic<bool>* stop = nullptr);

// Runs one execution of `s` chosen by `strategy` and records it.
// Throws explore::ScheduleError for a schedule that does not fit.
trace::Trace RunToTrace(const scenario::Scenario& s, explore::Strategy& strategy,
                        int max_steps);

// Replays the scenario's own schedule. REQUIRES: s.has_schedule
trace::Trace ReplaySchedule(const scenario::Scenario& s);

// One random execution from `seed`.
trace::Trace RunSeeded(const scenario::Scenario& s, uint64_t seed, int max_steps);

}  // namespace lockstep::cli
