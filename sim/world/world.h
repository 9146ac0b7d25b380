// One run of a simulated system, recorded step by step: a Model, its
// current state, and the ghost record of who wrote each value.
//
// The world does not choose what happens next. It lists the enabled actions
// and applies the one it is given, recording the step. Everything that
// happens is a function of the configuration and the actions applied, so a
// run can be replayed exactly.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/world/model.h"

namespace lockstep::world {

// One server as a step left it (recorded when the world has several).
struct ServerRecord {
  std::string name;
  std::string role;                 // "master", "replica" or "failed"
  bool available = true;            // false while it restarts
  Millis clock = 0;                 // its clock
  std::vector<kv::Entry> keyspace;  // live entries, by its clock
  std::map<std::string, std::string> writers;
  int unreplicated = 0;  // a master's writes its replica has not applied
  friend bool operator==(const ServerRecord&, const ServerRecord&) = default;
};

// The record of one applied action.
struct StepRecord {
  int index = 0;  // 1-based; 0 is the initial state
  Action action;
  std::string actor;                 // client name, "clock", or "start"
  std::vector<std::string> command;  // argv as executed; empty if none
  std::string server;                // with several servers: where it ran
  std::optional<kv::Reply> reply;
  std::vector<std::string> events;  // e.g. "C1 enters the critical section"
  Millis global_time = 0;           // after the step
  std::vector<Millis> client_clocks;
  // Live entries after the step, on the server that is the first instance's
  // master; with several servers, `servers` has every one.
  std::vector<kv::Entry> keyspace;
  std::vector<ServerRecord> servers;
  std::vector<std::string> in_critical_section;
  std::vector<std::string> holding;
  std::map<std::string, std::string> writers;  // key -> who wrote its value
  // Ghosts for readers: where the acting client's algorithm made the request
  // ("file.cc:12"), and what the clients resumed said of their decisions.
  std::string source;
  struct Why {
    std::string client;
    Reason reason;
    friend bool operator==(const Why&, const Why&) = default;
  };
  std::vector<Why> reasons;
};

// The record of step `index`: action `a`, applied with `effects`, left the
// state `s` of `model`. How every recorder (World, a trace) sees a step.
StepRecord RecordStep(const Model& model, const WorldState& s, int index, const Action& a,
                      StepEffects effects);
// The record of the initial state `s` (index 0, actor "start").
StepRecord RecordStart(const Model& model, const WorldState& s);

class World {
 public:
  // Starts every client, each up to its first scheduling point.
  explicit World(WorldConfig config);

  std::vector<Action> EnabledActions() const;
  bool IsEnabled(const Action& a, std::string* why) const;
  // Applies an action and returns its record. REQUIRES: IsEnabled(a)
  StepRecord Apply(const Action& a);
  // A record of the state before any action (index 0, actor "start").
  StepRecord Initial() const;

  const Model& model() const { return model_; }
  const WorldState& state() const { return state_; }
  Millis now() const { return state_.now; }
  Millis ClientClock(int i) const { return model_.ClientClock(state_, i); }
  // The keyspace of the first instance's master.
  const kv::Keyspace& keyspace() const { return state_.servers[state_.serving[0]].keyspace; }
  const ClientSlot& client(int i) const { return state_.clients[i]; }
  int client_count() const { return model_.client_count(); }
  const std::vector<std::string>& client_names() const { return model_.client_names(); }
  int steps() const { return step_count_; }

 private:
  Model model_;
  WorldState state_;
  int step_count_ = 0;
};

}  // namespace lockstep::world
