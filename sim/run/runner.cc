#include "sim/run/runner.h"

#include <algorithm>
#include <iostream>

#include "sim/base/input_error.h"
#include "sim/check/liveness.h"
#include "sim/explore/liveness.h"
#include "sim/explore/random_strategy.h"
#include "sim/explore/replay_strategy.h"
#include "sim/explore/state_space.h"
#include "sim/run/trace_folders.h"

namespace lockstep::run {

namespace {

// Records each step of an execution into `t`.
class TraceRecorder : public explore::StepObserver {
 public:
  explicit TraceRecorder(trace::Trace& t) : t_(t) {}
  void Applied(const world::Model& model, const world::WorldState& s, int index,
               const world::Action& a, world::StepEffects effects) override {
    t_.schedule.push_back(world::FormatAction(a, model.client_names(), t_.server_names));
    t_.steps.push_back(world::RecordStep(model, s, index, a, std::move(effects)));
  }

 private:
  trace::Trace& t_;
};

}  // namespace

trace::Trace RunToTrace(const scenario::Scenario& s, explore::Strategy& strategy, int max_steps,
                        const std::atomic<bool>* stop, size_t* steps_run) {
  const explore::Properties properties = explore::MakeProperties(s.properties);
  // Every history kept: a trace records what each client observed.
  explore::StateSpace space(s.world, properties,
                            {.forget_history = false,
                             .abstract_identity = false,
                             .symmetry = false,
                             .max_steps = max_steps});
  world::Model& model = space.model();
  trace::Trace t;
  t.scenario = s.document;
  t.seed = s.world.seed;
  for (size_t i = 0; i < s.world.clients.size(); ++i) {
    const auto& c = s.world.clients[i];
    t.clients.push_back({c.name, s.algorithms[i], c.skew, c.crashed});
  }
  if (model.server_count() > 1) t.server_names = model.server_names();
  t.steps.push_back(world::RecordStart(model, model.Initial()));
  TraceRecorder recorder(t);
  explore::ExecutionResult r = explore::RunExecution(space, strategy, stop, &recorder);
  if (steps_run) *steps_run = r.schedule.size();
  t.end = explore::EndReasonText(r.end);
  t.violation = std::move(r.violation);
  return t;
}

trace::Trace RecordTrace(const scenario::Scenario& s, const std::vector<world::Action>& schedule,
                         const std::atomic<bool>* stop) {
  explore::ReplayStrategy replay(schedule);
  return RunToTrace(s, replay, static_cast<int>(schedule.size()) + 1, stop);
}

namespace {

// Marks `t`, the record of `schedule`, as the lasso `lasso`, with the
// violation it shows (none if it is no fair violating cycle).
void MarkLasso(const scenario::Scenario& s, const std::vector<world::Action>& schedule,
               trace::Trace::Lasso lasso, trace::Trace& t) {
  const std::vector<std::string> liveness = check::LivenessIn(s.properties);
  t.lasso = lasso;
  t.violation = explore::JudgeLasso(s.world, schedule, static_cast<size_t>(lasso.start),
                                    static_cast<size_t>(lasso.length), liveness);
  t.format_version = trace::kLassoFormatVersion;
}

}  // namespace

trace::Trace RecordLasso(const scenario::Scenario& s, const std::vector<world::Action>& prefix,
                         const std::vector<world::Action>& cycle) {
  std::vector<world::Action> schedule = prefix;
  for (int turn = 0; turn < 2; ++turn) schedule.insert(schedule.end(), cycle.begin(), cycle.end());
  trace::Trace t = RecordTrace(s, schedule);
  MarkLasso(s, schedule, {static_cast<int>(prefix.size()), static_cast<int>(cycle.size())}, t);
  return t;
}

trace::Trace ReplaySchedule(const scenario::Scenario& s, std::optional<int> step_bound) {
  explore::ReplayStrategy replay(s.schedule);
  // The schedule ends a replay, unless a step bound ended the run replayed.
  return RunToTrace(s, replay, step_bound.value_or(static_cast<int>(s.schedule.size()) + 1));
}

namespace {

// For a step of a process client: what most likely made it differ.
std::string ProcessHint(const scenario::Scenario& s, const nlohmann::json& step) {
  if (!step.is_object() || !step.contains("actor") || !step["actor"].is_string()) return "";
  const std::string actor = step["actor"];
  for (const scenario::NamedProgram& p : s.programs) {
    if (p.client != actor) continue;
    return ": " + actor +
           "'s process made a different request; is it deterministic? (a program whose "
           "requests depend on its own clock, randomness, process id or folder, which "
           "lockstep does not give it, runs differently each time)";
  }
  return "";
}

}  // namespace

ReplayedTrace ReplaySavedTrace(const std::string& file, const nlohmann::json& doc) {
  using nlohmann::json;
  const trace::Trace saved = trace::FromJson(doc, file);
  ReplayedTrace out;
  out.scenario = scenario::LoadScenario(saved.scenario, file, "/scenario");
  scenario::Scenario& s = out.scenario;
  s.world.seed = saved.seed;
  std::vector<std::string> names;
  for (const auto& c : s.world.clients) names.push_back(c.name);
  if (saved.clients.size() != names.size() ||
      !std::equal(names.begin(), names.end(), saved.clients.begin(),
                  [](const std::string& n, const trace::ClientInfo& c) { return n == c.name; })) {
    throw base::InputError(file, "/clients", "the clients do not match the embedded scenario's");
  }
  s.schedule.clear();
  for (size_t i = 0; i < saved.schedule.size(); ++i) {
    try {
      s.schedule.push_back(world::ParseAction(saved.schedule[i], names, saved.server_names));
    } catch (const base::InputError& e) {
      throw base::InputError(file, "/schedule/" + std::to_string(i), e.expected);
    }
  }
  s.has_schedule = true;
  // A run a step bound ended replays under that bound: the schedule's length.
  std::optional<int> step_bound;
  if (saved.end == explore::EndReasonText(explore::EndReason::kStepBound)) {
    step_bound = static_cast<int>(s.schedule.size());
  }
  try {
    out.trace = ReplaySchedule(s, step_bound);
  } catch (const explore::ScheduleError& e) {
    throw base::InputError(file, "/schedule/" + std::to_string(e.position), e.what());
  }
  // A lasso is judged again: the same cycle, back where it began, fair and
  // violating the same property.
  if (saved.lasso) MarkLasso(s, s.schedule, *saved.lasso, out.trace);
  json again = trace::ToJson(out.trace, saved.format_version);
  if (doc.contains("scenario")) AdoptRecordedFolders(again["scenario"], doc["scenario"], file);
  if (again != doc) {
    // Name the first place where the file and the replay disagree.
    std::string where = "/";
    std::string hint;
    const json& a = doc.contains("steps") ? doc["steps"] : json();
    const json& b = again["steps"];
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      if (i >= a.size() || i >= b.size() || a[i] != b[i]) {
        where = "/steps/" + std::to_string(i);
        hint = ProcessHint(s, i < b.size() ? b[i] : a[i]);
        break;
      }
    }
    if (where == "/") {
      for (auto it = again.begin(); it != again.end(); ++it) {
        if (!doc.contains(it.key()) || doc[it.key()] != it.value()) {
          where = "/" + it.key();
          break;
        }
      }
    }
    throw base::InputError(file, where,
                           "the trace contradicts its scenario: replaying its schedule gives a "
                           "different record here" +
                               hint);
  }
  return out;
}

trace::Trace RunSeeded(const scenario::Scenario& s, uint64_t seed, int max_steps,
                       const std::atomic<bool>* stop, size_t* steps_run) {
  explore::RandomStrategy random(seed);
  return RunToTrace(s, random, max_steps, stop, steps_run);
}

std::string Unexpected(const scenario::Scenario& s, const std::string& violated, bool conclusive,
                       std::optional<bool> vacuous) {
  if (violated.empty() && !conclusive) return "";
  const bool matches =
      vacuous ? s.expect.MatchesSearch(violated, *vacuous) : s.expect.Matches(violated);
  if (matches) return "";
  std::string found = violated + " was violated";
  if (violated.empty()) {
    found = !vacuous ? "no property was violated"
            : *vacuous
                ? "the SAFE is vacuous (a client expected to enter the critical section never does)"
                : "no property was violated, and every client expected to enter the critical "
                  "section does";
  }
  return "at /expect: expected " + s.expect.Text() + ", but " + found;
}

}  // namespace lockstep::run
