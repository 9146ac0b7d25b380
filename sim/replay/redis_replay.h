// `lockstep replay --redis-server [PATH] FILE` and `lockstep replay --redis
// HOST:PORT FILE`: a trace's commands replayed on real Redis servers, to
// show that a counterexample found in the model happens on the real thing.
//
// Contract:
// - FILE is a saved trace, or a scenario with a schedule. Either is first
//   replayed in the model, and a trace must reproduce byte for byte: its
//   replies are what the real ones are compared with.
// - Every client runs as a Redis user allowed the model's commands alone
//   (replay_user.h): a script that tells the model from Redis can do no
//   more on the server than those.
// - Nothing is sent before every step is vetted (vetting.h): a step whose
//   command is outside the model's table, or whose script calls such a
//   command or ran into a bound of the model's, refuses the whole replay
//   (exit 2, naming the step). A command the model did not run on a server
//   (a lost request, a server that is down, a write to the protected
//   resource) is not sent.
// - --redis-server (exact): lockstep starts one redis-server per server of
//   the trace (RedisProcess: loopback, a folder of its own, stopped on every
//   exit path, no DEBUG command), each with its wall clock under lockstep's
//   control. The model replays alongside; before every step each server's
//   clock is set to the model's for it, so every deadline is judged at the
//   instant the trace says. Faults are applied: a clock jump moves that
//   server's clock, a restart kills the process (SIGKILL) and starts it
//   again once the model has it up (persistence "none": empty; "always":
//   from its append-only file, appendfsync always; "everysec": from the
//   snapshot the server saved (SAVE) when the model last synced). A replica
//   is a server of its own that gets, at each `replicate` step, the write
//   its master's stream carries (the effect on each key: SET ... PXAT or
//   DEL); a failover kills the master and its replica serves in its place.
// - --redis redis://USER:PASSWORD@HOST:PORT (approximate in time): one
//   server the user runs, as a user that may not leave database 0 or the
//   server (replay_user.h): a bare HOST:PORT, the user `default`, or a user
//   that may run a probe of those is refused (exit 2), with the ACL SETUSER
//   command that makes one. The
//   replay uses database 0, which must be empty unless `flush` is set (then
//   FLUSHDB empties it first); the other databases are never touched, and
//   the output names those that hold keys. If nothing in the trace involves
//   server-side expiry, arguments are sent as they are; otherwise virtual
//   time t maps to real Unix time t + offset, absolute deadlines are
//   translated and each step waits until its mapped time; the output says
//   how late any step went out. Faults are not applied, and say so.
// - In both, the trace's initial keyspace (steps[0]) is written first; then
//   one connection per client and server sends that client's commands, all
//   in the trace's order, one at a time, each reply read before the next
//   command goes out.
// - The property: who is in the critical section is a function of the
//   replies each client saw, so the trace's violation holds on the real
//   servers iff every real reply up to the violating step equals the trace's.
// - Exit codes: 1 the trace's violation reproduced, every real reply equal
//   to the trace's; 0 no violation in the trace, every real reply equal to
//   the trace's; 4 some real reply differs from the trace's (the output names
//   the first by step): the replay failed; 2 bad input, usage, a step the
//   model cannot vouch for, a non-empty database, a server whose answers
//   are not Redis's, a server that cannot be started, or a connection
//   failure or silence (naming HOST:PORT); 128 + the signal if stopped by
//   one.
#pragma once

#include <string>

namespace lockstep::replay {

struct RedisReplayOptions {
  bool managed = false;       // --redis-server: lockstep runs the servers
  std::string server_binary;  // with managed: redis-server's path ("": on PATH)
  std::string address;        // without: HOST:PORT or redis://USER:PASSWORD@HOST:PORT
  bool flush = false;         // without: FLUSHDB on database 0 before replaying
};

// Runs the replay and prints it; returns the exit code (see above). Throws
// base::InputError for a file that is not a trace or a scenario with a
// schedule, or a trace its scenario contradicts.
int ReplayOnRedis(const std::string& file, const RedisReplayOptions& options);

}  // namespace lockstep::replay
