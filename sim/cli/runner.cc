#include "sim/cli/runner.h"

#include "sim/explore/random_strategy.h"
#include "sim/explore/replay_strategy.h"

namespace lockstep::cli {

trace::Trace RecordTrace(const scenario::Scenario& s,
                         const std::vector<world::Action>& schedule, const std::string& end,
                         const std::atomic<bool>* stop) {
  explore::Properties properties = explore::MakeProperties(s.properties);
  world::World w(s.world);
  trace::Trace t;
  t.scenario = s.document;
  t.seed = s.world.seed;
  for (size_t i = 0; i < s.world.clients.size(); ++i) {
    const auto& c = s.world.clients[i];
    t.clients.push_back({c.name, s.algorithms[i], c.skew, c.crashed});
  }
  if (w.model().server_count() > 1) t.server_names = w.model().server_names();
  t.steps.push_back(w.Initial());
  t.end = end;
  const std::string stopped = explore::EndReasonText(explore::EndReason::kStopped);
  for (const world::Action& a : schedule) {
    if (stop && stop->load()) {
      t.end = stopped;
      return t;
    }
    std::string why;
    if (!w.IsEnabled(a, &why)) {
      throw explore::ScheduleError(t.schedule.size(), "'" + world::FormatAction(a, w.client_names(), t.server_names) +
                                                          "' is not possible here: " + why);
    }
    t.schedule.push_back(world::FormatAction(a, w.client_names(), t.server_names));
    t.steps.push_back(w.Apply(a));
    if (auto v = check::CheckAll(properties, w.model(), w.state(), w.steps())) {
      t.violation = std::move(v);
      t.end = explore::EndReasonText(explore::EndReason::kViolation);
      break;
    }
  }
  if (!t.violation && w.EnabledActions().empty()) {
    if (auto v = check::CheckAllEnd(properties, w.model(), w.state(), w.steps())) {
      t.violation = std::move(v);
      t.end = explore::EndReasonText(explore::EndReason::kViolation);
    }
  }
  return t;
}

trace::Trace RunToTrace(const scenario::Scenario& s, explore::Strategy& strategy,
                        int max_steps) {
  world::Model model(s.world, /*use_forget_history=*/false);
  explore::ExecutionResult r = explore::RunExecution(
      model, strategy, explore::MakeProperties(s.properties), max_steps);
  return RecordTrace(s, r.schedule, explore::EndReasonText(r.end));
}

trace::Trace ReplaySchedule(const scenario::Scenario& s) {
  explore::ReplayStrategy replay(s.schedule);
  // The schedule, not a step bound, ends a replay.
  return RunToTrace(s, replay, static_cast<int>(s.schedule.size()) + 1);
}

trace::Trace RunSeeded(const scenario::Scenario& s, uint64_t seed, int max_steps) {
  explore::RandomStrategy random(seed);
  return RunToTrace(s, random, max_steps);
}

}  // namespace lockstep::cli
