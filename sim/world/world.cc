#include "sim/world/world.h"

namespace lockstep::world {

World::World(WorldConfig config) : model_(std::move(config), /*use_forget_history=*/false) {
  state_ = model_.Initial();
}

std::vector<Action> World::EnabledActions() const {
  std::vector<Action> out;
  model_.EnabledActions(state_, &out);
  return out;
}

bool World::IsEnabled(const Action& a, std::string* why) const {
  return model_.IsEnabled(state_, a, why);
}

StepRecord World::Apply(const Action& a) {
  StepEffects effects;
  model_.Apply(state_, a, &effects);
  return RecordStep(model_, state_, ++step_count_, a, std::move(effects));
}

StepRecord World::Initial() const { return RecordStart(model_, state_); }

namespace {

// What every record shows of the state `s` that a step left.
void Snapshot(const Model& model, const WorldState& s, StepRecord* r) {
  r->global_time = s.now;
  for (int i = 0; i < model.client_count(); ++i) {
    const ClientSlot& c = s.clients[i];
    r->client_clocks.push_back(model.ClientClock(s, i));
    if (c.in_critical_section) r->in_critical_section.push_back(model.client_names()[i]);
    if (c.holding && c.status != ClientStatus::kCrashed)
      r->holding.push_back(model.client_names()[i]);
  }
  const int first = s.serving[0];
  const ServerState& sv = s.servers[first];
  r->keyspace = sv.keyspace.Live(model.ServerClock(s, first));
  for (const kv::Entry& e : sv.keyspace.entries()) {
    if (e.writer >= 0) r->writers[e.key.str()] = model.writer_names()[e.writer];
  }
  if (model.server_count() == 1) return;
  for (int k = 0; k < model.server_count(); ++k) {
    const ServerState& server = s.servers[k];
    ServerRecord rec;
    rec.name = model.server_names()[k];
    rec.role = RoleName(server.role);
    rec.available = Model::Available(s, k);
    rec.clock = model.ServerClock(s, k);
    if (server.role != ServerRole::kFailed) rec.keyspace = server.keyspace.Live(rec.clock);
    for (const kv::Entry& e : server.keyspace.entries()) {
      if (e.writer >= 0 && !e.ExpiredAt(rec.clock)) {
        rec.writers[e.key.str()] = model.writer_names()[e.writer];
      }
    }
    rec.unreplicated = static_cast<int>(server.backlog.size());
    r->servers.push_back(std::move(rec));
  }
}

}  // namespace

StepRecord RecordStep(const Model& model, const WorldState& s, int index, const Action& a,
                      StepEffects effects) {
  StepRecord r;
  r.index = index;
  r.action = a;
  r.actor = a.client >= 0                   ? model.client_names()[a.client]
            : a.kind == Action::Kind::kTick ? "clock"
            : model.server_count() > 1      ? model.server_names()[a.server]
                                            : "server";
  r.command = std::move(effects.command);
  if (effects.server >= 0 && model.server_count() > 1)
    r.server = model.server_names()[effects.server];
  r.reply = std::move(effects.reply);
  r.events = std::move(effects.events);
  r.source = std::move(effects.source);
  for (auto& [client, reason] : effects.reasons) {
    r.reasons.push_back({model.client_names()[client], std::move(reason)});
  }
  Snapshot(model, s, &r);
  return r;
}

StepRecord RecordStart(const Model& model, const WorldState& s) {
  StepRecord r;
  r.actor = "start";
  Snapshot(model, s, &r);
  return r;
}

}  // namespace lockstep::world
