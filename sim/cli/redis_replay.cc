#include "sim/cli/redis_replay.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include "sim/cli/commands.h"
#include "sim/cli/redis_process.h"
#include "sim/kv/command_table.h"
#include "sim/kv/int_parse.h"
#include "sim/run/runner.h"
#include "sim/run/stop_signals.h"
#include "sim/run/trace_file.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/trace.h"
#include "sim/world/world.h"

namespace lockstep::cli {
namespace {

namespace jr = lockstep::json;
using nlohmann::json;
using Argv = std::vector<std::string>;

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

// One server of the replay: where it is, the connections to it (one for
// setup, one per simulated client), and with --redis-server the process.
struct Server {
  std::string name;     // the scenario's, e.g. "A"; "" for the only one
  std::string address;  // HOST:PORT
  std::unique_ptr<RedisProcess> process;
  std::unique_ptr<RedisConnection> admin;
  std::vector<std::unique_ptr<RedisConnection>> conns;
};

// One replay of a trace on real servers: the connections, time, and the
// real replies. Each step returns false once it has reported why the
// replay cannot go on (exit 2).
//
// With --redis HOST:PORT (approximate), virtual time maps to the server's
// real clock plus an offset and each step waits for its time. With
// --redis-server (exact), lockstep runs one server per server of the
// trace, sets each server's clock to the model's before every step, and
// applies the trace's faults: the model replays alongside to say what each
// server's clock is and whether it is up.
class RedisSession {
 public:
  RedisSession(const std::string& file, const trace::Trace& t, const RedisReplayOptions& options,
               const run::ReplayedTrace* model)
      : file_(file), t_(t), options_(options), model_(model) {}

  // --redis-server: starts the servers, their clocks at the trace's start.
  bool StartServers() {
    const world::WorldConfig& config = model_->scenario.world;
    for (size_t k = 0; k < config.servers.size(); ++k) {
      const world::ServerConfig& sc = config.servers[k];
      bool restarted = false;
      for (const world::Action& a : model_->scenario.schedule) {
        restarted |= a.kind == world::Action::Kind::kRestart && a.server == static_cast<int>(k);
      }
      RedisProcessOptions po{.binary = options_.server_binary, .controlled_clock = true};
      // The append-only file only when a restart must keep every write.
      if (restarted && sc.persistence == world::Persistence::kAlways)
        po.persistence = RedisPersistence::kAlways;
      Server server;
      server.name = config.servers.size() > 1 ? sc.name : "";
      try {
        server.process = std::make_unique<RedisProcess>(po);
      } catch (const std::runtime_error& e) {
        PrintError(e.what());
        return false;
      }
      server.address = server.process->address();
      servers_.push_back(std::move(server));
    }
    world_.emplace(model_->scenario.world);
    saved_.resize(servers_.size());
    SyncServers();
    std::cout << "redis: lockstep started " << servers_.size() << " redis-server"
              << (servers_.size() > 1 ? "s" : "") << " (" << options_.server_binary << ") on ";
    for (size_t k = 0; k < servers_.size(); ++k) {
      std::cout << (k ? ", " : "") << (servers_[k].name.empty() ? "" : servers_[k].name + " ")
                << servers_[k].address;
    }
    std::cout << (servers_.size() > 1 ? ", each with its clock" : ", its clock")
              << " under lockstep's control\n";
    std::cout << "time: before each step every server's clock is set to the model's for it; "
                 "active expiry is off, so keys expire when a command looks at them, as in the "
                 "model\n";
    return true;
  }

  // --redis HOST:PORT: the server the user runs.
  bool UseServer(const std::string& address) {
    if (t_.server_names.size() > 1) {
      PrintError(
          file_ + ": the run has " + std::to_string(t_.server_names.size()) +
          " servers; --redis replays on one server only (--redis-server starts one for each)");
      return false;
    }
    Server server;
    server.address = address;
    servers_.push_back(std::move(server));
    return true;
  }

  // One connection for setup, and one per simulated client, to each server.
  bool Connect() {
    for (Server& s : servers_) {
      if (!ConnectTo(s)) return false;
    }
    return true;
  }

  // The database is empty, or emptied with --redis-flush (a server lockstep
  // started is empty).
  bool CheckEmpty() {
    if (managed()) return true;
    Server& s = servers_[0];
    const char* check = options_.flush ? "FLUSHALL" : "DBSIZE";
    std::optional<kv::Reply> r = s.admin->Command({check}, &error_);
    if (!r) return Lost(s, std::string("waiting for ") + check, s.admin.get());
    // Only Redis's own answer says the database is empty: an integer count, or
    // OK to FLUSHALL.
    const bool understood = options_.flush ? r->type == kv::Reply::Type::kStatus && r->text == "OK"
                                           : r->type == kv::Reply::Type::kInteger;
    if (!understood) {
      PrintError(s.address + ": " + check + " answered " + trace::CompactReply(*r) + "; expected " +
                 (options_.flush ? "OK" : "an integer") + ", as Redis answers");
      return false;
    }
    if (!options_.flush && r->integer != 0) {
      PrintError(s.address + ": database 0 holds " + std::to_string(r->integer) +
                 " keys; replay needs an empty database (pass --redis-flush to empty it first)");
      return false;
    }
    std::cout << "redis: " << s.address << ", one connection per client (";
    for (size_t i = 0; i < t_.clients.size(); ++i)
      std::cout << (i ? ", " : "") << t_.clients[i].name;
    std::cout << ")" << (options_.flush ? ", database flushed first" : "") << "\n";
    return true;
  }

  // --redis: offset maps virtual ms to the server's Unix ms, a whole number
  // of seconds so that EXAT and EXPIREAT move exactly; base pins the mapping
  // to this process's steady clock, so steps are paced by the server's time.
  bool MapTime() {
    if (managed()) return true;
    Server& s = servers_[0];
    timed_ = InvolvesExpiry(t_);
    base_ = std::chrono::steady_clock::now();
    const world::Millis start = t_.steps.empty() ? 0 : t_.steps[0].global_time;
    if (timed_) {
      std::optional<int64_t> server_now = ServerMillis(*s.admin, &error_);
      if (!server_now) return Lost(s, "reading the server's clock", s.admin.get());
      server_at_base_ = *server_now;
      base_ = std::chrono::steady_clock::now();
      // Room for the setup before step 0's mapped time.
      const int64_t lead = 200;
      offset_ = (server_at_base_ + lead - start + 999) / 1000 * 1000;
      std::cout << "time: virtual time t is the server's Unix time t + " << offset_
                << " ms (the trace starts at " << start << ", i.e. " << start + offset_
                << "); absolute deadlines are translated and each step waits for its time "
                   "(approximate: --redis-server controls the clock exactly)\n";
    } else {
      std::cout << "time: no server-side expiry in this trace; virtual timestamps are sent as "
                   "they are\n";
    }
    return true;
  }

  // The trace's initial keyspace (steps[0]), deadlines mapped.
  bool WriteInitialKeyspace() {
    if (t_.steps.empty()) return true;
    const world::StepRecord& start = t_.steps[0];
    for (size_t k = 0; k < servers_.size(); ++k) {
      Server& s = servers_[k];
      const std::vector<kv::Entry>& entries =
          start.servers.empty() ? start.keyspace : start.servers[k].keyspace;
      for (const kv::Entry& e : entries) {
        std::vector<Argv> setup;
        if (e.kind == kv::Entry::Kind::kList) {
          Argv push = {"RPUSH", e.key};
          push.insert(push.end(), e.list.begin(), e.list.end());
          setup.push_back(push);
        } else {
          setup.push_back({"SET", e.key, e.value});
        }
        if (e.deadline)
          setup.push_back({"PEXPIREAT", e.key, kv::FormatInt64(*e.deadline + offset_)});
        for (const Argv& argv : setup) {
          std::optional<kv::Reply> r = s.admin->Command(argv, &error_);
          if (!r) return Lost(s, "connection lost during setup", s.admin.get());
          std::cout << "setup: " << (s.name.empty() ? "" : s.name + ": ")
                    << trace::CommandText(argv) << " -> " << trace::CompactReply(*r) << "\n";
          if (r->is_error()) {
            PrintError(s.address + ": the initial keyspace could not be written");
            return false;
          }
        }
      }
    }
    return true;
  }

  // Persistence "everysec": the model keeps what a restart gets back, synced
  // every `sync_every` ticks; the real server gets the same snapshot, by SAVE
  // (a dump.rdb that a restart loads), whenever the model's changes. Its own
  // timers never save (--save "", no append-only file).
  bool SaveSnapshots() {
    if (!managed()) return true;
    const world::WorldConfig& config = model_->scenario.world;
    for (size_t k = 0; k < servers_.size(); ++k) {
      if (config.servers[k].persistence != world::Persistence::kEverySec) continue;
      const kv::Keyspace& persisted = world_->state().servers[k].persisted;
      if (saved_[k] && *saved_[k] == persisted) continue;
      Server& s = servers_[k];
      if (!s.process->running()) continue;  // down: nothing has changed
      std::optional<kv::Reply> r = s.admin->Command({"SAVE"}, &error_);
      if (!r) return Lost(s, "waiting for SAVE", s.admin.get());
      if (*r != kv::Reply::Ok()) {
        PrintError(s.address + ": SAVE answered " + trace::CompactReply(*r));
        return false;
      }
      saved_[k] = persisted;
    }
    return true;
  }

  // Sends every step's command on its client's connection to its server, at
  // its time, and prints the table of trace and real replies.
  bool ReplaySteps() {
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
      // Whether the step's server was up before it (the model knows).
      bool up = true;
      if (managed()) {
        if (!SyncServers()) return false;
        const size_t k = ServerOf(step);
        up = world::Model::Available(world_->state(), static_cast<int>(k));
        world_->Apply(model_->scenario.schedule[i - 1]);
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
      if (step.action.kind == world::Action::Kind::kStep && step.command.front() == "WRITE" &&
          step.command.size() > 1 && step.command[1] == "resource") {
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
        PrintError(file_ + ": at /steps/" + std::to_string(i) +
                   "/actor: expected one of the trace's clients, got \"" + step.actor + "\"");
        return false;
      }
      Server& server = servers_[ServerOf(step)];
      const bool lost_request = step.action.kind == world::Action::Kind::kLoseRequest;
      if (managed() && (lost_request || !up)) {
        // Never reaches the server: the client's timeout is the model's.
        row.push_back(trace::CommandText(step.command));
        row.push_back(step.reply ? trace::CompactReply(*step.reply) : "(none)");
        row.insert(row.end(),
                   {"(not sent)", lost_request ? "the request is lost" : "the server is down"});
        rows.push_back(row);
        continue;
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
  int Verdict() const {
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
    std::cout << v.property << " reproduced on the real server" << (servers_.size() > 1 ? "s" : "")
              << " at step " << v.step << ": " << v.message << "\n";
    return kExitViolation;
  }

 private:
  bool managed() const { return model_ != nullptr; }

  // The index of the server the step's command ran on.
  size_t ServerOf(const world::StepRecord& step) const {
    if (step.server.empty()) return 0;
    for (size_t k = 0; k < t_.server_names.size(); ++k) {
      if (t_.server_names[k] == step.server) return k;
    }
    return 0;
  }

  bool ConnectTo(Server& s) {
    const HostPort hp = ParseHostPort(s.address);
    s.conns.clear();
    s.admin = RedisConnection::Connect(hp.host, hp.port, kTimeoutMs, &error_);
    if (!s.admin) return Lost(s, "cannot connect to the Redis server");
    for (size_t i = 0; i < t_.clients.size(); ++i) {
      s.conns.push_back(RedisConnection::Connect(hp.host, hp.port, kTimeoutMs, &error_));
      if (!s.conns.back()) return Lost(s, "cannot connect to the Redis server");
    }
    return true;
  }

  // Every server's clock to the model's, and a server the model has back
  // up after a restart started again.
  bool SyncServers() {
    const world::Model& model = world_->model();
    for (size_t k = 0; k < servers_.size(); ++k) {
      const int server = static_cast<int>(k);
      RedisProcess& p = *servers_[k].process;
      p.SetClock(model.ServerClock(world_->state(), server));
      if (!p.running() && world::Model::Available(world_->state(), server)) {
        try {
          // Redis 7.0 asserts if it loads its files at Unix time 0 (its
          // "blocked since" instant would read as unset): load at 1 ms at
          // the earliest. Which loaded keys had expired by then cannot be
          // seen, as every command checks expiry when it looks at a key.
          p.SetClock(std::max<int64_t>(model.ServerClock(world_->state(), server), 1));
          p.Start();
          p.SetClock(model.ServerClock(world_->state(), server));
        } catch (const std::runtime_error& e) {
          PrintError(e.what());
          return false;
        }
        if (!ConnectTo(servers_[k])) return false;
      }
    }
    return true;
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
  std::optional<std::string> ApplyFault(size_t i) {
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
        const world::ServerConfig& sc = model_->scenario.world.servers[k];
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
  static std::vector<Argv> KeyChanges(const std::vector<kv::Entry>& before,
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
      if (e.kind == kv::Entry::Kind::kList) {
        out.push_back({"DEL", e.key});
        Argv push = {"RPUSH", e.key};
        push.insert(push.end(), e.list.begin(), e.list.end());
        out.push_back(push);
        if (e.deadline) out.push_back({"PEXPIREAT", e.key, kv::FormatInt64(*e.deadline)});
      } else if (e.deadline) {
        out.push_back({"SET", e.key, e.value, "PXAT", kv::FormatInt64(*e.deadline)});
      } else {
        out.push_back({"SET", e.key, e.value});
      }
    }
    return out;
  }

  // A connection failed or went silent: name the server and what was asked.
  bool Lost(const Server& s, const std::string& what, const RedisConnection* conn = nullptr) const {
    if (conn != nullptr && conn->timed_out()) {
      PrintError("no reply from " + s.address + " within " + std::to_string(kTimeoutMs / 1000) +
                 " s (" + what + ")");
    } else {
      PrintError(s.address + ": " + what + ": " + error_);
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
    std::cout << "on the real server" << (servers_.size() > 1 ? "s " : " ") << who
              << ", as in the trace: " << (how.size() == 2 ? "both" : "each")
              << " entered the critical section\n";
  }

  const std::string& file_;
  const trace::Trace& t_;
  const RedisReplayOptions& options_;
  const run::ReplayedTrace* model_;    // --redis-server: the scenario, replayed
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

}  // namespace

int ReplayOnRedis(const std::string& file, const RedisReplayOptions& options) {
  if (!options.managed) {
    const HostPort hp = ParseHostPort(options.address);
    const trace::Trace t = run::LoadTraceFile(file);
    RedisSession session(file, t, options, nullptr);
    if (!session.UseServer(hp.host + ":" + std::to_string(hp.port)) || !session.Connect() ||
        !session.CheckEmpty() || !session.MapTime() || !session.WriteInitialKeyspace() ||
        !session.ReplaySteps()) {
      return kExitBadInput;
    }
    return session.Verdict();
  }
  RedisReplayOptions o = options;
  if (o.server_binary.empty()) {
    o.server_binary = FindRedisServer();
    if (o.server_binary.empty()) {
      PrintError(
          "--redis-server: no redis-server on PATH; install it (Debian: apt install "
          "redis-server) or name it: --redis-server PATH");
      return kExitBadInput;
    }
  }
  if (access(o.server_binary.c_str(), X_OK) != 0) {
    PrintError("--redis-server: " + o.server_binary + " is not a program lockstep can run (" +
               std::strerror(errno) +
               "); give redis-server's path, after the trace: replay TRACE " +
               "--redis-server [PATH]");
    return kExitBadInput;
  }
  // The model replays alongside: it says each server's clock and whether
  // it is up, step by step; and a stop signal lets the servers be stopped.
  const run::ReplayedTrace model = run::LoadReplayedTrace(file);
  run::CooperativeStop cooperative;
  RedisSession session(file, model.trace, o, &model);
  if (!session.StartServers() || !session.Connect() || !session.WriteInitialKeyspace() ||
      !session.SaveSnapshots() || !session.ReplaySteps()) {
    return kExitBadInput;
  }
  return session.Verdict();
}

}  // namespace lockstep::cli
