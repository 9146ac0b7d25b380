#include "sim/world/model.h"

#include <algorithm>

namespace lockstep::world {

const char* StatusName(ClientStatus s) {
  switch (s) {
    case ClientStatus::kReady: return "ready";
    case ClientStatus::kSleeping: return "sleeping";
    case ClientStatus::kDone: return "done";
    case ClientStatus::kCrashed: return "crashed";
  }
  return "?";
}

Model::Model(WorldConfig config, bool use_forget_history) : config_(std::move(config)) {
  for (size_t i = 0; i < config_.clients.size(); ++i) {
    const ClientSetup& c = config_.clients[i];
    names_.push_back(c.name);
    automata_.push_back(std::make_unique<ClientAutomaton>(
        c.name, static_cast<int>(i), config_.seed, c.body, use_forget_history));
  }
}

WorldState Model::Initial() {
  WorldState s;
  s.now = config_.start_time;
  for (const kv::Entry& e : config_.initial_keyspace) {
    s.keyspace.PutString(e.key, e.value, e.deadline);
  }
  s.keyspace.PurgeExpired(s.now);
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
      slot.status = ClientStatus::kSleeping;
      slot.wake_at = s.now + r.sleep_ticks;
    } else if (r.kind == Request::Kind::kDone) {
      slot.status = ClientStatus::kDone;
      slot.local = 0;
    }
  }
  return s;
}

Millis Model::MaxArgAge(const WorldState& s, int i) const {
  const Request& r = RequestOf(s, i);
  if (!r.ReadsClock()) return 0;
  Millis since = s.now - s.clients[i].ready_since;
  const auto& bound = config_.assumptions.max_arg_delay;
  return bound ? std::min(*bound, since) : since;
}

bool Model::TickAllowed(const WorldState& s, std::string* why) const {
  if (s.now >= config_.horizon) {
    if (why) *why = "the clock is at the horizon (" + std::to_string(config_.horizon) + ")";
    return false;
  }
  const Assumptions& a = config_.assumptions;
  if (!a.holders_release_in_time && !a.max_hold_ticks) return true;
  for (int i = 0; i < client_count(); ++i) {
    const ClientSlot& c = s.clients[i];
    if (!c.holding || c.status == ClientStatus::kCrashed) continue;
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
    if (s.clients[i].status != ClientStatus::kReady) continue;
    Millis max_age = MaxArgAge(s, i);
    for (Millis age = 0; age <= max_age; ++age) out->push_back(Action::Step(i, age));
  }
  if (TickAllowed(s, nullptr)) out->push_back(Action::Tick());
  if (s.crashes_used < config_.faults.crash) {
    for (int i = 0; i < client_count(); ++i) {
      auto st = s.clients[i].status;
      if (st == ClientStatus::kReady || st == ClientStatus::kSleeping) {
        out->push_back(Action::Crash(i));
      }
    }
  }
}

bool Model::IsEnabled(const WorldState& s, const Action& a, std::string* why) const {
  std::string ignored;
  if (!why) why = &ignored;
  if (a.kind == Action::Kind::kTick) return TickAllowed(s, why);
  if (a.client < 0 || a.client >= client_count()) {
    *why = "no such client";
    return false;
  }
  const ClientSlot& c = s.clients[a.client];
  const std::string& name = names_[a.client];
  if (a.kind == Action::Kind::kCrash) {
    if (s.crashes_used >= config_.faults.crash) {
      *why = "the crash budget (" + std::to_string(config_.faults.crash) + ") is used up";
      return false;
    }
    if (c.status == ClientStatus::kDone || c.status == ClientStatus::kCrashed) {
      *why = name + " is " + StatusName(c.status);
      return false;
    }
    return true;
  }
  if (c.status != ClientStatus::kReady) {
    *why = name + " cannot run: it is " + StatusName(c.status);
    if (c.status == ClientStatus::kSleeping) {
      *why += " until the clock reaches " + std::to_string(c.wake_at);
    }
    return false;
  }
  Millis max_age = MaxArgAge(s, a.client);
  if (a.age < 0 || a.age > max_age) {
    *why = name + "'s arguments can be at most " + std::to_string(max_age) + " ticks old here";
    return false;
  }
  return true;
}

// Runs client i's local code on `input` and settles its new request.
void Model::Resume(WorldState& s, int i, const Input& input, StepEffects* effects) {
  ClientSlot& c = s.clients[i];
  const Transition& t = automata_[i]->Resume(c.local, input);
  for (const GhostEvent& g : t.ghost) {
    if (g.kind == GhostEvent::Kind::kEnter) {
      c.in_critical_section = true;
      c.holding = true;
      c.valid_until = g.valid_until;
      c.acquired_at = s.now;
      if (effects) effects->events.push_back(names_[i] + " enters the critical section");
    } else {
      c.holding = false;
      c.valid_until = 0;
      c.acquired_at = 0;
    }
  }
  c.local = t.next;
  c.request = t.next_request;
  const Request& r = *c.request;
  switch (r.kind) {
    case Request::Kind::kCommand:
    case Request::Kind::kLeave:
      c.status = ClientStatus::kReady;
      c.ready_since = s.now;
      break;
    case Request::Kind::kSleep:
      c.status = ClientStatus::kSleeping;
      c.wake_at = s.now + r.sleep_ticks;
      c.ready_since = 0;
      break;
    case Request::Kind::kDone:
      c.status = ClientStatus::kDone;
      c.local = 0;
      c.ready_since = 0;
      if (effects) effects->events.push_back(names_[i] + " finishes");
      break;
  }
}

void Model::Apply(WorldState& s, const Action& a, StepEffects* effects) {
  switch (a.kind) {
    case Action::Kind::kTick: {
      ++s.now;
      s.keyspace.PurgeExpired(s.now);
      for (int i = 0; i < client_count(); ++i) {
        ClientSlot& c = s.clients[i];
        if (c.status == ClientStatus::kSleeping && c.wake_at <= s.now) {
          if (effects) effects->events.push_back(names_[i] + " wakes");
          c.wake_at = 0;
          Resume(s, i, Input{kv::Reply::Nil(), ClientClock(s, i), 0}, effects);
        }
      }
      return;
    }
    case Action::Kind::kCrash: {
      ClientSlot& c = s.clients[a.client];
      c.status = ClientStatus::kCrashed;
      c.in_critical_section = false;
      c.local = 0;
      c.ready_since = c.wake_at = 0;
      ++s.crashes_used;
      if (effects) effects->events.push_back(names_[a.client] + " crashes");
      return;
    }
    case Action::Kind::kStep:
      break;
  }
  const int i = a.client;
  ClientSlot& c = s.clients[i];
  const Request& r = *c.request;
  const Millis read_clock = ClientClock(s, i) - a.age;
  Input input;
  input.clock = ClientClock(s, i);
  std::vector<std::string> argv;
  if (r.kind == Request::Kind::kLeave) {
    c.in_critical_section = false;
    if (effects) effects->events.push_back(names_[i] + " leaves the critical section");
    if (r.make) argv = r.make(read_clock);
  } else {
    argv.reserve(r.argv.size());
    for (const Value& v : r.argv) {
      if (v.is_clock()) {
        input.sent_timestamp = read_clock + v.offset();
        argv.push_back(std::to_string(input.sent_timestamp));
      } else {
        argv.push_back(v.literal());
      }
    }
  }
  if (!argv.empty()) {
    kv::Effect effect;
    input.reply = s.keyspace.Execute(argv, s.now, &effect);
    if (effects) {
      effects->reply = input.reply;
      effects->effect = effect;
    }
  }
  if (effects) effects->command = argv;
  Resume(s, i, input, effects);
}

}  // namespace lockstep::world
