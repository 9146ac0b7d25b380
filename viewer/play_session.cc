#include "viewer/play_session.h"

#include <algorithm>
#include <cstdio>

#include "sim/base/input_error.h"
#include "sim/base/join.h"
#include "sim/check/liveness.h"
#include "sim/run/output_file.h"
#include "sim/run/runner.h"
#include "sim/run/trace_folders.h"
#include "sim/trace/trace.h"

namespace lockstep::viewer {
namespace {

bool HasLiveness(const scenario::Scenario& s) { return !check::LivenessIn(s.properties).empty(); }

using base::Join;

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

}  // namespace

PlaySession::PlaySession(scenario::Scenario s) : scenario_(std::move(s)) {
  scenario_.schedule.clear();
  scenario_.schedule_text.clear();
  scenario_.has_schedule = false;
  Replay();
}

PlaySession PlaySession::FromFile(const std::string& path) {
  return PlaySession(scenario::LoadScenarioFile(path));
}

std::vector<std::string> PlaySession::ScheduleText() const { return trace_.schedule; }

int PlaySession::crashes_left() const {
  int used = 0;
  for (const world::Action& a : schedule_) used += a.kind == world::Action::Kind::kCrash;
  return scenario_.world.faults.crash - used;
}

void PlaySession::Replay() {
  scenario::Scenario s = scenario_;
  s.schedule = schedule_;
  s.has_schedule = true;
  trace_ = run::ReplaySchedule(s);
  choices_.clear();
  tick_blocked_.clear();
  if (trace_.violation) return;

  // The choices, each previewed on a copy of the current state.
  world::Model model(scenario_.world, /*use_forget_history=*/false);
  world::WorldState state = model.Initial();
  for (const world::Action& a : schedule_) model.Apply(state, a, nullptr);
  std::vector<world::Action> enabled;
  model.EnabledActions(state, &enabled);
  if (!enabled.empty() && !model.IsEnabled(state, world::Action::Tick(), &tick_blocked_)) {
    tick_blocked_ = "the clock cannot tick: " + tick_blocked_;
  } else {
    tick_blocked_.clear();
  }
  for (const world::Action& a : enabled) {
    Choice c;
    c.action = a;
    c.text = world::FormatAction(a, model.client_names(), model.server_names());
    world::WorldState next = state;
    world::StepEffects effects;
    model.Apply(next, a, &effects);
    if (a.kind == world::Action::Kind::kStep) {
      const std::string& name = model.client_names()[static_cast<size_t>(a.client)];
      c.preview = !effects.command.empty()                  ? Join(effects.command, " ")
                  : trace::WakesActor(effects.events, name) ? "wakes (its back-off may end here)"
                                                            : "leaves the critical section";
      if (a.arg_age > 0)
        c.preview += " (arguments read " + std::to_string(a.arg_age) + " ticks ago)";
    } else if (a.kind == world::Action::Kind::kTick) {
      c.preview = "clock " + std::to_string(state.now) + " -> " + std::to_string(next.now);
    } else if (a.kind == world::Action::Kind::kCrash) {
      c.preview = model.client_names()[static_cast<size_t>(a.client)] + " crashes (" +
                  std::to_string(crashes_left() - 1) + " more crashes allowed after this)";
    } else {
      c.preview = c.text;
    }
    choices_.push_back(std::move(c));
  }
}

bool PlaySession::Choose(const world::Action& a, std::string* why) {
  if (trace_.violation) {
    *why = "the game is over: " + trace_.violation->property + " was violated at step " +
           std::to_string(trace_.violation->step);
    return false;
  }
  for (const Choice& c : choices_) {
    if (c.action == a) {
      schedule_.push_back(a);
      Replay();
      return true;
    }
  }
  std::vector<std::string> names;
  for (const auto& c : scenario_.world.clients) names.push_back(c.name);
  world::Model model(scenario_.world, /*use_forget_history=*/false);
  world::WorldState state = model.Initial();
  for (const world::Action& done : schedule_) model.Apply(state, done, nullptr);
  std::string reason;
  if (model.IsEnabled(state, a, &reason)) reason = "not offered here";
  *why = "'" + world::FormatAction(a, names, model.server_names()) +
         "' is not possible here: " + reason;
  return false;
}

bool PlaySession::Choose(const std::string& text, std::string* why) {
  std::vector<std::string> names;
  for (const auto& c : scenario_.world.clients) names.push_back(c.name);
  std::vector<std::string> servers;
  for (const auto& sv : scenario_.world.servers) servers.push_back(sv.name);
  world::Action a;
  try {
    a = world::ParseAction(text, names, servers);
  } catch (const base::InputError& e) {
    *why = e.expected;
    return false;
  }
  return Choose(a, why);
}

bool PlaySession::Undo() {
  if (schedule_.empty()) return false;
  schedule_.pop_back();
  Replay();
  return true;
}

void PlaySession::Restart() {
  schedule_.clear();
  Replay();
}

std::string PlaySession::Status() const {
  if (const auto& v = trace_.violation) {
    return "Violation reached: " + v->property + " broken at step " + std::to_string(v->step) +
           " by " + Join(v->clients, " and ") + ". " + v->message + ".";
  }
  if (choices_.empty()) {
    return "Nothing left to do after " + std::to_string(steps()) +
           " steps, and no violation: every client finished or waits on a clock that "
           "cannot move.";
  }
  std::string s = "Step " + std::to_string(steps()) + ", clock " +
                  std::to_string(trace_.steps.back().global_time) + ". ";
  const auto& cs = trace_.steps.back().in_critical_section;
  s += cs.empty() ? "Nobody is in the critical section. "
                  : Join(cs, ", ") + " in the critical section. ";
  return s + "Choose what happens next.";
}

Hint PlaySession::AfterFirstMove(Hint hint) {
  if (hint.moves.empty()) return hint;
  hint.moves.erase(hint.moves.begin());
  if (hint.moves.empty()) {
    hint.text = "That was the hint's last move.";
  } else {
    hint.text = "Following the hint: " + std::to_string(hint.moves.size()) + " more step" +
                (hint.moves.size() == 1 ? "" : "s") + " to the violation (" +
                Join(hint.moves, ", ") + ").";
  }
  return hint;
}

Hint PlaySession::AskHint(uint64_t max_states) const {
  Hint h;
  explore::Properties properties = explore::MakeProperties(scenario_.properties);
  const int remaining = std::max(0, scenario_.max_steps - steps());
  h.search =
      explore::ShortestContinuation(scenario_.world, properties, schedule_, remaining, max_states);
  std::vector<std::string> names;
  for (const auto& c : scenario_.world.clients) names.push_back(c.name);
  const std::string searched = std::to_string(h.search.stats.states) + " states searched in " +
                               Seconds(h.search.stats.elapsed_s);
  switch (h.search.outcome) {
    case explore::Continuation::Outcome::kFound: {
      for (const world::Action& a : h.search.actions)
        h.moves.push_back(world::FormatAction(a, names, trace_.server_names));
      const auto& v = *h.search.violation;
      if (h.moves.empty()) {
        h.text = "The violation is already here: " + v.property + " at step " +
                 std::to_string(v.step) + ".";
      } else {
        h.text = "A violation is still reachable: " + v.property + " in " +
                 std::to_string(h.moves.size()) + " more step" + (h.moves.size() == 1 ? "" : "s") +
                 " (" + Join(h.moves, ", ") + "), at step " + std::to_string(v.step) + " (" +
                 searched + ").";
      }
      break;
    }
    case explore::Continuation::Outcome::kUnreachable:
      h.text =
          "No violation is reachable from here within the scenario's bounds (" +
          world::HorizonText(scenario_.world.horizon) + ", " + std::to_string(crashes_left()) +
          " crash" + (crashes_left() == 1 ? "" : "es") + " left" +
          (h.search.step_bound_reached ? ", " + std::to_string(remaining) + " more steps" : "") +
          "): " + searched + "." +
          (HasLiveness(scenario_)
               ? " This is about the properties checked step by step: liveness is judged on "
                 "fair infinite executions, by lockstep explore."
               : "");
      break;
    case explore::Continuation::Outcome::kGaveUp:
      h.text = "Unknown: the search " + h.search.why + " without an answer (" + searched + ").";
      break;
  }
  return h;
}

void PlaySession::Save(const std::string& path) const {
  run::WriteOutput(path, run::TraceTextFor(trace_, scenario_.file, path));
}

}  // namespace lockstep::viewer
