// Applying an action to a state (Model::Apply): a client's step, the
// clock's tick, waking a sleeper; the servers' faults are in
// server_faults.cc, ghost state in ghost_state.cc.
#include <algorithm>
#include <bit>

#include "sim/kv/command_table.h"
#include "sim/kv/int_parse.h"
#include "sim/world/ghost_state.h"
#include "sim/world/model.h"

namespace lockstep::world {

// Runs client i's local code on `input` and settles its new request.
void Model::Resume(WorldState& s, int i, const Input& input, StepEffects* effects) {
  ClientSlot& c = s.clients[i];
  const Transition& t = automata_[i]->Resume(c.local, input);
  if (effects) {
    for (const Reason& r : *t.reasons) effects->reasons.push_back({i, r});
  }
  for (const GhostEvent& g : *t.ghost) {
    if (g.kind == GhostEvent::Kind::kEnter) {
      s.step.entered = true;
      c.in_critical_section = true;
      c.holding = true;
      c.stalled = false;
      c.valid_until = g.valid_until;
      c.acquired_at = s.now;
      c.acquired_after = 0;
      c.superseded = false;
      c.superseded_by = -1;
      c.gave_up = false;
      NoteAcquisition(s, i);
      for (int j = 0; j < client_count(); ++j) {
        if (j != i && s.clients[j].holding) {
          s.clients[j].acquired_after |= static_cast<uint8_t>(1u << i);
        }
      }
      if (effects) effects->events.push_back(names_[i] + " enters the critical section");
    } else if (g.kind == GhostEvent::Kind::kRenew) {
      // Only the validity moves: the lock is the one it entered with. A
      // stall spent before the renewal does not outlive it.
      c.valid_until = g.valid_until;
      c.stalled = false;
      s.step.renewed = true;
      if (c.acquired_after != 0) {  // another acquired since: the lease was lost
        s.step.lost_renewer = i;
        s.step.lost_to = std::countr_zero(c.acquired_after);
      }
      if (effects) {
        effects->events.push_back(names_[i] + " renews its lease: valid until " +
                                  std::to_string(g.valid_until) + " on its clock");
      }
    } else if (g.kind == GhostEvent::Kind::kGiveUp) {
      c.gave_up = true;
      if (effects) effects->events.push_back(names_[i] + " gives up");
    } else {
      s.step.forgot = true;
      c.holding = false;
      c.stalled = false;
      c.valid_until = 0;
      c.acquired_at = 0;
      c.acquired_after = 0;
      c.superseded = false;
      c.superseded_by = -1;
    }
  }
  c.local = t.next;
  c.request = t.next_request;
  const Request& r = *c.request;
  switch (r.kind) {
    case Request::Kind::kCommand:
    case Request::Kind::kLeave:
    case Request::Kind::kResource:
    case Request::Kind::kDraw:
      c.status = ClientStatus::kReady;
      c.ready_since = s.now;
      break;
    case Request::Kind::kSleep:
      StartSleeping(c, r, s.now);
      c.ready_since = 0;
      break;
    case Request::Kind::kDone:
      c.ready_since = 0;
      if (!r.error.empty()) {
        c.status = ClientStatus::kFailed;  // `local` keeps what it threw
        if (effects) effects->events.push_back(names_[i] + "'s algorithm threw: " + r.error);
        break;
      }
      c.status = ClientStatus::kDone;
      c.local = 0;
      if (effects) effects->events.push_back(names_[i] + " finishes");
      break;
  }
}

void Model::Tick(WorldState& s, StepEffects* effects) {
  ++s.now;
  for (int k = 0; k < server_count(); ++k) {
    Settle(s, k);
    const ServerConfig& sc = config_.servers[k];
    if (sc.persistence == Persistence::kEverySec &&
        (s.now - config_.start_time) % sc.sync_every == 0) {
      Persist(s.servers[k]);
    }
    if (effects && s.servers[k].down_until == s.now && s.servers[k].role != ServerRole::kFailed &&
        config_.servers[k].restart_delay > 0) {
      effects->events.push_back(server_names_[k] + " is available again");
    }
  }
  for (int i = 0; i < client_count(); ++i) {
    const ClientSlot& c = s.clients[i];
    if (c.status == ClientStatus::kSleeping && c.wake_by <= s.now) Wake(s, i, effects);
  }
}

void Model::Wake(WorldState& s, int i, StepEffects* effects) {
  ClientSlot& c = s.clients[i];
  Input input{kv::Reply::Nil(), ClientClock(s, i), 0};
  if (c.timing_out) {
    input.reply = kv::Reply::Error(kTimeoutError);
    input.sent_timestamp = c.sent_timestamp;
    input.sent_clock = c.sent_clock;
    if (effects) effects->events.push_back(names_[i] + " times out");
  } else if (effects) {
    effects->events.push_back(names_[i] + " wakes");
  }
  c.wake_at = c.wake_by = 0;
  c.timing_out = false;
  c.sent_clock = false;
  c.sent_timestamp = 0;
  Resume(s, i, input, effects);
}

kv::Text Model::TimeText(Millis t) {
  auto& [time, text] = time_texts_[static_cast<uint64_t>(t) % time_texts_.size()];
  if (text.empty() || time != t) {  // a time's digits are never empty
    time = t;
    text = kv::Text(kv::FormatInt64(t));
  }
  return text;
}

void Model::Step(WorldState& s, const Action& a, StepEffects* effects) {
  const int i = a.client;
  ClientSlot& c = s.clients[i];
  const Request& r = *c.request;
  if (effects) effects->source = r.source;
  if (c.status == ClientStatus::kSleeping) {  // within its window (Client::SleepBetween)
    Wake(s, i, effects);
    return;
  }
  const Millis read_clock = ClientClock(s, i) - a.arg_age;
  Input input;
  input.clock = ClientClock(s, i);
  kv::Args& argv = argv_scratch_;
  kv::Args& stamps = stamps_scratch_;  // the time arguments, as sent
  stamps.clear();
  const kv::CommandSpec* spec = r.command;
  if (r.kind == Request::Kind::kLeave) {
    c.in_critical_section = false;
    if (effects) effects->events.push_back(names_[i] + " leaves the critical section");
    argv.clear();
    if (r.make) {
      for (const std::string& arg : r.make(read_clock)) argv.emplace_back(arg);
    }
    spec = argv.empty() ? nullptr : kv::FindRunnable(argv[0], argv.size());
  } else if (r.kind == Request::Kind::kDraw) {
    input.reply = kv::Reply::Integer(a.drawn.value_or(r.draw_least));
    if (effects)
      effects->events.push_back(names_[i] + " draws " + std::to_string(input.reply.integer));
    Resume(s, i, input, effects);
    return;
  } else if (r.kind == Request::Kind::kResource) {
    const bool accepted =
        !config_.resource.fenced || !s.resource_written || r.token > s.resource_max;
    if (accepted) {
      if (c.superseded) {
        s.step.stale_writer = i;
        s.step.stale_over = c.superseded_by;
        s.step.stale_token = r.token;
      }
      for (int j = 0; j < client_count(); ++j) {
        ClientSlot& other = s.clients[j];
        if (j != i && (other.acquired_after >> i & 1) && !other.superseded) {
          other.superseded = true;
          other.superseded_by = i;
        }
      }
      s.resource_written = true;
      if (config_.resource.fenced) s.resource_max = std::max(s.resource_max, r.token);
    }
    input.reply = kv::Reply::Integer(accepted ? 1 : 0);
    if (effects) {
      effects->command = {"WRITE", "resource", "token=" + std::to_string(r.token)};
      effects->reply = input.reply;
      effects->events.push_back(
          names_[i] + (accepted ? " writes the resource" : "'s write is refused by the resource"));
    }
    Resume(s, i, input, effects);
    return;
  } else {
    // A literal was kept when the request was made; only a time read from
    // the clock is kept here.
    argv.resize(r.argv.size());
    for (size_t k = 0; k < r.argv.size(); ++k) {
      const Value& v = r.argv[k];
      if (v.is_clock()) {
        input.sent_timestamp = read_clock + v.offset();
        input.sent_clock = true;
        argv[k] = TimeText(input.sent_timestamp);
      } else {
        argv[k] = v.literal();
      }
      if (v.is_time()) stamps.push_back(argv[k]);
    }
  }
  if (!argv.empty()) input.reply = Send(s, a, argv, spec, stamps, effects, &input.reply_is_time);
  if (effects) effects->command.assign(argv.begin(), argv.end());
  const Millis timeout = config_.clients[i].request_timeout;
  if (timeout > 0 && input.reply.type == kv::Reply::Type::kError &&
      input.reply.text == kTimeoutError) {
    // No reply: the client waits out its timeout before it learns so.
    c.status = ClientStatus::kSleeping;
    c.wake_at = c.wake_by = s.now + timeout;
    c.timing_out = true;
    c.sent_clock = input.sent_clock;
    c.sent_timestamp = input.sent_timestamp;
    c.ready_since = 0;
    return;
  }
  Resume(s, i, input, effects);
}

void Model::Apply(WorldState& s, const Action& a, StepEffects* effects) {
  s.step = StepGhost{};
  switch (a.kind) {
    case Action::Kind::kTick:
      Tick(s, effects);
      return;
    case Action::Kind::kStall: {
      ++s.used.stall;
      s.clients[a.client].stalled = true;
      if (effects) effects->events.push_back(names_[a.client] + " stalls past its bound");
      Tick(s, effects);
      return;
    }
    case Action::Kind::kJump: {
      ++s.used.jump;
      s.servers[a.server].jumped += a.jump_by;
      Settle(s, a.server);
      if (effects) {
        std::string whose = server_count() > 1 ? server_names_[a.server] + "'s" : "the server's";
        effects->events.push_back(whose + " clock jumps +" + std::to_string(a.jump_by) + " to " +
                                  std::to_string(ServerClock(s, a.server)));
      }
      return;
    }
    case Action::Kind::kRestart:
      Restart(s, a.server, effects);
      return;
    case Action::Kind::kReplicate:
      Replicate(s, a.server, effects);
      return;
    case Action::Kind::kFailover:
      Failover(s, a.server, effects);
      return;
    case Action::Kind::kCrash: {
      ClientSlot& c = s.clients[a.client];
      c.status = ClientStatus::kCrashed;
      c.in_critical_section = false;
      c.local = 0;
      c.ready_since = c.wake_at = c.wake_by = 0;
      ++s.used.crash;
      if (effects) effects->events.push_back(names_[a.client] + " crashes");
      return;
    }
    case Action::Kind::kLoseRequest:
    case Action::Kind::kLoseReply:
      ++s.used.lose;
      Step(s, a, effects);
      return;
    case Action::Kind::kStep:
      Step(s, a, effects);
      return;
  }
}

}  // namespace lockstep::world
