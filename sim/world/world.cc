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
  StepRecord r;
  r.index = ++step_count_;
  r.action = a;
  r.actor = a.client >= 0                   ? client_names()[a.client]
            : a.kind == Action::Kind::kTick ? "clock"
            : model_.server_count() > 1     ? model_.server_names()[a.server]
                                            : "server";
  StepEffects effects;
  model_.Apply(state_, a, &effects);
  r.command = std::move(effects.command);
  if (effects.server >= 0 && model_.server_count() > 1)
    r.server = model_.server_names()[effects.server];
  r.reply = std::move(effects.reply);
  r.events = std::move(effects.events);
  Snapshot(&r);
  return r;
}

StepRecord World::Initial() const {
  StepRecord r;
  r.actor = "start";
  Snapshot(&r);
  return r;
}

void World::Snapshot(StepRecord* r) const {
  r->global_time = state_.now;
  for (int i = 0; i < client_count(); ++i) {
    const ClientSlot& c = state_.clients[i];
    r->client_clocks.push_back(ClientClock(i));
    if (c.in_critical_section) r->in_critical_section.push_back(client_names()[i]);
    if (c.holding && c.status != ClientStatus::kCrashed) r->holding.push_back(client_names()[i]);
  }
  const int first = state_.serving[0];
  const ServerState& sv = state_.servers[first];
  r->keyspace = sv.keyspace.Live(model_.ServerClock(state_, first));
  for (const auto& [key, g] : sv.ghosts) r->writers[key] = model_.writer_names()[g.writer];
  if (model_.server_count() == 1) return;
  for (int k = 0; k < model_.server_count(); ++k) {
    const ServerState& server = state_.servers[k];
    ServerRecord rec;
    rec.name = model_.server_names()[k];
    rec.role = RoleName(server.role);
    rec.available = Model::Available(state_, k);
    rec.clock = model_.ServerClock(state_, k);
    if (server.role != ServerRole::kFailed) rec.keyspace = server.keyspace.Live(rec.clock);
    for (const auto& [key, g] : server.ghosts) {
      if (server.keyspace.Find(key, rec.clock)) rec.writers[key] = model_.writer_names()[g.writer];
    }
    rec.unreplicated = static_cast<int>(server.backlog.size());
    r->servers.push_back(std::move(rec));
  }
}

}  // namespace lockstep::world
