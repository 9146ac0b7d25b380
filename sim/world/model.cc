#include "sim/world/model.h"

#include <algorithm>
#include <map>

#include "sim/world/ghost_state.h"

namespace lockstep::world {

void Model::StartSleeping(ClientSlot& c, const Request& r, Millis now) {
  c.status = ClientStatus::kSleeping;
  c.wake_at = now + r.sleep_ticks;
  c.wake_by = now + r.sleep_most;
}

bool TokensRenamable(const WorldConfig& config) {
  // A history that holds another client's token names that client.
  for (const ClientSetup& c : config.clients) {
    if (!c.crashed && !c.never_reads_tokens) return false;
  }
  return true;
}

const char* StatusName(ClientStatus s) {
  switch (s) {
    case ClientStatus::kReady:
      return "ready";
    case ClientStatus::kSleeping:
      return "sleeping";
    case ClientStatus::kDone:
      return "done";
    case ClientStatus::kCrashed:
      return "crashed";
    case ClientStatus::kFailed:
      return "failed";
  }
  return "?";
}

Model::Model(WorldConfig config, bool use_forget_history) : config_(std::move(config)) {
  replica_of_.assign(config_.servers.size(), -1);
  for (size_t k = 0; k < config_.servers.size(); ++k) {
    const ServerConfig& sc = config_.servers[k];
    server_names_.push_back(sc.name);
    if (sc.replica_of < 0) {
      masters_.push_back(static_cast<int>(k));
    } else {
      replica_of_[sc.replica_of] = static_cast<int>(k);
    }
  }
  tokens_renamable_ = TokensRenamable(config_);
  for (size_t i = 0; i < config_.clients.size(); ++i) {
    const ClientSetup& c = config_.clients[i];
    names_.push_back(c.name);
    const RandomRules rules{.tokens_only = !c.draws_numbers,
                            .never_reads_tokens = c.never_reads_tokens,
                            .tokens_as_draws = tokens_renamable_,
                            .probabilistic = config_.probabilistic};
    automata_.push_back(std::make_unique<ClientAutomaton>(c.name, static_cast<int>(i), config_.seed,
                                                          c.body, use_forget_history, rules,
                                                          c.max_parked, c.max_memo_bytes));
  }
  writer_names_ = names_;
  // Indexed, not searched: an initial keyspace may name many writers.
  std::map<std::string, int> writer_index;
  for (size_t i = 0; i < writer_names_.size(); ++i) {
    writer_index.emplace(writer_names_[i], static_cast<int>(i));
  }
  initial_keyspace_.PutAll(config_.initial_keyspace);
  auto& entries = initial_keyspace_.mutable_entries();
  for (const auto& [key, name] : config_.initial_writers) {  // in key order
    auto [it, added] = writer_index.emplace(name, static_cast<int>(writer_names_.size()));
    if (added) writer_names_.push_back(name);
    auto entry = kv::FindKey(entries, key);
    // A lock held before the start: its writer's acquisition owns it.
    if (entry != entries.end()) entry->writer = entry->owner = it->second;
  }
}

void Model::Settle(WorldState& s, int server) {
  ServerState& sv = s.servers[server];
  if (sv.role != ServerRole::kMaster) return;
  const Millis server_now = ServerClock(s, server);
  sv.keyspace.PurgeExpired(server_now);
}

WorldState Model::Initial() {
  WorldState s;
  s.now = config_.start_time;
  // Every server starts with the scenario's keyspace: replicas in sync.
  s.servers.resize(config_.servers.size());
  for (int k = 0; k < server_count(); ++k) {
    ServerState& sv = s.servers[k];
    sv.role = config_.servers[k].replica_of < 0 ? ServerRole::kMaster : ServerRole::kReplica;
    sv.keyspace = initial_keyspace_;
    Settle(s, k);
    // Only an everysec server's restart reads what was last synced; an
    // always server keeps its keyspace, a none server loses it.
    if (config_.servers[k].persistence == Persistence::kEverySec) Persist(sv);
  }
  s.serving = masters_;
  s.clients.resize(names_.size());
  for (int i = 0; i < client_count(); ++i) {
    ClientSlot& slot = s.clients[i];
    if (config_.clients[i].crashed) {
      slot.status = ClientStatus::kCrashed;
      continue;
    }
    slot.local = automata_[i]->Start(Input{kv::Reply::Nil(), ClientClock(s, i), 0});
    slot.ready_since = s.now;
    slot.request = &automata_[i]->RequestAt(slot.local);
    const Request& r = *slot.request;
    if (r.kind == Request::Kind::kSleep) {
      StartSleeping(slot, r, s.now);
    } else if (r.kind == Request::Kind::kDone) {
      slot.status = ClientStatus::kDone;
      slot.local = 0;
    }
  }
  return s;
}

std::string HorizonText(const std::optional<Millis>& horizon) {
  return horizon ? "horizon " + std::to_string(*horizon) : "all time (no horizon)";
}

Millis Model::MaxArgAge(const WorldState& s, int i) const {
  const auto& bound = config_.assumptions.max_arg_delay;
  if (bound && *bound == 0) return 0;  // the common case, settled without the request
  if (!RequestOf(s, i).ReadsClock()) return 0;
  Millis since = s.now - s.clients[i].ready_since;
  return bound ? std::min(*bound, since) : since;
}

bool Model::TickAllowed(const WorldState& s, std::string* why, int exempt) const {
  if (config_.horizon && s.now >= *config_.horizon) {
    if (why) *why = "the clock is at the horizon (" + std::to_string(*config_.horizon) + ")";
    return false;
  }
  if (!config_.horizon && std::none_of(s.clients.begin(), s.clients.end(),
                                       [](const auto& c) { return Runs(c.status); })) {
    // Nothing is left that time could change: without a horizon, this is
    // where executions end.
    if (why) *why = "every client has finished or crashed, and the clock has no horizon";
    return false;
  }
  const Assumptions& a = config_.assumptions;
  if (a.max_ready_ticks) {
    for (int i = 0; i < client_count(); ++i) {
      const ClientSlot& c = s.clients[i];
      if (c.status == ClientStatus::kReady && s.now + 1 > c.ready_since + *a.max_ready_ticks) {
        if (why) {
          *why = names_[i] + " has waited " + std::to_string(s.now - c.ready_since) +
                 " ticks for its step, and max_ready_ticks is " +
                 std::to_string(*a.max_ready_ticks);
        }
        return false;
      }
    }
  }
  if (!a.holders_release_in_time && !a.max_hold_ticks) return true;
  for (int i = 0; i < client_count(); ++i) {
    const ClientSlot& c = s.clients[i];
    // A client that no longer runs holds no clock, whatever it believes.
    if (!c.holding || c.stalled || i == exempt || !Runs(c.status)) continue;
    if (a.holders_release_in_time && ClientClock(s, i) + 1 > c.valid_until) {
      if (why) {
        *why = names_[i] + " still holds the lock and must release it before its clock passes " +
               std::to_string(c.valid_until) + " (holders_release_in_time)";
      }
      return false;
    }
    if (a.max_hold_ticks && s.now + 1 > c.acquired_at + *a.max_hold_ticks) {
      if (why) {
        *why = names_[i] + " still holds the lock, acquired at " + std::to_string(c.acquired_at) +
               ", and max_hold_ticks is " + std::to_string(*a.max_hold_ticks);
      }
      return false;
    }
  }
  return true;
}

void Model::EnabledActions(const WorldState& s, std::vector<Action>* out) const {
  out->clear();
  for (int i = 0; i < client_count(); ++i) {
    const ClientSlot& c = s.clients[i];
    if (c.status == ClientStatus::kSleeping && c.wake_at <= s.now) {
      out->push_back(Action::Step(i));  // it may wake now, or later (Client::SleepBetween)
    }
    if (c.status != ClientStatus::kReady) continue;
    if (c.request->kind == Request::Kind::kDraw) {  // each value it may draw (Client::Draw)
      for (int64_t v = c.request->draw_least; v <= c.request->draw_most; ++v) {
        out->push_back(Action::Drawn(i, v));
      }
      continue;
    }
    Millis max_age = MaxArgAge(s, i);
    for (Millis age = 0; age <= max_age; ++age) out->push_back(Action::Step(i, age));
  }
  const bool tick = TickAllowed(s, nullptr);
  if (tick) out->push_back(Action::Tick());
  for (int k = 0; k < server_count(); ++k) {
    if (CanReplicate(s, k)) out->push_back(Action::Replicate(k));
  }
  const FaultBudget& b = config_.faults;
  if (s.used.crash < b.crash) {
    for (int i = 0; i < client_count(); ++i) {
      auto st = s.clients[i].status;
      if (st == ClientStatus::kReady || st == ClientStatus::kSleeping)
        out->push_back(Action::Crash(i));
    }
  }
  if (s.used.stall < b.stall && !tick && (!config_.horizon || s.now < *config_.horizon)) {
    for (int i = 0; i < client_count(); ++i) {
      const ClientSlot& c = s.clients[i];
      if (b.stall_only_releasing && c.in_critical_section) continue;
      if (c.holding && !c.stalled && c.status != ClientStatus::kCrashed &&
          TickAllowed(s, nullptr, i)) {
        out->push_back(Action::Stall(i));
      }
    }
  }
  if (s.used.jump < b.jump) {
    for (int k = 0; k < server_count(); ++k) {
      if (s.servers[k].role == ServerRole::kFailed) continue;
      for (Millis by : b.jump_by) out->push_back(Action::Jump(by, k));
    }
  }
  if (s.used.restart < b.restart) {
    for (int k = 0; k < server_count(); ++k) {
      if (Restartable(s, k)) out->push_back(Action::Restart(k));
    }
  }
  if (s.used.lose < b.lose) {
    for (int i = 0; i < client_count(); ++i) {
      const ClientSlot& c = s.clients[i];
      if (c.status == ClientStatus::kReady && c.request->kind == Request::Kind::kCommand) {
        out->push_back(Action::LoseRequest(i));
        out->push_back(Action::LoseReply(i));
      }
    }
  }
  if (s.used.failover < b.failover) {
    for (int k = 0; k < server_count(); ++k) {
      if (CanFailOver(s, k)) out->push_back(Action::Failover(k));
    }
  }
}

bool Model::Restartable(const WorldState& s, int server) const {
  // Restarting a server that replicates or is replicated would need a full
  // resynchronisation, which the model does not have.
  return config_.servers[server].replica_of < 0 && replica_of_[server] < 0 && Available(s, server);
}

bool Model::CanReplicate(const WorldState& s, int server) const {
  const int r = replica_of_[server];
  return r >= 0 && s.servers[server].role == ServerRole::kMaster &&
         s.servers[r].role == ServerRole::kReplica && !s.servers[server].backlog.empty();
}

bool Model::CanFailOver(const WorldState& s, int server) const {
  const int r = replica_of_[server];
  return r >= 0 && s.servers[server].role == ServerRole::kMaster &&
         s.servers[r].role == ServerRole::kReplica;
}

bool Model::IsEnabled(const WorldState& s, const Action& a, std::string* why) const {
  std::string ignored;
  if (!why) why = &ignored;
  std::vector<Action> enabled;
  EnabledActions(s, &enabled);
  if (std::find(enabled.begin(), enabled.end(), a) != enabled.end()) return true;
  // Say why, as precisely as we can.
  // True, saying so, iff the budget `a` spends is used up.
  auto used_up = [&] {
    const FaultKind& k = *FaultKindOf(a.kind);
    const int limit = config_.faults.*k.count;
    if (s.used.*k.count < limit) return false;
    *why = "the " + std::string(k.name) + " budget (" + std::to_string(limit) + ") is used up";
    return true;
  };
  const FaultBudget& b = config_.faults;
  if (a.server < 0 || a.server >= server_count()) {
    *why = "no such server";
    return false;
  }
  switch (a.kind) {
    case Action::Kind::kTick:
      TickAllowed(s, why);
      return false;
    case Action::Kind::kJump:
      if (used_up()) return false;
      *why = "the scenario's jumps are +" + [&] {
        std::string t;
        for (Millis by : b.jump_by) t += (t.empty() ? "" : ", +") + std::to_string(by);
        return t;
      }();
      return false;
    case Action::Kind::kRestart:
      if (used_up()) return false;
      *why = server_names_.at(a.server) +
             " cannot restart: it replicates or is replicated, or is not running";
      return false;
    case Action::Kind::kReplicate:
      *why = a.server < server_count() && replica_of_[a.server] >= 0
                 ? server_names_[a.server] + " has no write its replica lacks"
                 : "no replica follows that server";
      return false;
    case Action::Kind::kFailover:
      if (used_up()) return false;
      *why = "no replica can take that server's place";
      return false;
    default:
      break;
  }
  if (a.client < 0 || a.client >= client_count()) {
    *why = "no such client";
    return false;
  }
  const ClientSlot& c = s.clients[a.client];
  const std::string& name = names_[a.client];
  switch (a.kind) {
    case Action::Kind::kCrash:
      if (used_up()) return false;
      *why = name + " is " + StatusName(c.status);
      return false;
    case Action::Kind::kStall:
      if (used_up()) return false;
      *why =
          "a stall is a tick that " + name + "'s holder bound alone forbids, and this is not one";
      return false;
    case Action::Kind::kLoseRequest:
    case Action::Kind::kLoseReply:
      if (used_up()) return false;
      *why = name + " has no command in flight";
      return false;
    default:
      break;
  }
  if (c.status != ClientStatus::kReady) {
    *why = name + " cannot run: it is " + StatusName(c.status);
    if (c.status == ClientStatus::kSleeping) {
      *why += " until the clock reaches " + std::to_string(c.wake_at);
    }
    return false;
  }
  const Request& r = *c.request;
  if (r.kind == Request::Kind::kDraw) {
    *why = name + " draws a value from " + std::to_string(r.draw_least) + " to " +
           std::to_string(r.draw_most) +
           (a.drawn ? "" : ": its step says which (\"" + name + " draws N\")");
    return false;
  }
  if (a.drawn) {
    *why = name + " draws nothing here";
    return false;
  }
  *why = name + "'s arguments can be at most " + std::to_string(MaxArgAge(s, a.client)) +
         " ticks old here";
  return false;
}

}  // namespace lockstep::world
