// Running a scenario into a trace, in one loop (explore::RunExecution) with
// a recorder: what the command line, the viewer and the tests share.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

#include "sim/explore/execution.h"
#include "sim/explore/replay_strategy.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"

namespace lockstep::run {

// Runs one execution of `s` chosen by `strategy`, recording every step, up
// to its end (explore::RunExecution's loop): the trace's `end` says why it
// ended. Throws explore::ScheduleError for a schedule that does not fit.
// Setting `*stop` (a stop signal, a memory bound) ends it early, with end
// "stopped". `*steps_run` receives the steps it ran.
trace::Trace RunToTrace(const scenario::Scenario& s, explore::Strategy& strategy, int max_steps,
                        const std::atomic<bool>* stop = nullptr, size_t* steps_run = nullptr);

// Replays `schedule` on `s`: up to the end of the schedule, the first
// violation, or a state where nothing is enabled. Throws
// explore::ScheduleError for an action that is not enabled.
trace::Trace RecordTrace(const scenario::Scenario& s, const std::vector<world::Action>& schedule,
                         const std::atomic<bool>* stop = nullptr);

// Records a liveness counterexample: `prefix`, then `cycle` twice, with the
// lasso marked and its violation judged again on the recorded execution
// (explore::JudgeLasso).
trace::Trace RecordLasso(const scenario::Scenario& s, const std::vector<world::Action>& prefix,
                         const std::vector<world::Action>& cycle);
// Replays the scenario's own schedule. REQUIRES: s.has_schedule
// `step_bound`: the run being replayed was ended by this bound.
trace::Trace ReplaySchedule(const scenario::Scenario& s,
                            std::optional<int> step_bound = std::nullopt);

// A saved trace replayed: its embedded scenario, and the trace replaying its
// schedule gives.
struct ReplayedTrace {
  scenario::Scenario scenario;
  trace::Trace trace;
};
// Replays the trace `doc` read from `file` and checks that replaying gives
// the same record. Throws base::InputError ("FILE: at /pointer: what") for
// a document that is not a trace or that its scenario contradicts.
ReplayedTrace ReplaySavedTrace(const std::string& file, const nlohmann::json& doc);

// One random execution from `seed`.
// `stop` and `steps_run`: as for RunToTrace.
trace::Trace RunSeeded(const scenario::Scenario& s, uint64_t seed, int max_steps,
                       const std::atomic<bool>* stop = nullptr, size_t* steps_run = nullptr);

// The warning for an outcome violating `violated` ("": none) that `s`
// does not expect, or "" if expected. `conclusive`: the outcome holds for
// every schedule (a replayed schedule, an exhaustive search), so not
// finding a violation contradicts an expected one. `vacuous`, when an
// exhaustive search found no violation and asked: whether the SAFE is
// vacuous (run::ExploreResult::vacuous), which "vacuous" expects.
std::string Unexpected(const scenario::Scenario& s, const std::string& violated, bool conclusive,
                       std::optional<bool> vacuous = std::nullopt);

}  // namespace lockstep::run
