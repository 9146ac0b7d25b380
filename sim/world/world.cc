#include "sim/world/world.h"

#include <algorithm>
#include <stdexcept>

#include <boost/fiber/fixedsize_stack.hpp>
#include <boost/fiber/operations.hpp>

#include "sim/kv/command_table.h"
#include "sim/world/fiber_scheduler.h"

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

World::World(WorldConfig config) : config_(std::move(config)) {
  scheduler_ = &ThisThreadFiberScheduler();
  driver_ = boost::fibers::context::active();
  now_ = config_.start_time;
  for (const kv::Entry& e : config_.initial_keyspace) {
    keyspace_.PutString(e.key, e.value, e.deadline);
  }
  keyspace_.PurgeExpired(now_);
  writers_ = config_.initial_writers;

  const int n = static_cast<int>(config_.clients.size());
  states_.resize(n);
  for (int i = 0; i < n; ++i) {
    names_.push_back(config_.clients[i].name);
    clients_.push_back(std::unique_ptr<Client>(
        new Client(this, i, config_.clients[i].name, config_.seed)));
  }
  fibers_.reserve(n);
  for (int i = 0; i < n; ++i) {
    if (config_.clients[i].crashed) {
      states_[i].status = ClientStatus::kCrashed;
      fibers_.emplace_back();
      continue;
    }
    // launch::dispatch runs the fiber at once, up to its first scheduling
    // point, so its context is known before the world goes on.
    fibers_.emplace_back(
        boost::fibers::launch::dispatch, std::allocator_arg,
        boost::fibers::fixedsize_stack(64 * 1024), [this, i] {
          Client& c = *clients_[i];
          c.fiber_ = boost::fibers::context::active();
          c.clock_ = ClientClock(i);
          try {
            config_.clients[i].body(c);
          } catch (const ClientStopped&) {
            // The world is ending; unwind quietly.
          }
          c.request_ = Client::Request::kDone;
        });
    Settle(i);
  }
}

World::~World() {
  for (size_t i = 0; i < fibers_.size(); ++i) {
    Client& c = *clients_[i];
    if (fibers_[i].joinable() && c.request_ != Client::Request::kDone) {
      c.stop_ = true;
      scheduler_->SwitchTo(c.fiber_);
    }
    if (fibers_[i].joinable()) fibers_[i].join();
  }
  scheduler_->ReleaseFinishedFibers();
}

void World::Resume(int i) {
  Client& c = *clients_[i];
  c.clock_ = ClientClock(i);
  c.request_ = Client::Request::kNone;
  scheduler_->SwitchTo(c.fiber_);
  Settle(i);
}

// Turns the request a client parked with into its status.
void World::Settle(int i) {
  Client& c = *clients_[i];
  ClientState& s = states_[i];
  switch (c.request_) {
    case Client::Request::kCommand:
    case Client::Request::kLeave:
      s.status = ClientStatus::kReady;
      s.ready_since = now_;
      break;
    case Client::Request::kSleep:
      s.status = ClientStatus::kSleeping;
      s.wake_at = now_ + c.sleep_ticks_;
      break;
    case Client::Request::kDone:
      s.status = ClientStatus::kDone;
      if (events_) events_->push_back(c.name() + " finishes");
      break;
    case Client::Request::kNone:
      throw std::logic_error("client " + c.name() +
                             " parked without a request");
  }
}

Millis World::MaxArgAge(int i) const {
  const Client& c = *clients_[i];
  if (c.request_ != Client::Request::kCommand) return 0;
  bool reads_clock = std::any_of(c.argv_.begin(), c.argv_.end(),
                                 [](const Value& v) { return v.is_clock(); });
  if (!reads_clock) return 0;
  Millis since = now_ - states_[i].ready_since;
  const auto& bound = config_.assumptions.max_arg_delay;
  return bound ? std::min(*bound, since) : since;
}

bool World::TickAllowed(std::string* why) const {
  if (now_ >= config_.horizon) {
    if (why) *why = "the clock is at the horizon (" +
                    std::to_string(config_.horizon) + ")";
    return false;
  }
  const Assumptions& a = config_.assumptions;
  for (int i = 0; i < client_count(); ++i) {
    const ClientState& s = states_[i];
    if (!s.holding || s.status == ClientStatus::kCrashed) continue;
    if (a.holders_release_in_time && ClientClock(i) + 1 > s.valid_until) {
      if (why) *why = names_[i] + " still holds the lock and must release "
                      "it before its clock passes " +
                      std::to_string(s.valid_until) +
                      " (holders_release_in_time)";
      return false;
    }
    if (a.max_hold_ticks && now_ + 1 > s.acquired_at + *a.max_hold_ticks) {
      if (why) *why = names_[i] + " still holds the lock, acquired at " +
                      std::to_string(s.acquired_at) + ", and max_hold_ticks is " +
                      std::to_string(*a.max_hold_ticks);
      return false;
    }
  }
  return true;
}

std::vector<Action> World::EnabledActions() const {
  std::vector<Action> out;
  for (int i = 0; i < client_count(); ++i) {
    if (states_[i].status != ClientStatus::kReady) continue;
    Millis max_age = MaxArgAge(i);
    for (Millis age = 0; age <= max_age; ++age) out.push_back(Action::Step(i, age));
  }
  if (TickAllowed(nullptr)) out.push_back(Action::Tick());
  if (crashes_used_ < config_.faults.crash) {
    for (int i = 0; i < client_count(); ++i) {
      auto st = states_[i].status;
      if (st == ClientStatus::kReady || st == ClientStatus::kSleeping) {
        out.push_back(Action::Crash(i));
      }
    }
  }
  return out;
}

bool World::IsEnabled(const Action& a, std::string* why) const {
  std::string ignored;
  if (!why) why = &ignored;
  if (a.kind == Action::Kind::kTick) return TickAllowed(why);
  if (a.client < 0 || a.client >= client_count()) {
    *why = "no such client";
    return false;
  }
  const ClientState& s = states_[a.client];
  const std::string& name = names_[a.client];
  if (a.kind == Action::Kind::kCrash) {
    if (crashes_used_ >= config_.faults.crash) {
      *why = "the crash budget (" + std::to_string(config_.faults.crash) +
             ") is used up";
      return false;
    }
    if (s.status == ClientStatus::kDone || s.status == ClientStatus::kCrashed) {
      *why = name + " is " + StatusName(s.status);
      return false;
    }
    return true;
  }
  if (s.status != ClientStatus::kReady) {
    *why = name + " cannot run: it is " + StatusName(s.status);
    if (s.status == ClientStatus::kSleeping) {
      *why += " until the clock reaches " + std::to_string(s.wake_at);
    }
    return false;
  }
  Millis max_age = MaxArgAge(a.client);
  if (a.age < 0 || a.age > max_age) {
    *why = name + "'s arguments can be at most " + std::to_string(max_age) +
           " ticks old here";
    return false;
  }
  return true;
}

std::vector<std::string> World::Evaluate(int i, Millis age) {
  Client& c = *clients_[i];
  std::vector<std::string> argv;
  argv.reserve(c.argv_.size());
  for (const Value& v : c.argv_) {
    if (v.is_clock()) {
      c.sent_timestamp_ = ClientClock(i) - age + v.offset();
      argv.push_back(std::to_string(c.sent_timestamp_));
    } else {
      argv.push_back(v.literal());
    }
  }
  return argv;
}

void World::NoteWrites(const std::vector<std::string>& argv, int writer) {
  const kv::CommandSpec* spec = kv::FindCommand(argv[0]);
  if (!spec || !kv::ArityOk(*spec, argv.size())) return;
  for (const std::string& key : kv::CommandKeys(*spec, argv)) {
    bool live = false;
    for (const kv::Entry& e : keyspace_.entries()) {
      if (e.key == key) live = !e.deadline || *e.deadline >= now_;
    }
    if (live) {
      writers_[key] = names_[writer];
    } else {
      writers_.erase(key);
    }
  }
}

void World::OnEnter(int i, Millis valid_until) {
  ClientState& s = states_[i];
  s.in_critical_section = true;
  s.holding = true;
  s.valid_until = valid_until;
  s.acquired_at = now_;
  if (events_) events_->push_back(names_[i] + " enters the critical section");
}

void World::OnForget(int i) { states_[i].holding = false; }

StepRecord World::Apply(const Action& a) {
  StepRecord r;
  r.index = ++step_count_;
  r.action = a;
  events_ = &r.events;
  switch (a.kind) {
    case Action::Kind::kTick: {
      r.actor = "clock";
      ++now_;
      keyspace_.PurgeExpired(now_);
      for (auto it = writers_.begin(); it != writers_.end();) {
        bool live = std::any_of(
            keyspace_.entries().begin(), keyspace_.entries().end(),
            [&](const kv::Entry& e) { return e.key == it->first; });
        it = live ? std::next(it) : writers_.erase(it);
      }
      for (int i = 0; i < client_count(); ++i) {
        if (states_[i].status == ClientStatus::kSleeping &&
            states_[i].wake_at <= now_) {
          r.events.push_back(names_[i] + " wakes");
          Resume(i);
        }
      }
      break;
    }
    case Action::Kind::kCrash: {
      r.actor = names_[a.client];
      ClientState& s = states_[a.client];
      s.status = ClientStatus::kCrashed;
      s.in_critical_section = false;
      ++crashes_used_;
      r.events.push_back(names_[a.client] + " crashes");
      break;
    }
    case Action::Kind::kStep: {
      const int i = a.client;
      Client& c = *clients_[i];
      r.actor = names_[i];
      ++states_[i].steps;
      if (c.request_ == Client::Request::kLeave) {
        states_[i].in_critical_section = false;
        r.events.push_back(names_[i] + " leaves the critical section");
      } else {
        r.command = Evaluate(i, a.age);
        kv::Effect effect;
        c.reply_ = keyspace_.Execute(r.command, now_, &effect);
        if (effect.wrote) NoteWrites(r.command, i);
        r.reply = c.reply_;
      }
      Resume(i);
      break;
    }
  }
  events_ = nullptr;
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
  r->global_time = now_;
  for (int i = 0; i < client_count(); ++i) {
    r->client_clocks.push_back(ClientClock(i));
    if (states_[i].in_critical_section) r->in_critical_section.push_back(names_[i]);
    if (states_[i].holding && states_[i].status != ClientStatus::kCrashed) {
      r->holding.push_back(names_[i]);
    }
  }
  r->keyspace = keyspace_.Live(now_);
  r->writers = writers_;
}

}  // namespace lockstep::world
