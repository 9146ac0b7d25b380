// The state as the fingerprint hashes it, written out whole (exact
// storage). Every datum Of hashes is here, in the same canonical order; a
// datum Of folds into one word with a hash (a client's history shape with
// its times, its wake times, the keys it wrote) is written out part by
// part. What Of leaves out (a clock past the bounds, a start past its
// age) is left out here too, so the two tell states apart alike: the
// differential harness compares searches with both.
#include <algorithm>
#include <cstdint>

#include "sim/check/property.h"
#include "sim/explore/fingerprint.h"
#include "sim/explore/packed_state.h"
#include "sim/explore/time_line.h"
#include "sim/kv/int_parse.h"
#include "sim/world/random_draw.h"

namespace lockstep::explore {

void Fingerprinter::Pack(const world::WorldState& s, const PathState* path, const Canonical& c,
                         PackedState* out) const {
  out->Clear();
  const int n = static_cast<int>(s.clients.size());
  const uint64_t seed = model_.config().seed;
  const TimeLine& times = c.times;
  auto time = [&](world::Millis t) { out->Signed(static_cast<int64_t>(times.Of(t))); };
  auto rename = [&](int client) {
    out->Signed(client >= 0 && client < n ? c.canonical_of[client] : client);
  };
  // A string that may be a client's token: renamed through `tokens`.
  auto text = [&](std::string_view t) {
    const bool token = c.rename_tokens && world::ParseToken(t, seed, n).has_value();
    out->Word(token);
    if (!token) out->Text(t);
  };
  auto entry = [&](const kv::Entry& e) {
    int64_t t = 0;
    const bool placed = relative_ && e.timestamp && kv::ParseInt64(e.value, &t);
    out->Word(placed);
    if (placed) {
      time(t);
    } else {
      text(e.value);
    }
    out->Word(static_cast<uint64_t>(e.kind));
    out->Word(e.items.size());
    for (const std::string& item : e.items) text(item);
    out->Word(e.deadline.has_value());
    if (e.deadline) time(*e.deadline);
  };
  auto keyspace = [&](const kv::Keyspace& ks) {
    out->Word(ks.size());
    for (const kv::Entry& e : ks.entries()) {
      out->Text(e.key);
      entry(e);
    }
  };

  if (c.absolute_clock) {
    out->Signed(s.now);
  } else {
    const bool near_zero = s.now <= near_zero_until_;
    out->Word(near_zero);
    if (near_zero) out->Signed(s.now);
    for (const world::ServerConfig& sc : model_.config().servers) {
      if (sc.persistence == world::Persistence::kEverySec) {
        out->Signed((s.now - model_.config().start_time) % sc.sync_every);
      }
    }
  }
  for (int used :
       {s.used.crash, s.used.stall, s.used.jump, s.used.restart, s.used.lose, s.used.failover}) {
    out->Word(static_cast<uint64_t>(used));
  }
  for (int server : s.serving) out->Word(static_cast<uint64_t>(server));
  for (const world::ServerState& sv : s.servers) {
    out->Signed(sv.jumped);
    out->Word(sv.down_until > s.now);
    if (sv.down_until > s.now) time(sv.down_until);
    out->Word(static_cast<uint64_t>(sv.role));
    keyspace(sv.keyspace);
    if (use_persisted_) keyspace(sv.persisted);
    out->Word(sv.backlog.size());
    for (const world::ReplicatedWrite& w : sv.backlog) {
      out->Word(w.keys.size());
      for (const auto& k : w.keys) {
        out->Text(k.key);
        out->Word(k.entry.has_value());
        if (k.entry) entry(*k.entry);
        if (use_writers_) {
          const world::ValueGhost g = k.ghost();
          rename(g.writer);
          rename(g.owner);
        }
      }
    }
    // Who wrote each key and whose acquisition it belongs to (Of keeps the
    // clients' in their own words, the others' apart).
    if (use_writers_) {
      const auto& entries = sv.keyspace.entries();
      out->Word(std::count_if(entries.begin(), entries.end(),
                              [](const kv::Entry& e) { return e.writer >= 0; }));
      for (const kv::Entry& e : entries) {
        if (e.writer < 0) continue;
        out->Text(e.key);
        rename(e.writer);
        rename(e.owner);
      }
    }
  }
  if (use_resource_) {
    out->Word(s.resource_written);
    out->Signed(s.resource_max);
  }
  const bool ready_since = use_ready_since_;
  for (int pos = 0; pos < n; ++pos) {
    const int i = c.at[pos];
    const world::ClientSlot& cl = s.clients[i];
    const world::ClientAutomaton& a = model_.automaton(i);
    if (!c.timed[i]) {
      out->Name(abstract_ ? a.AbstractOf(cl.local) : cl.local);
    } else {
      out->Name(c.timed[i]->shape);
      ForEachHeldTime(s, i, *c.timed[i], time);
    }
    out->Word(static_cast<uint64_t>(cl.status));
    out->Word(uint64_t{cl.in_critical_section} | uint64_t{cl.holding} << 1 |
              uint64_t{cl.stalled} << 2 | uint64_t{cl.timing_out} << 3 |
              uint64_t{cl.sent_clock} << 4 | (use_latest_ ? uint64_t{cl.superseded} << 5 : 0) |
              uint64_t{cl.gave_up} << 6);
    if (ready_since && cl.status == world::ClientStatus::kReady) time(cl.ready_since);
    if (cl.status == world::ClientStatus::kSleeping) {
      time(WakeFrom(cl, s.now));
      time(cl.wake_by);
      if (cl.timing_out && cl.sent_clock) time(cl.sent_timestamp);
    }
    if (cl.holding) time(cl.valid_until);
    if (cl.holding && use_acquired_at_) time(cl.acquired_at);
    if (use_latest_) {
      uint64_t mask = 0;
      for (int j = 0; j < n; ++j) {
        if (cl.acquired_after >> j & 1) mask |= uint64_t{1} << c.canonical_of[j];
      }
      out->Word(mask);
      rename(cl.superseded_by);
    }
  }
  for (const world::TokenId& t : c.tokens) {
    rename(t.client);
    out->Word(t.draw);
  }
  if (path) {
    out->Word(static_cast<uint64_t>(path->preempted));
    rename(path->last_client);
  }
}

}  // namespace lockstep::explore
