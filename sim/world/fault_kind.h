// The kinds of fault the scheduler may inject, written once: kFaultKinds is
// the list the scenario's "faults" object, explore's --faults, their help
// texts and the budget counters derive from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/base/limits.h"
#include "sim/kv/keyspace.h"
#include "sim/world/action.h"

namespace lockstep::world {

// A count per fault kind: the faults an execution has used so far, or (in a
// FaultBudget) the most it may use.
struct FaultCounts {
  int crash = 0, stall = 0, jump = 0, restart = 0, lose = 0, failover = 0;
  friend bool operator==(const FaultCounts&, const FaultCounts&) = default;
};

// How many faults of each kind the scheduler may inject in one execution.
struct FaultBudget : FaultCounts {
  std::vector<kv::Millis> jump_by;  // the sizes a jump may have
  // Stalls only between leaving the critical section and releasing (the
  // check-then-DEL window); otherwise anywhere while holding the lock.
  bool stall_only_releasing = false;
};

struct FaultKind {
  std::string_view name;  // in a scenario's "faults" object and in --faults
  std::string_view help;  // what one fault of this kind does, one line
  std::string_view more;  // a second line for the scenario field reference, or ""
  int max_budget;         // the largest budget a scenario may give it
  int FaultCounts::*count;
  // The actions that spend this budget (a kind has one or two).
  Action::Kind action;
  Action::Kind other_action;
};

// The largest budget of any kind but crash, whose largest is the client count.
inline constexpr int kMaxFaultBudget = 16;

inline constexpr FaultKind kFaultKinds[] = {
    {"crash", "a client crashes (never runs again, never releases)", "", base::kMaxClients,
     &FaultCounts::crash, Action::Kind::kCrash, Action::Kind::kCrash},
    {"stall", "the clock passes a holder's bound while it holds", "", kMaxFaultBudget,
     &FaultCounts::stall, Action::Kind::kStall, Action::Kind::kStall},
    {"jump", "the server's clock jumps forward by one of jump_by", "", kMaxFaultBudget,
     &FaultCounts::jump, Action::Kind::kJump, Action::Kind::kJump},
    {"restart", "a server crashes and restarts, per its persistence",
     "(only servers without a replica or master)", kMaxFaultBudget, &FaultCounts::restart,
     Action::Kind::kRestart, Action::Kind::kRestart},
    {"lose", "a request or its reply is lost (the client times out)", "", kMaxFaultBudget,
     &FaultCounts::lose, Action::Kind::kLoseRequest, Action::Kind::kLoseReply},
    {"failover", "a master fails and its replica is promoted, losing",
     "the writes not yet replicated", kMaxFaultBudget, &FaultCounts::failover,
     Action::Kind::kFailover, Action::Kind::kFailover},
};

// The kind whose budget action kind `k` spends, or nullptr (a step, a tick,
// replication).
constexpr const FaultKind* FaultKindOf(Action::Kind k) {
  for (const FaultKind& f : kFaultKinds) {
    if (f.action == k || f.other_action == k) return &f;
  }
  return nullptr;
}

// The kinds' names, separated by ", ": "crash, stall, ...".
std::string FaultKindNames();

}  // namespace lockstep::world
