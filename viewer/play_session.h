// "Be the scheduler": a game over one scenario, in which the player chooses
// every action (which client runs its next command, a clock tick, a crash
// within the scenario's fault budget) and tries to reach a violation.
//
// The session is the game without a window, so that tests can script it:
// the viewer's play mode only draws it and forwards the player's choices.
// Its state is the schedule chosen so far; everything else (the trace, the
// choices) is recomputed by replaying it, which is cheap and deterministic,
// so undo is "replay one action fewer". A saved game is the trace that
// `lockstep replay` reproduces byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/limits.h"
#include "sim/explore/continuation.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"

namespace lockstep::viewer {

struct Choice {
  world::Action action;
  std::string text;     // schedule form: "C1", "C1~1", "tick", "crash C1"
  std::string preview;  // what it would do: "SETNX lock.foo 13", "clock 10 -> 11"
};

// The hint's answer, with the continuation in schedule form.
struct Hint {
  explore::Continuation search;
  std::vector<std::string> moves;  // kFound: the continuation, as choices
  std::string text;                // one or two sentences for the player
};

class PlaySession {
 public:
  // A game on `s`, ignoring its schedule: the player makes one.
  explicit PlaySession(scenario::Scenario s);
  // Throws scenario::ScenarioError for a bad file.
  static PlaySession FromFile(const std::string& path);

  const scenario::Scenario& scenario() const { return scenario_; }
  const std::vector<world::Action>& schedule() const { return schedule_; }
  std::vector<std::string> ScheduleText() const;
  // The game so far: the trace of the schedule (steps[0] is the start).
  const trace::Trace& trace() const { return trace_; }
  int steps() const { return static_cast<int>(schedule_.size()); }

  // What the player may do next; empty once the game is over.
  const std::vector<Choice>& choices() const { return choices_; }
  // Over: a property was violated, or nothing is left to do.
  bool over() const { return trace_.violation.has_value() || choices_.empty(); }
  const std::optional<check::Violation>& violation() const { return trace_.violation; }
  int crashes_left() const;
  // Why the clock cannot tick now ("" if it can, or the game is over):
  // the horizon, or the assumption that stops it.
  const std::string& tick_blocked() const { return tick_blocked_; }

  // Applies one action. Returns false, with the reason in *why, iff it is
  // not possible now (or the game is over).
  bool Choose(const world::Action& a, std::string* why);
  // The same, for an action in schedule form ("C1", "tick", "crash C2").
  bool Choose(const std::string& text, std::string* why);
  // Takes back the last action. Returns false iff there is none.
  bool Undo();
  void Restart();

  // What to tell the player now: whose move, or the violation reached
  // (the property, the clients, the step), or that nothing is left.
  std::string Status() const;

  // Is a violation still reachable from here, within the scenario's
  // bounds? Breadth-first search (explore::ShortestContinuation).
  Hint AskHint(uint64_t max_states = base::Limits::kShrinkStates) const;
  // The hint once its first move is played: the rest, and a text that says
  // so (a hint's text is about the state it was asked in).
  static Hint AfterFirstMove(Hint hint);

  // Writes the game as a trace, atomically. Throws base::InputError with
  // the reason iff it could not.
  void Save(const std::string& path) const;

 private:
  void Replay();  // recomputes the trace and the choices from schedule_

  scenario::Scenario scenario_;
  std::vector<world::Action> schedule_;
  trace::Trace trace_;
  std::vector<Choice> choices_;
  std::string tick_blocked_;
};

}  // namespace lockstep::viewer
