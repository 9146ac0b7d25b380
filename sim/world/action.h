// The choices a scheduler makes: run a client's next step, tick the global
// clock, or inject a fault. A schedule is a sequence of actions; its text
// form is what scenario and trace files store:
//
//   "C1"               C1's next step
//   "C1~2"             C1's next step, its clock-based arguments read 2 ticks ago
//   "C1 draws 3"       C1's random draw gives 3 (Client::Draw)
//   "tick"             the global clock advances by one
//   "crash C1"         C1 crashes: it never runs again, never releases
//   "stall C1"         the clock advances although C1 should have released
//                      by now (breaks the holder's bound: a counted fault)
//   "jump +5"          the server's clock jumps 5 ticks forward
//   "restart"          the server crashes and restarts (per its persistence)
//   "lose-request C1"  C1's command never reaches the server; C1 times out
//   "lose-reply C1"    C1's command runs but its reply is lost; C1 times out
//
// With several servers, server actions name their server (the forms above
// mean the first server):
//
//   "jump S2 +5"       server S2's clock jumps 5 ticks forward
//   "restart S2"       S2 crashes and restarts
//   "replicate S1"     master S1's oldest unreplicated write reaches its replica
//   "failover S1"      S1 fails and its replica is promoted in its place
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/keyspace.h"

namespace lockstep::world {

struct Action {
  enum class Kind {
    kStep,
    kTick,
    kCrash,
    kStall,
    kJump,
    kRestart,
    kLoseRequest,
    kLoseReply,
    kReplicate,
    kFailover
  };

  Kind kind = Kind::kTick;
  int client = -1;         // kStep, kCrash, kStall, kLoseRequest, kLoseReply
  kv::Millis arg_age = 0;  // kStep: how many ticks before this step the client's
                           // clock-based arguments were read (0: in this step)
  kv::Millis jump_by = 0;  // kJump: by how much the server's clock jumps
  int server = 0;          // kJump, kRestart, kReplicate, kFailover: which server
  std::optional<int64_t> drawn = std::nullopt;  // kStep of a client that draws: its value

  static Action Step(int client, kv::Millis arg_age = 0) {
    return {.kind = Kind::kStep, .client = client, .arg_age = arg_age};
  }
  static Action Drawn(int client, int64_t value) {
    return {.kind = Kind::kStep, .client = client, .drawn = value};
  }
  static Action Tick() { return {.kind = Kind::kTick}; }
  static Action Crash(int client) { return {.kind = Kind::kCrash, .client = client}; }
  static Action Stall(int client) { return {.kind = Kind::kStall, .client = client}; }
  static Action Jump(kv::Millis by, int server = 0) {
    return {.kind = Kind::kJump, .jump_by = by, .server = server};
  }
  static Action Restart(int server = 0) { return {.kind = Kind::kRestart, .server = server}; }
  static Action LoseRequest(int client) { return {.kind = Kind::kLoseRequest, .client = client}; }
  static Action LoseReply(int client) { return {.kind = Kind::kLoseReply, .client = client}; }
  static Action Replicate(int server) { return {.kind = Kind::kReplicate, .server = server}; }
  static Action Failover(int server) { return {.kind = Kind::kFailover, .server = server}; }

  // Replication is the network at work, not a fault: it is not counted.
  bool is_fault() const {
    return kind != Kind::kStep && kind != Kind::kTick && kind != Kind::kReplicate;
  }

  friend bool operator==(const Action&, const Action&) = default;
};

// Text form, with client and server names (see above). With at most one
// server name, server actions take their one-server form.
std::string FormatAction(const Action& a, const std::vector<std::string>& client_names,
                         const std::vector<std::string>& server_names = {});

// Parses the text form. Throws base::InputError, with the reason in
// `expected` (no file or place: the caller knows them), iff the text is not
// an action over these client and server names.
Action ParseAction(std::string_view text, const std::vector<std::string>& client_names,
                   const std::vector<std::string>& server_names = {});

}  // namespace lockstep::world
