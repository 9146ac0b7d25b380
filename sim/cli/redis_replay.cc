#include "sim/cli/redis_replay.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <thread>

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include "sim/cli/commands.h"
#include "sim/kv/command_table.h"
#include "sim/kv/int_parse.h"
#include "sim/run/runner.h"
#include "sim/run/trace_file.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/trace.h"

namespace lockstep::cli {
namespace {

namespace jr = lockstep::json;
using nlohmann::json;
using Argv = std::vector<std::string>;

void Fail(const std::string& message) { std::cerr << "lockstep: " << message << "\n"; }

kv::Reply FromHiredis(const redisReply& r) {
  switch (r.type) {
    case REDIS_REPLY_INTEGER:
      return kv::Reply::Integer(r.integer);
    case REDIS_REPLY_STRING:
      return kv::Reply::Bulk(std::string(r.str, r.len));
    case REDIS_REPLY_STATUS:
      return kv::Reply::Status(std::string(r.str, r.len));
    case REDIS_REPLY_ERROR:
      return kv::Reply::Error(std::string(r.str, r.len));
    case REDIS_REPLY_ARRAY: {
      std::vector<kv::Reply> elements;
      for (size_t i = 0; i < r.elements; ++i) elements.push_back(FromHiredis(*r.element[i]));
      return kv::Reply::Array(std::move(elements));
    }
    default:
      return kv::Reply::Nil();
  }
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// Whether any key in the trace has a deadline, or any command sets or reads
// one: only then does the server's clock decide a reply.
bool InvolvesExpiry(const trace::Trace& t) {
  for (const world::StepRecord& r : t.steps) {
    for (const kv::Entry& e : r.keyspace) {
      if (e.deadline) return true;
    }
    if (r.command.empty()) continue;
    const kv::CommandSpec* spec = kv::FindCommand(r.command[0]);
    if (spec != nullptr && kv::DependsOnClock(*spec, r.command)) return true;
  }
  return false;
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

// The server's clock as Unix milliseconds, from TIME.
std::optional<int64_t> ServerMillis(RedisConnection& c, std::string* error) {
  std::optional<kv::Reply> r = c.Command({"TIME"}, error);
  if (!r) return std::nullopt;
  int64_t s = 0, us = 0;
  if (r->type != kv::Reply::Type::kArray || r->elements.size() != 2 ||
      !kv::ParseInt64(r->elements[0].text, &s) || !kv::ParseInt64(r->elements[1].text, &us)) {
    *error = "TIME answered " + r->ToString();
    return std::nullopt;
  }
  return s * 1000 + us / 1000;
}

}  // namespace

std::unique_ptr<RedisConnection> RedisConnection::Connect(const std::string& host, int port,
                                                          int timeout_ms, std::string* error) {
  timeval tv{};
  tv.tv_sec = timeout_ms / 1000;
  tv.tv_usec = (timeout_ms % 1000) * 1000;
  redisContext* c = redisConnectWithTimeout(host.c_str(), port, tv);
  if (c == nullptr) {
    *error = "cannot allocate a connection";
    return nullptr;
  }
  if (c->err != 0) {
    *error = c->errstr;
    redisFree(c);
    return nullptr;
  }
  // The same bound for every reply, so a stuck server cannot hang a replay.
  redisSetTimeout(c, tv);
  return std::unique_ptr<RedisConnection>(new RedisConnection(c));
}

RedisConnection::~RedisConnection() { redisFree(context_); }

std::optional<kv::Reply> RedisConnection::Command(const Argv& argv, std::string* error) {
  auto replies = Pipeline({argv}, error);
  if (!replies) return std::nullopt;
  return std::move(replies->front());
}

std::optional<std::vector<kv::Reply>> RedisConnection::Pipeline(const std::vector<Argv>& commands,
                                                                std::string* error) {
  for (const Argv& argv : commands) {
    std::vector<const char*> args;
    std::vector<size_t> lens;
    for (const auto& a : argv) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(args.size()), args.data(), lens.data()) !=
        REDIS_OK) {
      *error = context_->errstr;
      return std::nullopt;
    }
  }
  std::vector<kv::Reply> replies;
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) {
      // hiredis reports a read that timed out as an I/O error with EAGAIN.
      timed_out_ = context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
      *error = context_->err != 0 ? context_->errstr : "no reply";
      return std::nullopt;
    }
    replies.push_back(FromHiredis(*static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
  }
  return replies;
}

HostPort ParseHostPort(const std::string& text) {
  const size_t colon = text.rfind(':');
  int64_t p = 0;
  if (colon == std::string::npos || colon == 0 ||
      !kv::ParseInt64(std::string_view(text).substr(colon + 1), &p) || p < 1 || p > 65535) {
    throw base::InputError(
        "", "", "--redis: expected HOST:PORT with a port in 1..65535, got \"" + text + "\"");
  }
  return {text.substr(0, colon), static_cast<int>(p)};
}

namespace {

constexpr int kTimeoutMs = 5000;

// One replay of a trace on a real server: the connections, the mapping of
// virtual time to the server's, and the real replies. Each step returns
// false once it has reported why the replay cannot go on (exit 2).
class RedisSession {
 public:
  RedisSession(const std::string& file, const trace::Trace& t, const RedisReplayOptions& options)
      : file_(file), t_(t), options_(options), addr_(options.address) {}

  // One connection for setup, and one per simulated client.
  bool Connect(const std::string& host, int port) {
    admin_ = RedisConnection::Connect(host, port, kTimeoutMs, &error_);
    if (!admin_) return Lost("cannot connect to the Redis server");
    for (size_t i = 0; i < t_.clients.size(); ++i) {
      conns_.push_back(RedisConnection::Connect(host, port, kTimeoutMs, &error_));
      if (!conns_.back()) return Lost("cannot connect to the Redis server");
    }
    return true;
  }

  // The database is empty, or emptied with --redis-flush.
  bool CheckEmpty() {
    const char* check = options_.flush ? "FLUSHALL" : "DBSIZE";
    std::optional<kv::Reply> r = admin_->Command({check}, &error_);
    if (!r) return Lost(std::string("waiting for ") + check, admin_.get());
    // Only Redis's own answer says the database is empty: an integer count, or
    // OK to FLUSHALL.
    const bool understood = options_.flush ? r->type == kv::Reply::Type::kStatus && r->text == "OK"
                                           : r->type == kv::Reply::Type::kInteger;
    if (!understood) {
      Fail(addr_ + ": " + check + " answered " + trace::CompactReply(*r) + "; expected " +
           (options_.flush ? "OK" : "an integer") + ", as Redis answers");
      return false;
    }
    if (!options_.flush && r->integer != 0) {
      Fail(addr_ + ": database 0 holds " + std::to_string(r->integer) +
           " keys; replay needs an empty database (pass --redis-flush to empty it first)");
      return false;
    }
    std::cout << "redis: " << addr_ << ", one connection per client (";
    for (size_t i = 0; i < t_.clients.size(); ++i)
      std::cout << (i ? ", " : "") << t_.clients[i].name;
    std::cout << ")" << (options_.flush ? ", database flushed first" : "") << "\n";
    return true;
  }

  // Time: offset maps virtual ms to the server's Unix ms, a whole number of
  // seconds so that EXAT and EXPIREAT move exactly; base pins the mapping to
  // this process's steady clock, so steps are paced by the server's time.
  bool MapTime() {
    timed_ = InvolvesExpiry(t_);
    base_ = std::chrono::steady_clock::now();
    const world::Millis start = t_.steps.empty() ? 0 : t_.steps[0].global_time;
    if (timed_) {
      std::optional<int64_t> server_now = ServerMillis(*admin_, &error_);
      if (!server_now) return Lost("reading the server's clock", admin_.get());
      server_at_base_ = *server_now;
      base_ = std::chrono::steady_clock::now();
      // Room for the setup before step 0's mapped time.
      const int64_t lead = 200;
      offset_ = (server_at_base_ + lead - start + 999) / 1000 * 1000;
      std::cout << "time: virtual time t is the server's Unix time t + " << offset_
                << " ms (the trace starts at " << start << ", i.e. " << start + offset_
                << "); absolute deadlines are translated and each step waits for its time\n";
    } else {
      std::cout << "time: no server-side expiry in this trace; virtual timestamps are sent as "
                   "they are\n";
    }
    return true;
  }

  // The trace's initial keyspace (steps[0]), deadlines mapped.
  bool WriteInitialKeyspace() {
    if (t_.steps.empty()) return true;
    for (const kv::Entry& e : t_.steps[0].keyspace) {
      std::vector<Argv> setup;
      if (e.kind == kv::Entry::Kind::kList) {
        Argv push = {"RPUSH", e.key};
        push.insert(push.end(), e.list.begin(), e.list.end());
        setup.push_back(push);
      } else {
        setup.push_back({"SET", e.key, e.value});
      }
      if (e.deadline) setup.push_back({"PEXPIREAT", e.key, kv::FormatInt64(*e.deadline + offset_)});
      for (const Argv& argv : setup) {
        std::optional<kv::Reply> r = admin_->Command(argv, &error_);
        if (!r) return Lost("connection lost during setup", admin_.get());
        std::cout << "setup: " << trace::CommandText(argv) << " -> " << trace::CompactReply(*r)
                  << "\n";
        if (r->is_error()) {
          Fail(addr_ + ": the initial keyspace could not be written");
          return false;
        }
      }
    }
    return true;
  }

  // Sends every step's command on its client's connection, at its mapped
  // time, and prints the table of trace and real replies.
  bool ReplaySteps() {
    const int violation_step = t_.violation ? t_.violation->step : 0;
    real_.assign(t_.steps.size(), std::nullopt);
    std::vector<std::vector<std::string>> rows = {
        {"", "step", "client", "command", "trace", "real", ""}};
    for (size_t i = 1; i < t_.steps.size(); ++i) {
      const world::StepRecord& step = t_.steps[i];
      std::vector<std::string> row = {step.index == violation_step ? "!!" : "",
                                      std::to_string(step.index), step.actor};
      if (step.command.empty()) {
        // A server's fault (a restart, a clock jump, a failover) exists only
        // in the model: this replay does not do it to the real server.
        const bool fault = step.action.is_fault() && step.action.client < 0;
        if (fault && unapplied_fault_ == 0) unapplied_fault_ = step.index;
        row.push_back("(" + trace::StepLine(step) + ")");
        row.insert(row.end(), {"", "", fault ? "NOT APPLIED to the real server" : ""});
        rows.push_back(row);
        continue;
      }
      if (step.action.kind == world::Action::Kind::kStep && !step.command.empty() &&
          step.command.front() == "WRITE" && step.command.size() > 1 &&
          step.command[1] == "resource") {
        // The protected resource is lockstep's, not Redis's: its reply is
        // the model's, and nothing is sent.
        row.push_back(trace::CommandText(step.command));
        row.push_back(step.reply ? trace::CompactReply(*step.reply) : "(none)");
        row.insert(row.end(), {"(not sent)", "the resource is lockstep's model"});
        rows.push_back(row);
        continue;
      }
      auto client = std::find_if(t_.clients.begin(), t_.clients.end(),
                                 [&](const trace::ClientInfo& c) { return c.name == step.actor; });
      if (client == t_.clients.end()) {
        Fail(file_ + ": at /steps/" + std::to_string(i) +
             "/actor: expected one of the trace's "
             "clients, got \"" +
             step.actor + "\"");
        return false;
      }
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
      RedisConnection& conn = *conns_[static_cast<size_t>(client - t_.clients.begin())];
      std::optional<kv::Reply> r = conn.Command(argv, &error_);
      if (!r) return Lost("connection lost at step " + std::to_string(step.index), &conn);
      real_[i] = r;
      const bool same = step.reply.has_value() && *step.reply == *r;
      if (!same && first_diff_ == 0) first_diff_ = step.index;
      row.push_back(trace::CommandText(argv));
      row.push_back(step.reply ? trace::CompactReply(*step.reply) : "(none)");
      row.push_back(trace::CompactReply(*r));
      row.push_back(same ? "same" : "DIFFERS");
      rows.push_back(row);
    }
    PrintTable(rows);
    return true;
  }

  // What the real replies say of the trace's violation; the exit code.
  int Verdict() const {
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
                << ") is not applied to the real server: this replay sends commands only"
                << (first_diff_ > unapplied_fault_
                        ? ", so the replies after it can differ, as they do here"
                        : "")
                << "\n";
    }
    if (!t_.violation) {
      std::cout << (first_diff_ == 0
                        ? "no violation in the trace, and every real reply matched it\n"
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
    std::cout << v.property << " reproduced on the real server at step " << v.step << ": "
              << v.message << "\n";
    return kExitViolation;
  }

 private:
  // A connection failed or went silent: name the server and what was asked.
  bool Lost(const std::string& what, const RedisConnection* conn = nullptr) const {
    if (conn != nullptr && conn->timed_out()) {
      Fail("no reply from " + addr_ + " within " + std::to_string(kTimeoutMs / 1000) + " s (" +
           what + ")");
    } else {
      Fail(addr_ + ": " + what + ": " + error_);
    }
    return false;
  }

  static void PrintTable(const std::vector<std::vector<std::string>>& rows) {
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
  void PrintHowEntered(const check::Violation& v) const {
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
    std::cout << "on the real server " << who
              << ", as in the trace: " << (how.size() == 2 ? "both" : "each")
              << " entered the critical section\n";
  }

  const std::string& file_;
  const trace::Trace& t_;
  const RedisReplayOptions& options_;
  const std::string& addr_;
  std::string error_;  // why the last connection call failed
  std::unique_ptr<RedisConnection> admin_;
  std::vector<std::unique_ptr<RedisConnection>> conns_;
  bool timed_ = false;
  int64_t offset_ = 0;
  std::chrono::steady_clock::time_point base_;
  int64_t server_at_base_ = 0;
  int first_diff_ = 0;
  int unapplied_fault_ = 0;  // the first server fault of the trace (not applied), or 0
  int64_t latest_ = 0;       // ms the latest step went out after its mapped time
  std::vector<std::optional<kv::Reply>> real_;
};

}  // namespace

int ReplayOnRedis(const std::string& file, const RedisReplayOptions& options) {
  const auto [host, port] = ParseHostPort(options.address);
  const trace::Trace t = run::LoadTraceFile(file);
  if (t.server_names.size() > 1) {
    Fail(file + ": the run has " + std::to_string(t.server_names.size()) +
         " servers; --redis replays on one server only");
    return kExitBadInput;
  }
  RedisSession session(file, t, options);
  if (!session.Connect(host, port) || !session.CheckEmpty() || !session.MapTime() ||
      !session.WriteInitialKeyspace() || !session.ReplaySteps()) {
    return kExitBadInput;
  }
  return session.Verdict();
}

}  // namespace lockstep::cli
