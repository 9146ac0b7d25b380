// The semantics of one simulated system, over states that are plain values.
//
// A WorldState holds everything that decides the future: the keyspace, the
// global clock, and per client its automaton state, status and ghost state.
// The Model lists the actions enabled in a state and applies one to it. A
// single run (World) and the explorer's millions of states share this code.
//
// Semantics (docs/design.md): one command is one atomic step at the server; a
// client's local code between two commands runs inside the step that resumed
// it; the global clock moves only by tick actions, up to the horizon; a
// client's clock is global time plus its skew.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/inline_vector.h"
#include "sim/base/limits.h"
#include "sim/kv/dispatch.h"
#include "sim/kv/keyspace.h"
#include "sim/world/action.h"
#include "sim/world/client_automaton.h"
#include "sim/world/fault_kind.h"

namespace lockstep::world {

struct ClientSetup {
  std::string name;       // "C1".."C5"
  std::string algorithm;  // a label for traces and symmetry; the body is what runs
  std::string settings;   // a label of its settings, for symmetry
  // The algorithm draws random numbers, not only tokens (Client::Random):
  // never interchangeable with another client. Otherwise Random() throws.
  bool draws_numbers = false;
  // No reply it reads holds a token (algo::AlgorithmInfo::never_reads_tokens).
  bool never_reads_tokens = false;
  Millis skew = 0;       // this client's clock = global time + skew
  bool crashed = false;  // crashed before the run: never runs at all
  // A lost request or reply, or an unavailable server, reaches the client
  // as a timeout this many ticks after it sent the command (0: at once).
  Millis request_timeout = 0;
  // Its algorithm declares relative_time (algo::AlgorithmInfo), and the
  // largest time offset it can make (the sum of its integer settings).
  bool relative_time = false;
  Millis time_constants = 0;
  std::function<void(Client&)> body;
  // Runs of the body its automaton keeps parked for later learning (a
  // process client's runs are whole programs: fewer).
  size_t max_parked = ClientAutomaton::kMaxParked;
  // The memory its automaton's transitions may hold before it forgets them.
  uint64_t max_memo_bytes = ClientAutomaton::kMaxMemoBytes;
};

// The partly synchronous world that timeout-based locks rely on, stated as
// bounds the clock respects (docs/design.md, "Assumptions are explicit").
struct Assumptions {
  // Largest age, in ticks, of a command's clock-based arguments when it
  // executes. 0: the clock is read in the command's own step. nullopt: no
  // bound (any time since the client's previous step).
  std::optional<Millis> max_arg_delay = 0;
  // The clock never passes a holder's own validity (the `valid_until` it
  // last gave EnterCriticalSection or Renew) while that client still holds
  // the lock.
  bool holders_release_in_time = false;
  // The clock never moves more than this many ticks past a holder's
  // acquisition while it still holds the lock.
  std::optional<Millis> max_hold_ticks;
  // The clock never ticks while a client has waited this many ticks for
  // its step (0: a step takes no time). Without such a bound a scheduler
  // can hold a client back until the others catch up, which defeats any
  // random back-off (docs/design.md, "Probabilistic choices").
  std::optional<Millis> max_ready_ticks;
};

enum class Persistence {
  kAlways,    // every write is synced: a restart loses nothing
  kEverySec,  // synced every `sync_every` ticks: a restart loses the rest
  kNone,      // nothing is kept: a restart comes back empty
};

// One Redis server. Masters are the instances clients address, in order;
// a replica follows one master asynchronously and takes its place in a
// failover.
struct ServerConfig {
  std::string name = "S1";
  Millis skew = 0;  // the server's clock = global time + skew + its jumps
  Persistence persistence = Persistence::kAlways;
  Millis sync_every = 1;
  // After a restart the server refuses service for this many ticks (Redlock's
  // "delayed restarts"); 0: it serves again at once.
  Millis restart_delay = 0;
  int replica_of = -1;  // index of the master it replicates; -1: a master
};

// A resource the lock protects. Writes to it are a step of their own; a
// fenced resource accepts a write only with a token larger than every token
// it has accepted.
struct ResourceConfig {
  bool enabled = false;
  bool fenced = false;
};

struct WorldConfig {
  std::vector<ClientSetup> clients;
  std::vector<kv::Entry> initial_keyspace;
  // Ghost: which client wrote each initial value (key -> client name).
  std::map<std::string, std::string> initial_writers;
  Millis start_time = 0;
  // The global clock never exceeds this. nullopt: all time; the explorer
  // then keeps times relative to the clock (docs/design.md, "Time without a
  // horizon").
  std::optional<Millis> horizon = 0;
  Assumptions assumptions;
  FaultBudget faults;
  std::vector<ServerConfig> servers = {ServerConfig{}};  // at least one master
  ResourceConfig resource;
  uint64_t seed = 0;
  // A random back-off (Client::SleepRandom) is a probabilistic draw of its
  // delay, not a delay the adversary picks (explore --probabilistic).
  bool probabilistic = false;
};

// "horizon 8", or "all time (no horizon)".
std::string HorizonText(const std::optional<Millis>& horizon);

// kFailed: its algorithm threw an exception that is a finding about it (a
// Redis error it did not handle, say: check::ClientError); it does nothing
// more, and its automaton state is the one it threw in.
enum class ClientStatus : uint8_t { kReady, kSleeping, kDone, kCrashed, kFailed };
const char* StatusName(ClientStatus s);
// It still runs: ready or sleeping. A client that finished, crashed or
// failed does nothing more.
inline bool Runs(ClientStatus s) {
  return s == ClientStatus::kReady || s == ClientStatus::kSleeping;
}

// No client that runs reads a reply that holds a token (each declares
// never_reads_tokens): symmetry may rename tokens with their clients.
bool TokensRenamable(const WorldConfig& config);

struct ClientSlot {
  LocalState local = 0;              // the automaton's state (0 once done or crashed)
  const Request* request = nullptr;  // the automaton's request in `local`
  Millis ready_since = 0;            // global time its pending request was made
  Millis wake_at = 0;                // kSleeping: global time from which it may wake...
  Millis wake_by = 0;         // ...and by which it has woken (Client::SleepBetween; else wake_at)
  Millis valid_until = 0;     // its own clock's deadline for the lock it holds
  Millis acquired_at = 0;     // global time it entered the critical section
  Millis sent_timestamp = 0;  // timing_out and sent_clock: its command's clock argument
  ClientStatus status = ClientStatus::kReady;
  bool in_critical_section : 1 = false;
  bool holding : 1 = false;     // believes it holds the lock
  bool stalled : 1 = false;     // a stall fault exempts it from the holder's bounds
  bool timing_out : 1 = false;  // kSleeping: it wakes with a timeout as its reply
  bool sent_clock : 1 = false;  // timing_out: its command had a clock argument
  bool superseded : 1 = false;  // a client that acquired after it has written the resource since
  bool gave_up : 1 = false;     // its last attempt gave up (Client::GiveUp), not entered since
  uint8_t acquired_after = 0;   // clients (bits) that acquired after its acquisition
  int8_t superseded_by = -1;    // superseded: which client first
};
// A state copies its clients whole: each fits in 72 bytes.
static_assert(sizeof(ClientSlot) == 72);
static_assert(base::kMaxClients <= 8, "ClientSlot::acquired_after holds a bit per client");

// Ghost facts about the step just applied, for properties. Not part of a
// state's identity: the explorer checks them right after each step.
struct StepGhost {
  int released_by = -1;  // this client's command removed a value, while releasing,...
  int released_of = -1;  // ...that belonged to this writer's acquisition
  kv::Text released_key;
  int stale_writer = -1;  // the resource accepted this client's write after a
                          // client that acquired the lock later had written it
  int stale_over = -1;    // that later client
  int64_t stale_token = 0;
  int lost_renewer = -1;  // this client renewed a lease another client acquired after it...
  int lost_to = -1;       // ...this one (the first of them)
  // The stepping client entered the critical section, stopped holding the
  // lock, or renewed its lease: what makes two steps' order matter to
  // `acquired_after` and what is read of it.
  bool entered = false;
  bool forgot = false;
  bool renewed = false;
};

// Ghost facts about a key's current value, as indices into
// Model::writer_names(): who wrote it last, and whose acquisition it belongs
// to (the writer that then entered the critical section; -1 for a value no
// acquisition holds, such as a losing GETSET's). A write that leaves the
// value as it was (GETSET writing back the same timestamp, PEXPIRE) keeps
// its owner, so that the owner's release of its own lock is not mistaken for
// the release of another's. Kept in the key's entry (kv::Entry::writer and
// owner); a key that does not exist has none.
struct ValueGhost {
  int writer = -1;
  int owner = -1;
  friend bool operator==(const ValueGhost&, const ValueGhost&) = default;
};
inline ValueGhost GhostIn(const kv::Entry& e) { return {e.writer, e.owner}; }

// A key of a command as the command found it, for its ghost facts.
struct KeyBefore {
  ValueGhost ghost;
  std::optional<kv::Entry> entry;  // nullopt: absent
};

// A write a master has applied and its replica not yet: the new contents of
// each key it changed (nullopt: removed), as Redis replicates effects.
struct ReplicatedWrite {
  struct Key {
    kv::Text key;
    std::optional<kv::Entry> entry;  // with its ghost facts
    ValueGhost ghost() const { return entry ? GhostIn(*entry) : ValueGhost{}; }
    friend bool operator==(const Key&, const Key&) = default;
  };
  std::vector<Key> keys;
  friend bool operator==(const ReplicatedWrite&, const ReplicatedWrite&) = default;
};

enum class ServerRole : uint8_t { kMaster, kReplica, kFailed };
const char* RoleName(ServerRole r);

struct ServerState {
  kv::Keyspace keyspace;
  kv::Keyspace persisted;  // what a restart gets back (Persistence::kEverySec), without ghosts
  Millis jumped = 0;       // total of this server's clock jumps
  Millis down_until = 0;   // unavailable while the global clock is below it
  ServerRole role = ServerRole::kMaster;
  std::vector<ReplicatedWrite> backlog;  // a master's writes its replica lacks
};

struct WorldState {
  Millis now = 0;
  FaultCounts used;
  base::InlineVector<ClientSlot, base::kMaxClients> clients;
  std::vector<ServerState> servers;
  std::vector<int> serving;  // per instance: the server that is its master now
  bool resource_written = false;
  int64_t resource_max = 0;  // largest token the resource accepted
  StepGhost step;            // of the last step only
};

// What one applied action did, for traces.
struct StepEffects {
  std::vector<std::string> command;  // argv as executed; empty if none
  int server = -1;                   // the server it was sent to, if any
  bool ran = false;                  // it reached `server` and ran there (not lost, not down)
  std::optional<kv::Reply> reply;
  std::vector<std::string> events;  // "C1 enters the critical section", ...
  kv::Effect effect;                // on the keyspace
  std::string source;               // a client's step: where its algorithm made the request
  std::vector<std::pair<int, Reason>> reasons;  // what each client resumed said of its decisions
};

class Model {
 public:
  // `use_forget_history`: see ClientAutomaton.
  Model(WorldConfig config, bool use_forget_history);

  WorldState Initial();

  // Every action enabled in `s`, in a fixed order: client steps by client
  // index (and argument age), then tick, then replication, then faults in
  // the order of kFaultKinds.
  void EnabledActions(const WorldState& s, std::vector<Action>* out) const;
  // Returns true iff `a` is enabled in `s`; otherwise says why in *why.
  bool IsEnabled(const WorldState& s, const Action& a, std::string* why) const;
  // Applies `a` to `s`. Fills *effects if given. REQUIRES: IsEnabled(s, a)
  void Apply(WorldState& s, const Action& a, StepEffects* effects);

  const WorldConfig& config() const { return config_; }
  const std::vector<std::string>& client_names() const { return names_; }
  // Client names, then the other writers the initial keyspace names.
  const std::vector<std::string>& writer_names() const { return writer_names_; }
  int client_count() const { return static_cast<int>(names_.size()); }
  Millis ClientClock(const WorldState& s, int i) const { return s.now + config_.clients[i].skew; }
  Millis ServerClock(const WorldState& s, int server) const {
    return s.now + config_.servers[server].skew + s.servers[server].jumped;
  }
  const std::vector<std::string>& server_names() const { return server_names_; }
  int server_count() const { return static_cast<int>(server_names_.size()); }
  int instance_count() const { return static_cast<int>(masters_.size()); }
  // The server a command to `instance` reaches now.
  static int Serving(const WorldState& s, int instance) { return s.serving[instance]; }
  // Server `server` is up (not failed, not restarting).
  static bool Available(const WorldState& s, int server) {
    return s.servers[server].role != ServerRole::kFailed && s.now >= s.servers[server].down_until;
  }
  // The replica of `server`, or -1.
  int ReplicaOf(int server) const { return replica_of_[server]; }
  // The ghost facts of `key`'s current value on a server ({-1, -1} if none).
  static ValueGhost GhostOf(const ServerState& s, std::string_view key);
  // The request client i makes in `s`. REQUIRES: its status is kReady.
  const Request& RequestOf(const WorldState& s, int i) const { return *s.clients[i].request; }
  const ClientAutomaton& automaton(int i) const { return *automata_[i]; }
  bool tokens_renamable() const { return tokens_renamable_; }  // TokensRenamable(config())

 private:
  // A client whose request is a sleep: the scheduler may wake it from
  // wake_at on, and the clock does at wake_by (Client::SleepBetween).
  static void StartSleeping(ClientSlot& c, const Request& r, Millis now);
  // Scheduling (model.cc): what is enabled, the clock; applying actions
  // (model_step.cc): stepping, waking and resuming clients.
  Millis MaxArgAge(const WorldState& s, int i) const;
  bool Restartable(const WorldState& s, int server) const;
  bool CanReplicate(const WorldState& s, int server) const;
  bool CanFailOver(const WorldState& s, int server) const;
  // With `exempt`, that client's holder bounds are ignored.
  bool TickAllowed(const WorldState& s, std::string* why, int exempt = -1) const;
  void Tick(WorldState& s, StepEffects* effects);
  // Wakes sleeping client i: runs its local code from where it slept.
  void Wake(WorldState& s, int i, StepEffects* effects);
  void Step(WorldState& s, const Action& a, StepEffects* effects);
  void Resume(WorldState& s, int i, const Input& input, StepEffects* effects);
  // The server's keyspace after its clock moved: expired keys gone (a
  // replica keeps them, hiding them on reads, until it is promoted).
  void Settle(WorldState& s, int server);

  // Ghost state (ghost_state.cc): the writers and owners of the keys a
  // command wrote, from what they were before it (per key of argv).
  // A written string value equal to one of `stamps` (the command's time
  // arguments) is marked a timestamp.
  // `spec` is argv's command.
  void NoteWrites(WorldState& s, int server, int actor, const kv::CommandSpec& spec,
                  const kv::Args& argv, const kv::Args& stamps, std::span<const KeyBefore> before);
  // Client i entered the critical section: the values it wrote are its lock.
  static void NoteAcquisition(WorldState& s, int i);

  // Servers and their faults (server_faults.cc).
  // Sends client i's command to the server serving its instance. `spec`
  // is kv::FindRunnable(argv[0], argv.size()).
  // Sets *reply_is_time iff the reply is a value some client wrote as a
  // time.
  kv::Reply Send(WorldState& s, const Action& a, const kv::Args& argv, const kv::CommandSpec* spec,
                 const kv::Args& stamps, StepEffects* effects, bool* reply_is_time);
  void Replicate(WorldState& s, int master, StepEffects* effects);
  void Failover(WorldState& s, int master, StepEffects* effects);
  void Restart(WorldState& s, int server, StepEffects* effects);

  WorldConfig config_;
  std::vector<std::string> server_names_;
  std::vector<int> masters_;     // per instance: its master in the configuration
  std::vector<int> replica_of_;  // per server: its replica, or -1
  std::vector<std::string> names_;
  std::vector<std::string> writer_names_;
  // The scenario's initial keyspace with its writers, built once.
  kv::Keyspace initial_keyspace_;
  std::vector<std::unique_ptr<ClientAutomaton>> automata_;
  bool tokens_renamable_ = false;
  // Scratch space for Step and Send: once warm, a step allocates nothing
  // for its command's arguments or the keys it names.
  kv::Args argv_scratch_, stamps_scratch_;
  // The times clock arguments took lately, as kept texts, by time: a step
  // that sends a time met before does not keep its digits again.
  std::array<std::pair<Millis, kv::Text>, 64> time_texts_;
  kv::Text TimeText(Millis t);
  std::vector<KeyBefore> before_scratch_;
};

}  // namespace lockstep::world
