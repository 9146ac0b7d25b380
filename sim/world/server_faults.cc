// Servers and the faults that strike them: a command's trip to its server
// (lost requests and replies, unavailable servers), replication to a
// replica, failover and restart per persistence.
#include <algorithm>
#include <span>

#include "sim/kv/command_table.h"
#include "sim/world/ghost_state.h"
#include "sim/world/model.h"

namespace lockstep::world {

const char* RoleName(ServerRole r) {
  switch (r) {
    case ServerRole::kMaster:
      return "master";
    case ServerRole::kReplica:
      return "replica";
    case ServerRole::kFailed:
      return "failed";
  }
  return "?";
}

namespace {

// What a write changed, key by key, as the master would replicate it.
ReplicatedWrite Changes(const kv::Keyspace& before, const ServerState& after) {
  ReplicatedWrite w;
  const auto& a = before.entries();
  const auto& b = after.keyspace.entries();
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].key < b[j].key)) {
      w.keys.push_back({a[i].key, std::nullopt});
      ++i;
    } else if (i == a.size() || b[j].key < a[i].key) {
      w.keys.push_back({b[j].key, b[j]});
      ++j;
    } else {
      if (!(a[i] == b[j])) w.keys.push_back({b[j].key, b[j]});
      ++i, ++j;
    }
  }
  return w;
}

}  // namespace

kv::Reply Model::Send(WorldState& s, const Action& a, const kv::Args& argv,
                      const kv::CommandSpec* spec, const kv::Args& stamps, StepEffects* effects,
                      bool* reply_is_time) {
  const int i = a.client;
  const int instance = s.clients[i].request->instance;
  if (instance < 0 || instance >= instance_count()) {
    return kv::Reply::Error("ERR no Redis instance " + std::to_string(instance) +
                            ": the scenario has " + std::to_string(instance_count()));
  }
  const int server = s.serving[instance];
  if (effects) effects->server = server;
  if (a.kind == Action::Kind::kLoseRequest) {
    if (effects) effects->events.push_back(names_[i] + "'s request is lost");
    return kv::Reply::Error(kTimeoutError);
  }
  if (!Available(s, server)) {
    if (effects) effects->events.push_back(server_names_[server] + " is unavailable");
    return kv::Reply::Error(kTimeoutError);
  }
  ServerState& sv = s.servers[server];
  // The keys as the command finds them, in scratch space whose strings keep
  // their buffers from step to step.
  size_t before_count = 0;
  if (spec) {  // else Execute replies the error
    const Millis server_now = ServerClock(s, server);
    const kv::KeyPositions keys = kv::CommandKeyPositions(*spec, argv);
    for (size_t k = keys.first; k < keys.end; k += keys.step) {
      if (before_scratch_.size() == before_count) before_scratch_.emplace_back();
      KeyBefore& b = before_scratch_[before_count++];
      const auto& entries = sv.keyspace.entries();
      const auto e = kv::FindKey(entries, argv[k]);
      // A replica hides an expired key it keeps, with its ghost facts.
      b.ghost = e != entries.end() ? GhostIn(*e) : ValueGhost{};
      if (e != entries.end() && !e->ExpiredAt(server_now)) {
        if (b.entry) {
          *b.entry = *e;
        } else {
          b.entry.emplace(*e);
        }
      } else {
        b.entry.reset();
      }
    }
  }
  const std::span<const KeyBefore> before_keys(before_scratch_.data(), before_count);
  const int replica = replica_of_[server];
  const bool replicating = replica >= 0 && s.servers[replica].role == ServerRole::kReplica;
  std::optional<kv::Keyspace> before;
  if (replicating) before = sv.keyspace;
  kv::Effect effect;
  if (effects) effects->ran = true;
  kv::Reply reply = spec ? kv::Execute(sv.keyspace, *spec, argv, ServerClock(s, server), &effect)
                         : kv::Execute(sv.keyspace, argv, ServerClock(s, server), &effect);
  if (effect.wrote && spec) NoteWrites(s, server, i, *spec, argv, stamps, before_keys);
  if (reply.type == kv::Reply::Type::kBulk) {
    for (const KeyBefore& k : before_keys) {
      *reply_is_time |= k.entry && k.entry->kind == kv::Entry::Kind::kString &&
                        k.entry->timestamp && k.entry->value == reply.text;
    }
  }
  if (replicating) {
    ReplicatedWrite w = Changes(*before, sv);
    if (!w.keys.empty()) sv.backlog.push_back(std::move(w));
  }
  if (effects) {
    effects->reply = reply;
    effects->effect = effect;
  }
  if (a.kind == Action::Kind::kLoseReply) {
    if (effects) effects->events.push_back(names_[i] + "'s reply is lost");
    return kv::Reply::Error(kTimeoutError);
  }
  return reply;
}

void Model::Replicate(WorldState& s, int master, StepEffects* effects) {
  ServerState& m = s.servers[master];
  const int r = replica_of_[master];
  ServerState& replica = s.servers[r];
  ReplicatedWrite w = std::move(m.backlog.front());
  m.backlog.erase(m.backlog.begin());
  std::string keys;
  for (const ReplicatedWrite::Key& k : w.keys) {
    replica.keyspace.Replace(k.key, k.entry);
    keys += (keys.empty() ? "" : ", ") + k.key.str();
  }
  if (effects) {
    effects->events.push_back(server_names_[r] + " applies " + server_names_[master] +
                              "'s write of " + keys);
  }
}

void Model::Failover(WorldState& s, int master, StepEffects* effects) {
  ++s.used.failover;
  const int r = replica_of_[master];
  ServerState& m = s.servers[master];
  const size_t lost = m.backlog.size();
  m = ServerState{};
  m.role = ServerRole::kFailed;
  s.servers[r].role = ServerRole::kMaster;
  for (int& serving : s.serving) {
    if (serving == master) serving = r;
  }
  Settle(s, r);
  if (effects) {
    effects->events.push_back(
        server_names_[master] + " fails; " + server_names_[r] + " is promoted to master" +
        (lost ? ", losing " + std::to_string(lost) + " unreplicated write" + (lost == 1 ? "" : "s")
              : std::string()));
  }
}

void Model::Restart(WorldState& s, int server, StepEffects* effects) {
  ++s.used.restart;
  ServerState& sv = s.servers[server];
  const ServerConfig& sc = config_.servers[server];
  switch (sc.persistence) {
    case Persistence::kAlways:
      break;
    case Persistence::kEverySec:
      RestartFrom(sv, sv.persisted);
      break;
    case Persistence::kNone:
      sv.keyspace = kv::Keyspace();
      break;
  }
  sv.down_until = sc.restart_delay > 0 ? s.now + sc.restart_delay : 0;
  Settle(s, server);
  if (effects) {
    std::string who = server_count() > 1 ? server_names_[server] : "the server";
    effects->events.push_back(
        who + " restarts" +
        (sc.restart_delay > 0 ? ", unavailable until " + std::to_string(sv.down_until) : ""));
  }
}

}  // namespace lockstep::world
