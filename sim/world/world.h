// One simulated system: a model Redis server, a global virtual clock, and
// clients C1..C5 running lock algorithms as Boost.Fiber fibers.
//
// The world does not choose what happens next. It lists the enabled actions
// (EnabledActions) and applies the one it is given (Apply), recording the
// step. Everything that happens is a function of the configuration and the
// sequence of actions applied, so a run can be replayed exactly.
//
// Semantics (DESIGN.md): one command is one atomic step at the server; a
// client's local code between two commands runs inside the step that resumed
// it; the global clock moves only by tick actions, up to the horizon; a
// client's clock is global time plus its skew.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/fiber/fiber.hpp>

#include "sim/kv/keyspace.h"
#include "sim/world/action.h"
#include "sim/world/client.h"

namespace lockstep::world {

struct ClientSetup {
  std::string name;       // "C1".."C5"
  std::string algorithm;  // a label for traces; the body is what runs
  Millis skew = 0;        // this client's clock = global time + skew
  bool crashed = false;   // crashed before the run: never runs at all
  std::function<void(Client&)> body;
};

// The partly synchronous world that timeout-based locks rely on, stated as
// bounds the clock respects (DESIGN.md, "Assumptions are explicit").
struct Assumptions {
  // Largest age, in ticks, of a command's timestamp arguments when it
  // executes. 0: the clock is read in the command's own step. nullopt: no
  // bound (any time since the client's previous step).
  std::optional<Millis> max_arg_delay = 0;
  // The clock never passes a holder's own validity (the `valid_until` it
  // gave EnterCriticalSection) while that client still holds the lock.
  bool holders_release_in_time = false;
  // The clock never moves more than this many ticks past a holder's
  // acquisition while it still holds the lock.
  std::optional<Millis> max_hold_ticks;
};

struct FaultBudget {
  int crash = 0;  // crash actions the scheduler may take
};

struct WorldConfig {
  std::vector<ClientSetup> clients;
  std::vector<kv::Entry> initial_keyspace;
  // Ghost: which client wrote each initial value (key -> client name).
  std::map<std::string, std::string> initial_writers;
  Millis start_time = 0;
  Millis horizon = 0;  // the global clock never exceeds this
  Assumptions assumptions;
  FaultBudget faults;
  uint64_t seed = 0;
};

enum class ClientStatus { kReady, kSleeping, kDone, kCrashed };
const char* StatusName(ClientStatus s);

// What the world knows of a client: its status and its ghost state.
struct ClientState {
  ClientStatus status = ClientStatus::kReady;
  Millis ready_since = 0;  // global time its pending request was issued
  Millis wake_at = 0;      // kSleeping: global time it becomes ready
  bool in_critical_section = false;
  bool holding = false;    // believes it holds the lock
  Millis valid_until = 0;  // its own clock's deadline for the lock it holds
  Millis acquired_at = 0;  // global time it entered the critical section
  int steps = 0;
};

// The record of one applied action.
struct StepRecord {
  int index = 0;  // 1-based
  Action action;
  std::string actor;                 // client name, or "clock"
  std::vector<std::string> command;  // argv as executed; empty if none
  std::optional<kv::Reply> reply;
  std::vector<std::string> events;   // e.g. "C1 enters", "C2 wakes"
  Millis global_time = 0;            // after the step
  std::vector<Millis> client_clocks;
  std::vector<kv::Entry> keyspace;   // live entries after the step
  std::vector<std::string> in_critical_section;
  std::vector<std::string> holding;
  std::map<std::string, std::string> writers;  // key -> who wrote its value
};

class World {
 public:
  // Starts every client's fiber; each runs its local code up to its first
  // scheduling point.
  explicit World(WorldConfig config);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Every action enabled now, in a fixed order: client steps by client
  // index (and argument age), then tick, then crashes.
  std::vector<Action> EnabledActions() const;

  // Returns true iff `a` is enabled now; otherwise says why in *why.
  bool IsEnabled(const Action& a, std::string* why) const;

  // Applies an action and returns its record.
  // REQUIRES: IsEnabled(a)
  StepRecord Apply(const Action& a);

  // A record of the state before any action (index 0, actor "start").
  StepRecord Initial() const;

  Millis now() const { return now_; }
  Millis ClientClock(int i) const { return now_ + config_.clients[i].skew; }
  const kv::Keyspace& keyspace() const { return keyspace_; }
  const ClientState& state(int i) const { return states_[i]; }
  int client_count() const { return static_cast<int>(clients_.size()); }
  const std::vector<std::string>& client_names() const { return names_; }
  const WorldConfig& config() const { return config_; }
  int crashes_used() const { return crashes_used_; }

 private:
  friend class Client;

  void Resume(int i);
  void Settle(int i);
  void Snapshot(StepRecord* r) const;
  Millis MaxArgAge(int i) const;
  bool TickAllowed(std::string* why) const;
  std::vector<std::string> Evaluate(int i, Millis age);
  void NoteWrites(const std::vector<std::string>& argv, int writer);

  // Called by Client from inside its fiber.
  void OnEnter(int i, Millis valid_until);
  void OnForget(int i);

  WorldConfig config_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<boost::fibers::fiber> fibers_;
  std::vector<ClientState> states_;
  kv::Keyspace keyspace_;
  std::map<std::string, std::string> writers_;
  Millis now_ = 0;
  int crashes_used_ = 0;
  int step_count_ = 0;
  std::vector<std::string>* events_ = nullptr;  // of the step being applied
  boost::fibers::context* driver_ = nullptr;
  FiberScheduler* scheduler_ = nullptr;
};

}  // namespace lockstep::world
