#include "sim/world/world.h"

#include "sim/kv/command_table.h"

namespace lockstep::world {

World::World(WorldConfig config) : model_(std::move(config), /*use_forget_history=*/false) {
  state_ = model_.Initial();
  writers_ = model_.config().initial_writers;
  for (auto it = writers_.begin(); it != writers_.end();) {
    it = state_.keyspace.Find(it->first, state_.now) ? std::next(it) : writers_.erase(it);
  }
}

std::vector<Action> World::EnabledActions() const {
  std::vector<Action> out;
  model_.EnabledActions(state_, &out);
  return out;
}

bool World::IsEnabled(const Action& a, std::string* why) const {
  return model_.IsEnabled(state_, a, why);
}

void World::NoteWrites(const std::vector<std::string>& argv, int writer) {
  const kv::CommandSpec* spec = kv::FindCommand(argv[0]);
  if (!spec || !kv::ArityOk(*spec, argv.size())) return;
  for (const std::string& key : kv::CommandKeys(*spec, argv)) {
    if (state_.keyspace.Find(key, state_.now)) {
      writers_[key] = client_names()[writer];
    } else {
      writers_.erase(key);
    }
  }
}

StepRecord World::Apply(const Action& a) {
  StepRecord r;
  r.index = ++step_count_;
  r.action = a;
  r.actor = a.kind == Action::Kind::kTick ? "clock" : client_names()[a.client];
  StepEffects effects;
  model_.Apply(state_, a, &effects);
  if (effects.effect.wrote) NoteWrites(effects.command, a.client);
  if (a.kind == Action::Kind::kTick) {
    for (auto it = writers_.begin(); it != writers_.end();) {
      it = state_.keyspace.Find(it->first, state_.now) ? std::next(it) : writers_.erase(it);
    }
  }
  r.command = std::move(effects.command);
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
  r->keyspace = state_.keyspace.Live(state_.now);
  r->writers = writers_;
}

}  // namespace lockstep::world
