// `lockstep replay --redis-server [PATH] FILE` and `lockstep replay --redis
// HOST:PORT FILE`: a trace's commands replayed on real Redis servers, to
// show that a counterexample found in the model happens on the real thing.
//
// Contract:
// - FILE is a saved trace, or a scenario with a schedule (replayed in the
//   model first). A trace is taken as recorded: its replies are what the real
//   ones are compared with.
// - --redis-server (exact): lockstep starts one redis-server per server of
//   the trace (RedisProcess: loopback, a folder of its own, stopped on every
//   exit path), each with its wall clock under lockstep's control, active
//   expiry off. The model replays alongside; before every step each server's
//   clock is set to the model's for it, so every deadline is judged at the
//   instant the trace says. Faults are applied: a clock jump moves that
//   server's clock, a restart kills the process (SIGKILL) and starts it
//   again once the model has it up (persistence "none": empty; "always":
//   from its append-only file, appendfsync always; "everysec": from the
//   snapshot the server saved (SAVE) when the model last synced), a lost
//   request is not
//   sent, a lost reply is read and not passed on, a command to a server that
//   is down is not sent. A replica is a server of its own that gets, at each
//   `replicate` step, the write its master's stream carries (the effect on
//   each key: SET ... PXAT or DEL); a failover kills the master and its
//   replica serves in its place.
// - --redis HOST:PORT (approximate in time): one server the user runs,
//   whose database must be empty unless `flush` is set (then FLUSHALL runs
//   first): a user's data is never wiped silently. If nothing in the trace
//   involves server-side expiry, arguments are sent as they are; otherwise
//   virtual time t maps to real Unix time t + offset, absolute deadlines
//   are translated and each step waits until its mapped time; the output
//   says how late any step went out. Faults are not applied, and say so.
// - In both, the trace's initial keyspace (steps[0]) is written first; then
//   one connection per client and server sends that client's commands, all
//   in the trace's order, one at a time, each reply read before the next
//   command goes out. Writes to the protected resource are lockstep's
//   model and are not sent.
// - The property: who is in the critical section is a function of the
//   replies each client saw, so the trace's violation holds on the real
//   servers iff every real reply up to the violating step equals the trace's.
// - Exit codes: 1 the trace's violation reproduced, every real reply equal
//   to the trace's; 0 no violation in the trace, every real reply equal to
//   the trace's; 4 some real reply differs from the trace's (the output names
//   the first by step): the replay failed; 2 bad input, usage, a non-empty
//   database, a server whose answer to DBSIZE or FLUSHALL is not Redis's,
//   a server that cannot be started, or a connection failure or silence
//   (naming HOST:PORT); 128 + the signal if stopped by one.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/kv/reply.h"

struct redisContext;  // hiredis

namespace lockstep::cli {

// One blocking connection to a real Redis server (hiredis, RESP2).
class RedisConnection {
 public:
  // Returns nullptr, with the reason in *error, iff it cannot connect
  // within timeout_ms.
  static std::unique_ptr<RedisConnection> Connect(const std::string& host, int port, int timeout_ms,
                                                  std::string* error);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and waits for its reply. Returns nullopt, with the
  // reason in *error, iff the connection failed (a Redis error reply is a
  // Reply, not a failure). REQUIRES: !argv.empty()
  std::optional<kv::Reply> Command(const std::vector<std::string>& argv, std::string* error);

  // Sends every command before reading any reply (pipelining), then returns
  // the replies in order. Same failure rule as Command.
  std::optional<std::vector<kv::Reply>> Pipeline(
      const std::vector<std::vector<std::string>>& commands, std::string* error);

  // The last failure was a reply that did not come within the timeout.
  bool timed_out() const { return timed_out_; }

 private:
  explicit RedisConnection(redisContext* context) : context_(context) {}
  redisContext* context_;
  bool timed_out_ = false;
};

struct HostPort {
  std::string host;
  int port = 0;
};

// Splits "HOST:PORT" (the port 1..65535). Throws base::InputError otherwise.
HostPort ParseHostPort(const std::string& text);

struct RedisReplayOptions {
  bool managed = false;       // --redis-server: lockstep runs the servers
  std::string server_binary;  // with managed: redis-server's path ("": on PATH)
  std::string address;        // without: HOST:PORT
  bool flush = false;         // without: FLUSHALL before replaying
};

// Runs the replay and prints it; returns the exit code (see above).
int ReplayOnRedis(const std::string& file, const RedisReplayOptions& options);

}  // namespace lockstep::cli
