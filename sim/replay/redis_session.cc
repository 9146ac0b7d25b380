// RedisSession's set-up: the servers, the connections, the database, time, the
// initial keyspace and the snapshots a restart loads.
#include "sim/replay/redis_session.h"

#include <iostream>

#include "sim/kv/command_table.h"
#include "sim/kv/int_parse.h"
#include "sim/replay/replay_user.h"
#include "sim/run/messages.h"
#include "sim/run/stop_signals.h"
#include "sim/trace/trace.h"

namespace lockstep::replay {
namespace {

using run::PrintError;

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

// --redis-server: starts the servers, their clocks at the trace's start.
bool RedisSession::StartServers() {
  const world::WorldConfig& config = model_.scenario.world;
  for (size_t k = 0; k < config.servers.size(); ++k) {
    const world::ServerConfig& sc = config.servers[k];
    bool restarted = false;
    for (const world::Action& a : model_.scenario.schedule) {
      restarted |= a.kind == world::Action::Kind::kRestart && a.server == static_cast<int>(k);
    }
    RedisProcessOptions po{
        .binary = options_.server_binary, .controlled_clock = true, .replay_user = true};
    // The append-only file only when a restart must keep every write.
    if (restarted && sc.persistence == world::Persistence::kAlways)
      po.persistence = RedisPersistence::kAlways;
    Server server;
    server.name = config.servers.size() > 1 ? sc.name : "";
    try {
      server.process = std::make_unique<RedisProcess>(po);
    } catch (const std::runtime_error& e) {
      if (!run::StopRequested()) PrintError(e.what());
      return false;
    }
    server.address = server.process->address();
    server.admin_auth = server.process->admin();
    server.client_auth = server.process->replay_user();
    servers_.push_back(std::move(server));
  }
  world_.emplace(model_.scenario.world);
  saved_.resize(servers_.size());
  SyncServers();
  std::cout << "redis: lockstep started " << servers_.size() << " redis-server"
            << (servers_.size() > 1 ? "s" : "") << " (" << options_.server_binary << ") on ";
  for (size_t k = 0; k < servers_.size(); ++k) {
    std::cout << (k ? ", " : "") << (servers_[k].name.empty() ? "" : servers_[k].name + " ")
              << servers_[k].address;
  }
  std::cout << (servers_.size() > 1 ? ", each with its clock" : ", its clock")
            << " under lockstep's control; its clients run as user " << kReplayUser
            << ", allowed the model's commands alone\n";
  std::cout << "time: before each step every server's clock is set to the model's for it; "
               "active expiry is off, so keys expire when a command looks at them, as in the "
               "model\n";
  return true;
}

// --redis URL: the server the user runs.
bool RedisSession::UseServer(const ServerAddress& address) {
  if (t_.server_names.size() > 1) {
    PrintError(file_ + ": the run has " + std::to_string(t_.server_names.size()) +
               " servers; --redis replays on one server only (--redis-server starts one for each)");
    return false;
  }
  Server server;
  server.address = address.at.host + ":" + std::to_string(address.at.port);
  if (!address.auth || address.auth->user == "default") {
    PrintError(
        "--redis " + server.address + (address.auth ? ": the user default" : ": no user") +
        "; the replay runs as a Redis user allowed the model's commands alone, in database 0, "
        "so that no script can do on the server what the model did not run. Make one (Redis 6 "
        "or later), then name it in the URL:\n" +
        HowToMakeReplayUser(address.at));
    return false;
  }
  server.admin_auth = address.auth;
  server.client_auth = address.auth;
  servers_.push_back(std::move(server));
  return true;
}

bool RedisSession::CheckUser() {
  if (managed()) return true;
  Server& s = servers_[0];
  std::string allowed;
  if (!ProbeReplayUser(*s.admin, &allowed, &error_)) {
    return Lost(s, "probing the user's rights", s.admin.get());
  }
  if (!allowed.empty()) {
    PrintError("--redis " + s.address + ": user " + s.admin_auth->user + " may run " + allowed +
               "; the replay runs as a user allowed the model's commands alone, in database "
               "0. Make one (Redis 6 or later), then name it in the URL:\n" +
               HowToMakeReplayUser(ParseHostPort(s.address)));
    return false;
  }
  return true;
}

// One connection for setup, and one per simulated client, to each server.
bool RedisSession::Connect() {
  for (Server& s : servers_) {
    if (!ConnectTo(s)) return false;
  }
  return true;
}

bool RedisSession::CheckDatabase() {
  if (managed()) return true;
  Server& s = servers_[0];
  if (options_.flush) {
    std::optional<kv::Reply> r = s.admin->Command({"FLUSHDB"}, &error_);
    if (!r) return Lost(s, "waiting for FLUSHDB", s.admin.get());
    if (*r != kv::Reply::Ok()) {
      PrintError(s.address + ": FLUSHDB answered " + trace::CompactReply(*r) +
                 "; expected OK, as Redis answers");
      return false;
    }
  }
  // Only Redis's own answer says the database is empty: an integer count.
  std::optional<kv::Reply> r = s.admin->Command({"DBSIZE"}, &error_);
  if (!r) return Lost(s, "waiting for DBSIZE", s.admin.get());
  if (r->type != kv::Reply::Type::kInteger) {
    PrintError(s.address + ": DBSIZE answered " + trace::CompactReply(*r) +
               "; expected an integer, as Redis answers");
    return false;
  }
  if (r->integer != 0) {
    PrintError(s.address + ": database 0 holds " + std::to_string(r->integer) + " keys" +
               (options_.flush ? " after FLUSHDB" : "") +
               "; replay needs an empty database (pass --redis-flush to empty database 0 "
               "first)");
    return false;
  }
  std::cout << "redis: " << s.address << ", database 0, as user " << s.client_auth->user
            << ", one connection per client (";
  for (size_t i = 0; i < t_.clients.size(); ++i) std::cout << (i ? ", " : "") << t_.clients[i].name;
  std::cout << ")" << (options_.flush ? ", emptied first (FLUSHDB)" : "");
  // The replay's connections use database 0; the others are never touched,
  // and those that hold keys are named.
  std::optional<kv::Reply> info = s.admin->Command({"INFO", "keyspace"}, &error_);
  if (!info) return Lost(s, "waiting for INFO keyspace", s.admin.get());
  std::vector<std::string> others;
  // The replay's user may not run INFO: then it cannot reach the others.
  if (info->is_error()) std::cout << "; the other databases are out of its reach";
  if (info->type == kv::Reply::Type::kBulk) {
    for (size_t at = info->text.str().find("\ndb"); at != std::string::npos;
         at = info->text.str().find("\ndb", at + 1)) {
      const std::string line =
          info->text.str().substr(at + 1, info->text.str().find('\r', at + 1) - at - 1);
      if (line.rfind("db0:", 0) != 0) others.push_back(line.substr(0, line.find(',')));
    }
  }
  if (!others.empty()) {
    std::cout << "; left as they are: ";
    for (size_t i = 0; i < others.size(); ++i) std::cout << (i ? ", " : "") << others[i];
  }
  std::cout << "\n";
  return true;
}

// --redis: offset maps virtual ms to the server's Unix ms, a whole number
// of seconds so that EXAT and EXPIREAT move exactly; base pins the mapping
// to this process's steady clock, so steps are paced by the server's time.
bool RedisSession::MapTime() {
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
bool RedisSession::WriteInitialKeyspace() {
  if (t_.steps.empty()) return true;
  const world::StepRecord& start = t_.steps[0];
  for (size_t k = 0; k < servers_.size(); ++k) {
    Server& s = servers_[k];
    const std::vector<kv::Entry>& entries =
        start.servers.empty() ? start.keyspace : start.servers[k].keyspace;
    for (const kv::Entry& e : entries) {
      std::vector<Argv> setup = {kv::WriteCommand(e)};
      if (e.deadline) setup.push_back({"PEXPIREAT", e.key, kv::FormatInt64(*e.deadline + offset_)});
      for (const Argv& argv : setup) {
        std::optional<kv::Reply> r = s.admin->Command(argv, &error_);
        if (!r) return Lost(s, "connection lost during setup", s.admin.get());
        std::cout << "setup: " << (s.name.empty() ? "" : s.name + ": ") << trace::CommandText(argv)
                  << " -> " << trace::CompactReply(*r) << "\n";
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
bool RedisSession::SaveSnapshots() {
  if (!managed()) return true;
  const world::WorldConfig& config = model_.scenario.world;
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

bool RedisSession::ConnectTo(Server& s) {
  const HostPort hp = ParseHostPort(s.address);
  s.conns.clear();
  auto auth = [](const std::optional<Credentials>& c) { return c ? &*c : nullptr; };
  s.admin = RedisConnection::Connect(hp.host, hp.port, kTimeoutMs, &error_, auth(s.admin_auth));
  if (!s.admin) return Lost(s, "cannot connect to the Redis server");
  for (size_t i = 0; i < t_.clients.size(); ++i) {
    s.conns.push_back(
        RedisConnection::Connect(hp.host, hp.port, kTimeoutMs, &error_, auth(s.client_auth)));
    if (!s.conns.back()) return Lost(s, "cannot connect to the Redis server");
  }
  return true;
}

// Every server's clock to the model's, and a server the model has back
// up after a restart started again.
bool RedisSession::SyncServers() {
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
        if (!run::StopRequested()) PrintError(e.what());
        return false;
      }
      if (!ConnectTo(servers_[k])) return false;
    }
  }
  return true;
}

// A connection failed or went silent: name the server and what was asked.
bool RedisSession::Lost(const Server& s, const std::string& what,
                        const RedisConnection* conn) const {
  if (conn != nullptr && conn->timed_out()) {
    PrintError("no reply from " + s.address + " within " + std::to_string(kTimeoutMs / 1000) +
               " s (" + what + ")");
  } else {
    PrintError(s.address + ": " + what + ": " + error_);
  }
  return false;
}

}  // namespace lockstep::replay
