// RedisSession's steps: each sent on its client's connection (or not sent, and why),
// the faults done to the servers, the table of trace and real replies, and
// what they say of the trace's violation.
#include <algorithm>
#include <iostream>
#include <thread>

#include "sim/kv/command_table.h"
#include "sim/kv/int_parse.h"
#include "sim/replay/redis_session.h"
#include "sim/run/exit_codes.h"
#include "sim/run/messages.h"
#include "sim/run/stop_signals.h"
#include "sim/trace/trace.h"

namespace lockstep::replay {
namespace {

using run::kExitReplayDiffers;
using run::kExitSafe;
using run::kExitViolation;
using run::PrintError;

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// Adds `delta` to an integer argument; leaves anything else as it is, so that
// what Redis rejects is still rejected.
void Shift(std::string* arg, int64_t delta) {
  int64_t v = 0;
  if (kv::ParseInt64(*arg, &v) && !__builtin_add_overflow(v, delta, &v)) {
    *arg = kv::FormatInt64(v);
  }
}

// The command with its absolute times moved from virtual to real time.
// offset_ms is a whole number of seconds, so second-based times move exactly.
Argv Translate(Argv argv, int64_t offset_ms) {
  const kv::CommandSpec* spec = kv::FindCommand(argv[0]);
  if (spec == nullptr) return argv;
  for (const kv::TimeArgument& t : kv::TimeArguments(*spec, argv)) {
    if (t.instant) Shift(&argv[t.index], offset_ms / t.unit_ms);
  }
  return argv;
}

// The step in which `client` last entered the critical section, at or
// before `step`; 0 if none.
int EnteredAt(const trace::Trace& t, const std::string& client, int step) {
  auto in = [&](int i) {
    const auto& cs = t.steps[static_cast<size_t>(i)].in_critical_section;
    return std::find(cs.begin(), cs.end(), client) != cs.end();
  };
  for (int i = std::min(step, static_cast<int>(t.steps.size()) - 1); i >= 1; --i) {
    if (in(i) && !in(i - 1)) return i;
  }
  return 0;
}

}  // namespace

// Sends every step's command on its client's connection to its server, at
// its time, and prints the table of trace and real replies.
bool RedisSession::ReplaySteps() {
  const int violation_step = t_.violation ? t_.violation->step : 0;
  real_.assign(t_.steps.size(), std::nullopt);
  std::vector<std::vector<std::string>> rows = {
      {"", "step", "client", "command", "trace", "real", ""}};
  for (size_t i = 1; i < t_.steps.size(); ++i) {
    if (run::StopRequested()) {
      PrintTable(rows);
      stopped_ = run::StopSignal();
      return true;
    }
    const world::StepRecord& step = t_.steps[i];
    std::vector<std::string> row = {step.index == violation_step ? "!!" : "",
                                    std::to_string(step.index), step.actor};
    if (managed()) {
      if (!SyncServers()) return false;
      world_->Apply(model_.scenario.schedule[i - 1]);
      if (step.action.kind == world::Action::Kind::kTick && !SaveSnapshots()) return false;
    }
    if (step.command.empty()) {
      // What happens to a server: a fault, or its replica catching up.
      const bool fault = step.action.client < 0 && step.action.kind != world::Action::Kind::kTick;
      row.push_back("(" + trace::StepLine(step) + ")");
      if (fault && managed()) {
        std::optional<std::string> done = ApplyFault(i);
        if (!done) return false;
        row.insert(row.end(), {"", "", *done});
      } else {
        // A server's fault exists only in the model: this replay does not
        // do it to the real server.
        if (fault && unapplied_fault_ == 0) unapplied_fault_ = step.index;
        row.insert(row.end(), {"", "", fault ? "NOT APPLIED to the real server" : ""});
      }
      rows.push_back(row);
      continue;
    }
    if (!send_[i].empty()) {
      // The model did not run it on a server: a write to the protected
      // resource (lockstep's, not Redis's), a lost request, a server that is
      // down. Its reply is the model's; the client's timeout is the model's.
      row.push_back(trace::CommandText(step.command));
      row.push_back(step.reply ? trace::CompactReply(*step.reply) : "(none)");
      row.insert(row.end(), {"(not sent)", send_[i]});
      rows.push_back(row);
      continue;
    }
    auto client = std::find_if(t_.clients.begin(), t_.clients.end(),
                               [&](const trace::ClientInfo& c) { return c.name == step.actor; });
    if (client == t_.clients.end()) {
      PrintError(file_ + ": at /steps/" + std::to_string(i) +
                 "/actor: expected one of the trace's clients, got \"" + step.actor + "\"");
      return false;
    }
    Server& server = servers_[ServerOf(step)];
    Argv argv = step.command;
    if (timed_) {
      argv = Translate(std::move(argv), offset_);
      const int64_t due = step.global_time + offset_ - server_at_base_;
      std::this_thread::sleep_until(base_ + std::chrono::milliseconds(due));
      const int64_t sent = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - base_)
                               .count();
      latest_ = std::max(latest_, sent - due);
    }
    RedisConnection& conn = *server.conns[static_cast<size_t>(client - t_.clients.begin())];
    std::optional<kv::Reply> r = conn.Command(argv, &error_);
    if (!r) return Lost(server, "connection lost at step " + std::to_string(step.index), &conn);
    real_[i] = r;
    const bool same = step.reply.has_value() && *step.reply == *r;
    if (!same && first_diff_ == 0) first_diff_ = step.index;
    row.push_back((server.name.empty() ? "" : server.name + ": ") + trace::CommandText(argv));
    row.push_back(step.reply ? trace::CompactReply(*step.reply) : "(none)");
    row.push_back(trace::CompactReply(*r));
    const bool lost_reply = step.action.kind == world::Action::Kind::kLoseReply;
    row.push_back(std::string(same ? "same" : "DIFFERS") +
                  (lost_reply ? "; the reply is lost on its way to the client" : ""));
    rows.push_back(row);
  }
  PrintTable(rows);
  return true;
}

// What the real replies say of the trace's violation; the exit code.
int RedisSession::Verdict() const {
  if (stopped_ != 0) {
    std::cerr << "lockstep: replay stopped by " << run::SignalName(stopped_) << "\n";
    return 128 + stopped_;
  }
  if (timed_) {
    std::cout << "time: the latest step went out " << latest_
              << " ms after its mapped time; a deadline closer than that to a step could be "
                 "judged differently\n";
  }
  if (first_diff_ != 0) {
    const world::StepRecord& d = t_.steps[static_cast<size_t>(first_diff_)];
    std::cout << "real replies differ from the trace at step " << first_diff_ << " ("
              << trace::StepLine(d) << " in the trace)\n";
  }
  if (unapplied_fault_ != 0) {
    std::cout << "faults: the server's fault at step " << unapplied_fault_ << " ("
              << trace::StepLine(t_.steps[static_cast<size_t>(unapplied_fault_)])
              << ") is not applied to the real server: --redis sends commands only"
              << (first_diff_ > unapplied_fault_
                      ? ", so the replies after it can differ, as they do here"
                      : "")
              << " (--redis-server applies it)\n";
  }
  if (!t_.violation) {
    std::cout << (first_diff_ == 0 ? "no violation in the trace, and every real reply matched it\n"
                                   : "no violation in the trace; the replay failed\n");
    return first_diff_ == 0 ? kExitSafe : kExitReplayDiffers;
  }
  const check::Violation& v = *t_.violation;
  if (first_diff_ != 0) {
    std::cout << v.property << " not reproduced: the real replies differ from the trace at step "
              << first_diff_ << ", before the violation at step " << v.step
              << "; from there the clients would have acted on other replies, which a replay of "
                 "the trace's commands cannot follow\n";
    return kExitReplayDiffers;
  }
  PrintHowEntered(v);
  std::cout << v.property << " reproduced on the real server" << (servers_.size() > 1 ? "s" : "")
            << " at step " << v.step << ": " << v.message << "\n";
  return kExitViolation;
}

// The index of the server the step's command ran on.
size_t RedisSession::ServerOf(const world::StepRecord& step) const {
  if (step.server.empty()) return 0;
  for (size_t k = 0; k < t_.server_names.size(); ++k) {
    if (t_.server_names[k] == step.server) return k;
  }
  return 0;
}

// A server's fault, done to the real servers; what was done, for the
// table. `i` is the step's index.
//
// A replica is a redis-server of its own, not a REPLICAOF replica: a real
// replica applies its master's stream as soon as it arrives, and the model
// releases the writes one `replicate` step at a time. At each such step
// lockstep sends the replica the write the stream carries: the effect on
// each key (SET with an absolute PXAT deadline, or DEL), which is what
// Redis 7 replicates for SET PX, EXPIRE and scripts alike.
std::optional<std::string> RedisSession::ApplyFault(size_t i) {
  const world::StepRecord& step = t_.steps[i];
  const size_t k = static_cast<size_t>(step.action.server);
  Server& s = servers_[k];
  switch (step.action.kind) {
    case world::Action::Kind::kJump:
      // The next SyncServers sets the clock the model has.
      return "applied: its clock is set to " +
             std::to_string(world_->model().ServerClock(world_->state(), static_cast<int>(k)));
    case world::Action::Kind::kRestart: {
      s.conns.clear();
      s.admin.reset();
      s.process->Kill();  // started again once the model has it up
      const world::ServerConfig& sc = model_.scenario.world.servers[k];
      return std::string("applied: killed (SIGKILL), started again ") +
             (sc.restart_delay > 0 ? "when it is up in the model, " : "") +
             (sc.persistence == world::Persistence::kNone     ? "empty"
              : sc.persistence == world::Persistence::kAlways ? "from its append-only file"
                                                              : "from its last snapshot");
    }
    case world::Action::Kind::kFailover:
      s.conns.clear();
      s.admin.reset();
      s.process->Kill();
      return std::string("applied: killed; its replica serves in its place");
    case world::Action::Kind::kReplicate: {
      const size_t r = static_cast<size_t>(world_->model().ReplicaOf(static_cast<int>(k)));
      std::string sent;
      for (const Argv& argv :
           KeyChanges(t_.steps[i - 1].servers[r].keyspace, step.servers[r].keyspace)) {
        std::optional<kv::Reply> reply = servers_[r].admin->Command(argv, &error_);
        if (!reply) {
          Lost(servers_[r], "connection lost while replicating", servers_[r].admin.get());
          return std::nullopt;
        }
        sent += (sent.empty() ? "" : "; ") + trace::CommandText(argv);
      }
      return "applied: " + servers_[r].name + " gets " + (sent.empty() ? "nothing" : sent);
    }
    default:
      return std::string("applied to the real server");
  }
}

// The commands that turn keyspace `before` into `after`.
std::vector<Argv> RedisSession::KeyChanges(const std::vector<kv::Entry>& before,
                                           const std::vector<kv::Entry>& after) {
  std::vector<Argv> out;
  auto find = [](const std::vector<kv::Entry>& in, const std::string& key) -> const kv::Entry* {
    for (const kv::Entry& e : in) {
      if (e.key == key) return &e;
    }
    return nullptr;
  };
  for (const kv::Entry& e : before) {
    if (find(after, e.key) == nullptr) out.push_back({"DEL", e.key});
  }
  for (const kv::Entry& e : after) {
    const kv::Entry* was = find(before, e.key);
    if (was != nullptr && *was == e) continue;
    if (e.kind != kv::Entry::Kind::kString) {
      out.push_back({"DEL", e.key});
      out.push_back(kv::WriteCommand(e));
      if (e.deadline) out.push_back({"PEXPIREAT", e.key, kv::FormatInt64(*e.deadline)});
    } else if (e.deadline) {
      out.push_back({"SET", e.key, e.value, "PXAT", kv::FormatInt64(*e.deadline)});
    } else {
      out.push_back({"SET", e.key, e.value});
    }
  }
  return out;
}

void RedisSession::PrintTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += (c == 1 ? PadLeft(row[c], widths[c]) : Pad(row[c], widths[c])) + "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
  }
}

// Each client's entry into the critical section came from one reply.
void RedisSession::PrintHowEntered(const check::Violation& v) const {
  std::vector<std::string> how;
  for (const std::string& c : v.clients) {
    const int at = EnteredAt(t_, c, v.step);
    if (at == 0) continue;
    const auto& reply = real_[static_cast<size_t>(at)];
    how.push_back(c + "'s " + trace::CommandText(t_.steps[static_cast<size_t>(at)].command) +
                  " at step " + std::to_string(at) + " returned " +
                  (reply ? trace::CompactReply(*reply) : "nothing"));
  }
  if (how.empty()) return;
  std::string who;
  for (size_t i = 0; i < how.size(); ++i) {
    who += (i == 0 ? "" : i + 1 == how.size() ? " and " : ", ") + how[i];
  }
  std::cout << "on the real server" << (servers_.size() > 1 ? "s " : " ") << who
            << ", as in the trace: " << (how.size() == 2 ? "both" : "each")
            << " entered the critical section\n";
}

}  // namespace lockstep::replay
