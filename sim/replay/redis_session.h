// One replay of a trace on real servers: the servers and the connections to
// them, time, the steps sent and the real replies. Each step returns false
// once it has reported why the replay cannot go on (exit 2).
//
// With --redis HOST:PORT (approximate), virtual time maps to the server's
// real clock plus an offset and each step waits for its time. With
// --redis-server (exact), lockstep runs one server per server of the
// trace, sets each server's clock to the model's before every step, and
// applies the trace's faults: the model replays alongside to say what each
// server's clock is and whether it is up.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/replay/redis_connection.h"
#include "sim/replay/redis_process.h"
#include "sim/replay/redis_replay.h"
#include "sim/replay/vetting.h"
#include "sim/run/runner.h"
#include "sim/world/world.h"

namespace lockstep::replay {

using Argv = std::vector<std::string>;

class RedisSession {
 public:
  // `send`: which steps go to a server (VetForRealServer).
  RedisSession(const std::string& file, const run::ReplayedTrace& replayed,
               const RedisReplayOptions& options, StepsToSend send)
      : file_(file),
        t_(replayed.trace),
        options_(options),
        model_(replayed),
        send_(std::move(send)) {}

  // --redis-server: starts the servers, their clocks at the trace's start.
  bool StartServers();
  // --redis URL: the server the user runs, and the user the replay runs as
  // there, which must not be `default`.
  bool UseServer(const ServerAddress& address);
  // One connection for setup, and one per simulated client, to each server.
  bool Connect();
  // --redis: the user may not run what the replay's user must not
  // (replay_user.h).
  bool CheckUser();
  // --redis: database 0, the one the replay uses, is empty, or emptied with
  // --redis-flush; the other databases are left as they are.
  bool CheckDatabase();
  // --redis: how virtual time maps to the server's.
  bool MapTime();
  // The trace's initial keyspace (steps[0]), deadlines mapped.
  bool WriteInitialKeyspace();
  // --redis-server, persistence "everysec": the snapshot a restart loads.
  bool SaveSnapshots();
  // Sends every step's command on its client's connection to its server, at
  // its time, and prints the table of trace and real replies.
  bool ReplaySteps();
  // What the real replies say of the trace's violation; the exit code.
  int Verdict() const;

 private:
  // One server of the replay: where it is, the connections to it (one for
  // setup, one per simulated client), and with --redis-server the process.
  struct Server {
    std::string name;     // the scenario's, e.g. "A"; "" for the only one
    std::string address;  // HOST:PORT
    std::unique_ptr<RedisProcess> process;
    std::optional<Credentials> admin_auth;   // setup's connection as
    std::optional<Credentials> client_auth;  // the clients' as: a replay user
    std::unique_ptr<RedisConnection> admin;
    std::vector<std::unique_ptr<RedisConnection>> conns;
  };

  // How long a server may take to answer.
  static constexpr int kTimeoutMs = 5000;

  bool managed() const { return options_.managed; }
  size_t ServerOf(const world::StepRecord& step) const;
  bool ConnectTo(Server& s);
  bool SyncServers();
  std::optional<std::string> ApplyFault(size_t i);
  static std::vector<Argv> KeyChanges(const std::vector<kv::Entry>& before,
                                      const std::vector<kv::Entry>& after);
  bool Lost(const Server& s, const std::string& what, const RedisConnection* conn = nullptr) const;
  static void PrintTable(const std::vector<std::vector<std::string>>& rows);
  void PrintHowEntered(const check::Violation& v) const;

  const std::string& file_;
  const trace::Trace& t_;
  const RedisReplayOptions& options_;
  const run::ReplayedTrace& model_;  // the scenario, replayed
  StepsToSend send_;
  std::optional<world::World> world_;  // the model alongside (--redis-server)
  std::vector<Server> servers_;
  std::vector<std::optional<kv::Keyspace>> saved_;  // everysec: the model's last snapshot saved
  std::string error_;                               // why the last connection call failed
  bool timed_ = false;
  int64_t offset_ = 0;
  std::chrono::steady_clock::time_point base_;
  int64_t server_at_base_ = 0;
  int first_diff_ = 0;
  int unapplied_fault_ = 0;  // the first server fault of the trace (not applied), or 0
  int64_t latest_ = 0;       // ms the latest step went out after its mapped time
  int stopped_ = 0;          // the stop signal that ended the replay, or 0
  std::vector<std::optional<kv::Reply>> real_;
};

}  // namespace lockstep::replay
