#include "sim/explore/fingerprint.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "sim/base/hash.h"
#include "sim/base/limits.h"
#include "sim/check/property.h"
#include "sim/explore/packed_state.h"
#include "sim/explore/time_line.h"
#include "sim/kv/int_parse.h"
#include "sim/world/random_draw.h"

namespace lockstep::explore {
namespace {

constexpr int kClientWords = 7;
// Where, in a client's word 1 (its flags, in the low 31 bits), the mask of
// which of its other words are not 0 goes.
constexpr int kPresentShift = 48;
using base::kMaxClients;
using base::Mum;
using ClientWords = std::array<uint64_t, kClientWords>;

// Two 64-bit lanes fed two words at a time, one multiply per lane for each
// pair (as wyhash takes its input): half the chained multiplies of a word
// at a time. A word waits in `held` for its partner.
struct Mixer {
  uint64_t a = 0x5eed0001, b = 0x5eed0002;
  uint64_t held = 0;
  bool holding = false;
  [[gnu::always_inline]] void Feed(uint64_t v) {
    if (!holding) {
      held = v;
      holding = true;
      return;
    }
    holding = false;
    a = Mum(a ^ held ^ base::kWyP0, v ^ base::kWyP1);
    b = Mum(b ^ v ^ base::kWyP2, held ^ base::kWyP3);
  }
  Fingerprint Final() const {
    Mixer m = *this;
    if (m.holding) {  // an odd count of words: padded, and marked apart from an even one
      m.Feed(0);
      m.a = Mum(m.a ^ 0x1d8e4e27c47d124fULL, base::kWyP0);
    }
    return {base::Mix64(m.a), base::Mix64(m.b ^ m.a)};
  }
};

}  // namespace

Fingerprinter::Fingerprinter(const world::Model& model, bool symmetry, bool abstract,
                             uint32_t ghost)
    : model_(model), abstract_(abstract) {
  // Without a horizon, times are kept relative to the clock; that needs
  // client states named by what they observed since ForgetHistory, whose
  // times the automaton keeps apart.
  relative_ = !model.config().horizon && abstract;
  if (relative_) {
    window_ = TimeWindow(model.config());
    near_zero_until_ = LatestNearZero(model.config());
  }
  use_writers_ = ghost & check::Property::kWriters;
  use_latest_ = ghost & check::Property::kLatestAcquirer;
  const world::WorldConfig& c = model.config();
  // What a fenced resource accepted decides whether it refuses a later
  // write, so it is state whether or not a property reads it: without it,
  // states with different futures shared a fingerprint, and which one a
  // cached search expanded depended on the order it met them in.
  use_resource_ = (ghost & check::Property::kResource) || c.resource.fenced;
  // The time a request was made matters only when arguments may be old.
  // ... or when it bounds how long a client may wait for its step.
  use_ready_since_ = !c.assumptions.max_arg_delay || *c.assumptions.max_arg_delay > 0 ||
                     c.assumptions.max_ready_ticks.has_value();
  use_acquired_at_ = c.assumptions.max_hold_ticks.has_value();
  use_persisted_ = false;
  for (const world::ServerConfig& sc : c.servers) {
    use_persisted_ |= sc.persistence == world::Persistence::kEverySec && c.faults.restart > 0;
  }
  class_of_.assign(c.clients.size(), -1);
  if (!symmetry) return;
  classes_ = SymmetryClasses(c);
  for (size_t k = 0; k < classes_.size(); ++k) {
    for (int m : classes_[k]) class_of_[m] = static_cast<int>(k);
  }
}

std::vector<std::vector<int>> SymmetryClasses(const world::WorldConfig& c) {
  std::map<std::tuple<std::string, std::string, world::Millis>, std::vector<int>> groups;
  for (size_t i = 0; i < c.clients.size(); ++i) {
    const auto& cl = c.clients[i];
    if (cl.crashed) continue;  // crashed from the start: a lane, never a peer
    // Its random numbers (per client) can change what it does.
    if (cl.draws_numbers) continue;
    groups[{cl.algorithm, cl.settings, cl.skew}].push_back(static_cast<int>(i));
  }
  std::vector<std::vector<int>> classes;
  for (auto& [key, members] : groups) {
    if (members.size() >= 2) classes.push_back(members);
  }
  return classes;
}

namespace {

// Whether a time a client wrote is inside a list, hash or sorted set
// (ZADD's score, HSET's value), where the fingerprint does not place it on
// the clock's line: the state then keeps the clock as it is.
bool TimesInItems(const world::WorldState& s) {
  auto in_items = [](const kv::Entry& e) {
    return e.kind != kv::Entry::Kind::kString && e.timestamp;
  };
  for (const world::ServerState& sv : s.servers) {
    for (const kv::Entry& e : sv.keyspace.entries()) {
      if (in_items(e)) return true;
    }
    for (const kv::Entry& e : sv.persisted.entries()) {
      if (in_items(e)) return true;
    }
    for (const world::ReplicatedWrite& w : sv.backlog) {
      for (const auto& k : w.keys) {
        if (k.entry && in_items(*k.entry)) return true;
      }
    }
  }
  return false;
}

}  // namespace

Fingerprint Fingerprinter::Of(const world::WorldState& s, const PathState* path,
                              std::vector<int>* canonical, PackedState* packed) const {
  const int n = static_cast<int>(s.clients.size());
  // The times the words below hold, gathered first when they are kept
  // relative to the clock.
  TimeLine times(relative_, s.now, window_);
  const bool ready_since = use_ready_since_;
  std::array<const world::ClientAutomaton::History*, kMaxClients> timed;
  for (int i = 0; i < n; ++i) timed[i] = TimedHistory(i, s.clients[i].local);
  if (relative_) {
    for (int i = 0; i < n; ++i) {
      const world::ClientSlot& c = s.clients[i];
      if (ready_since && c.status == world::ClientStatus::kReady) times.Add(c.ready_since);
      if (c.status == world::ClientStatus::kSleeping) {
        times.Add(WakeFrom(c, s.now));
        times.Add(c.wake_by);
        if (c.timing_out && c.sent_clock) times.Add(c.sent_timestamp);
      }
      if (c.holding) times.Add(c.valid_until);
      if (c.holding && use_acquired_at_) times.Add(c.acquired_at);
      if (timed[i]) ForEachHeldTime(s, i, *timed[i], [&](world::Millis t) { times.Add(t); });
    }
    auto add_entry = [&](const kv::Entry& e) {
      if (e.deadline) times.Add(*e.deadline);
      int64_t t = 0;
      if (e.timestamp && kv::ParseInt64(e.value, &t)) times.Add(t);
    };
    for (const world::ServerState& sv : s.servers) {
      if (sv.down_until > s.now) times.Add(sv.down_until);
      for (const kv::Entry& e : sv.keyspace.entries()) add_entry(e);
      if (use_persisted_) {
        for (const kv::Entry& e : sv.persisted.entries()) add_entry(e);
      }
      for (const world::ReplicatedWrite& w : sv.backlog) {
        for (const auto& k : w.keys) {
          if (k.entry) add_entry(*k.entry);
        }
      }
    }
  }
  times.Compress();
  // A client's state: with relative times, or a start past its bound, its
  // history's shape and the times it holds, placed.
  // (timed[i] is the history of s.clients[i].local, the state named.)
  auto local_word = [&](int i) -> uint64_t {
    const world::LocalState local = s.clients[i].local;
    // With a horizon too, a start older than its bound is alike: the
    // shape and the times held name what the abstract history does.
    if (!timed[i]) return abstract_ ? model_.automaton(i).AbstractOf(local) : local;
    uint64_t h = timed[i]->shape;
    ForEachHeldTime(s, i, *timed[i],
                    [&](world::Millis t) { h = base::HashCombine(h, times.Of(t)); });
    return h;
  };
  // With symmetry, and when no client reads tokens, a client's random
  // token is renamed with the client: it is kept as (client, draw) in
  // `tokens`, in the order met, and hashed through the permutation below.
  // A token inside a longer string or a key is not renamed, and the state
  // is then hashed as it is (`unrenamable`): sound, not reduced.
  const bool rename_tokens = !classes_.empty() && model_.tokens_renamable();
  const uint64_t seed = model_.config().seed;
  bool unrenamable = false;
  thread_local std::vector<world::TokenId> tokens;
  tokens.clear();
  // A string in the state: a token by its place in `tokens`. A kept text
  // brings its hash; a list's item is hashed here.
  auto token_word = [&](std::string_view text) -> std::optional<uint64_t> {
    if (rename_tokens) {
      if (std::optional<world::TokenId> t = world::ParseToken(text, seed, n)) {
        tokens.push_back(*t);
        return 0x746f6b656eULL;
      }
      unrenamable |= world::ContainsTokenInside(text, seed, n);
    }
    return std::nullopt;
  };
  auto text_word = [&](uint64_t tag, const std::string& text) -> uint64_t {
    return token_word(text).value_or(base::HashText(tag, text));
  };
  auto kept_word = [&](uint64_t tag, kv::Text text) -> uint64_t {
    return token_word(text).value_or(base::HashCombine(tag, text.hash()));
  };
  // A key: one that holds a token is not renamed (the keyspace's order
  // follows the keys' bytes).
  auto key_word = [&](uint64_t tag, kv::Text key) -> uint64_t {
    if (rename_tokens) unrenamable |= world::HoldsToken(key, seed, n);
    return base::HashCombine(tag, key.hash());
  };
  // A stored value: a timestamp by where it is.
  auto value_word = [&](const kv::Entry& e) -> uint64_t {
    int64_t t = 0;
    if (relative_ && e.timestamp && kv::ParseInt64(e.value, &t)) {
      return base::HashCombine(0x74696d65ULL, times.Of(t));
    }
    return kept_word(2, e.value);
  };
  // Each client's own words: nothing in them names another client, so
  // sorting them gives a permutation of the clients that is a true symmetry.
  std::array<ClientWords, kMaxClients> words;
  for (int i = 0; i < n; ++i) {
    const world::ClientSlot& c = s.clients[i];
    ClientWords& w = words[i];
    w[0] = local_word(i);
    w[1] = static_cast<uint64_t>(c.status) | (uint64_t{c.in_critical_section} << 8) |
           (uint64_t{c.holding} << 9) | (uint64_t{c.stalled} << 10) | (uint64_t{c.gave_up} << 12) |
           (uint64_t{c.timing_out} << 30) | (uint64_t{c.sent_clock} << 31) |
           (use_latest_ ? uint64_t{c.superseded} << 11 : 0);
    w[2] = ready_since && c.status == world::ClientStatus::kReady ? times.Of(c.ready_since) : 0;
    w[3] = c.status == world::ClientStatus::kSleeping
               ? base::HashCombine(times.Of(WakeFrom(c, s.now)), times.Of(c.wake_by)) ^
                     (c.timing_out && c.sent_clock ? times.Of(c.sent_timestamp) << 32 : 0)
               : 0;
    w[4] = c.holding ? times.Of(c.valid_until) : 0;
    w[5] = c.holding && use_acquired_at_ ? times.Of(c.acquired_at) : 0;
    w[6] = 0;  // the keys whose current value this client wrote or owns (order-free)
  }
  if (use_writers_) {
    for (size_t k = 0; k < s.servers.size(); ++k) {
      for (const kv::Entry& e : s.servers[k].keyspace.entries()) {
        if (e.writer < 0) continue;
        // The writer decides whom its acquisition makes the owner.
        if (e.writer < n) words[e.writer][6] += key_word(4 + k, e.key);
        if (e.owner >= 0 && e.owner < n) {
          words[e.owner][6] += key_word(4 + base::kMaxServers + k, e.key);
        }
      }
    }
  }
  std::array<int, kMaxClients> order;  // order[pos]: the client at that place
  for (int i = 0; i < n; ++i) order[i] = i;
  // Runs of places whose clients' own words are equal: which client of a
  // run comes first is decided below, by what names them.
  struct Run {
    std::array<int, kMaxClients> places;   // in the canonical order
    std::array<int, kMaxClients> clients;  // who may take them
    int size = 0;
  };
  std::array<Run, kMaxClients / 2> runs;  // no allocation: this is the search's hot path
  int run_count = 0;
  for (const auto& cls : classes_) {
    // Sort the members' slots by their words; ties keep index order.
    std::array<int, kMaxClients> members;
    std::copy(cls.begin(), cls.end(), members.begin());
    // Insertion sort: stable, and for a handful of clients it allocates
    // nothing and beats std::stable_sort, which did.
    for (size_t k = 1; k < cls.size(); ++k) {
      const int m = members[k];
      size_t j = k;
      for (; j > 0 && words[m] < words[members[j - 1]]; --j) members[j] = members[j - 1];
      members[j] = m;
    }
    for (size_t k = 0; k < cls.size(); ++k) order[cls[k]] = members[k];
    for (size_t k = 0, e; k < cls.size(); k = e) {
      for (e = k + 1; e < cls.size() && words[members[e]] == words[members[k]];) ++e;
      if (e - k < 2) continue;
      Run& run = runs[run_count++];
      run.size = 0;
      for (size_t t = k; t < e; ++t, ++run.size) {
        run.places[run.size] = cls[t];
        run.clients[run.size] = members[t];  // increasing: the first order
      }
    }
  }

  Mixer prefix;
  const bool absolute_clock = !relative_ || TimesInItems(s);
  if (absolute_clock) {
    prefix.Feed(static_cast<uint64_t>(s.now));
  } else {
    // The clock itself while a deadline may fall at or before time 0.
    if (s.now <= near_zero_until_) prefix.Feed(static_cast<uint64_t>(s.now) + 1);
    // Only where the clock stands in the servers' sync period is left of it.
    for (const world::ServerConfig& sc : model_.config().servers) {
      if (sc.persistence == world::Persistence::kEverySec) {
        prefix.Feed(static_cast<uint64_t>((s.now - model_.config().start_time) % sc.sync_every));
      }
    }
  }
  prefix.Feed(
      static_cast<uint64_t>(s.used.crash) | static_cast<uint64_t>(s.used.stall) << 10 |
      static_cast<uint64_t>(s.used.jump) << 20 | static_cast<uint64_t>(s.used.restart) << 30 |
      static_cast<uint64_t>(s.used.lose) << 40 | static_cast<uint64_t>(s.used.failover) << 50);
  // A list's, hash's or sorted set's items. A sorted set orders members of
  // equal scores by their bytes, which a renamed token would not keep: one
  // that holds a token is not renamed, like a key.
  auto feed_items = [&](const kv::Entry& e) {
    for (size_t i = 0; i < e.items.size(); ++i) {
      if (rename_tokens && e.kind == kv::Entry::Kind::kZset && i % 2 == 0) {
        unrenamable |= world::HoldsToken(e.items[i], seed, n);
      }
      prefix.Feed(text_word(3, e.items[i]));
    }
  };
  auto feed_keyspace = [&](const kv::Keyspace& ks) {
    prefix.Feed(ks.size());
    for (const kv::Entry& e : ks.entries()) {
      prefix.Feed(key_word(1, e.key));
      prefix.Feed(value_word(e));
      prefix.Feed(static_cast<uint64_t>(e.kind));
      feed_items(e);
      prefix.Feed(e.deadline ? times.Of(*e.deadline) : 0x8000000000000000ULL);
    }
  };
  bool names_clients = path != nullptr;  // some datum names a client
  for (int server : s.serving) prefix.Feed(static_cast<uint64_t>(server));
  for (const world::ServerState& sv : s.servers) {
    prefix.Feed(static_cast<uint64_t>(sv.jumped));
    prefix.Feed(sv.down_until > s.now ? times.Of(sv.down_until) : 0);
    prefix.Feed(static_cast<uint64_t>(sv.role));
    feed_keyspace(sv.keyspace);
    if (use_persisted_) feed_keyspace(sv.persisted);
    prefix.Feed(sv.backlog.size());
    for (const world::ReplicatedWrite& w : sv.backlog) {
      prefix.Feed(w.keys.size());
      for (const auto& k : w.keys) {
        prefix.Feed(key_word(5, k.key));
        if (k.entry) {
          prefix.Feed(value_word(*k.entry));
          prefix.Feed(static_cast<uint64_t>(k.entry->kind));
          feed_items(*k.entry);
          prefix.Feed(k.entry->deadline ? times.Of(*k.entry->deadline) : 0x8000000000000000ULL);
        } else {
          prefix.Feed(0x7fffffffffffffffULL);
        }
        const world::ValueGhost g = k.ghost();
        names_clients |=
            use_writers_ && ((g.writer >= 0 && g.writer < n) || (g.owner >= 0 && g.owner < n));
      }
    }
    // Ghost state that properties read: writers and owners that are not
    // clients (theirs are in the client words).
    if (use_writers_) {
      for (const kv::Entry& e : sv.keyspace.entries()) {
        if (e.writer >= n || e.owner >= n) {
          prefix.Feed(key_word(4, e.key));
          prefix.Feed(static_cast<uint64_t>(e.writer >= n ? e.writer : -1));
          prefix.Feed(static_cast<uint64_t>(e.owner >= n ? e.owner : -1));
        }
      }
    }
  }
  if (use_resource_) {
    prefix.Feed(uint64_t{s.resource_written} | static_cast<uint64_t>(s.resource_max) << 1);
  }
  if (use_latest_) {
    for (int i = 0; i < n; ++i) {
      names_clients |= s.clients[i].acquired_after != 0 || s.clients[i].superseded_by >= 0;
    }
  }
  names_clients |= !tokens.empty();
  if (unrenamable) {
    // Hashed as it is, and apart from every canonical form.
    for (int i = 0; i < n; ++i) order[i] = i;
    run_count = 0;
    prefix.Feed(0x756e72656e616d65ULL);
  }

  // The fingerprint of the state with its clients at the places `order`
  // gives: every datum that names a client goes through this one renaming,
  // a client index becoming its place.
  auto finish = [&](const std::array<int, kMaxClients>& at,
                    std::array<int, kMaxClients>& canonical_of) {
    for (int pos = 0; pos < n; ++pos) canonical_of[at[pos]] = pos;
    auto rename = [&](int client) -> uint64_t {
      return static_cast<uint64_t>(client >= 0 && client < n ? canonical_of[client] : client) + 1;
    };
    Mixer m = prefix;
    for (int pos = 0; pos < n; ++pos) {
      const int i = at[pos];
      // A client's words, the ones that are 0 left out (most are, in most
      // states) and told apart by which they are.
      const ClientWords& w = words[i];
      uint64_t present = 0;
      for (int k = 2; k < kClientWords; ++k) present |= uint64_t{w[k] != 0} << k;
      m.Feed(w[0]);
      m.Feed(w[1] | present << kPresentShift);
      for (int k = 2; k < kClientWords; ++k) {
        if (w[k] != 0) m.Feed(w[k]);
      }
      if (use_latest_) {
        uint64_t mask = 0;
        for (int j = 0; j < n; ++j) {
          if (s.clients[i].acquired_after >> j & 1) mask |= uint64_t{1} << canonical_of[j];
        }
        m.Feed(mask);
        m.Feed(rename(s.clients[i].superseded_by));
      }
    }
    if (use_writers_) {
      for (const world::ServerState& sv : s.servers) {
        for (const world::ReplicatedWrite& w : sv.backlog) {
          for (const auto& k : w.keys) {
            const world::ValueGhost g = k.ghost();
            m.Feed(rename(g.writer));
            m.Feed(rename(g.owner));
          }
        }
      }
    }
    for (const world::TokenId& t : tokens) {
      m.Feed(rename(t.client));
      m.Feed(t.draw);
    }
    if (path) {
      m.Feed(static_cast<uint64_t>(path->preempted));
      m.Feed(rename(path->last_client));
    }
    return m.Final();
  };

  std::array<int, kMaxClients> canonical_of{};
  std::array<int, kMaxClients> best_at = order;
  Fingerprint best = finish(order, canonical_of);
  if (names_clients && run_count > 0) {
    // Clients alike in their own data but named differently by others: the
    // least fingerprint over the orders of each run makes the form exact
    // (two states share it iff one is a permutation of the other). Runs
    // are short; past 720 orders the first is kept (sound, less reduced).
    size_t orders = 1;
    for (int r = 0; r < run_count; ++r) {
      for (int f = 2; f <= runs[r].size; ++f) orders *= static_cast<size_t>(f);
    }
    if (orders <= 720) {
      std::array<int, kMaxClients> at = order, scratch{};
      for (;;) {
        // The next combination of the runs' orders, as an odometer.
        int r = 0;
        while (r < run_count && !std::next_permutation(runs[r].clients.begin(),
                                                       runs[r].clients.begin() + runs[r].size)) {
          ++r;
        }
        if (r == run_count) break;
        for (int q = 0; q < run_count; ++q) {
          for (int u = 0; u < runs[q].size; ++u) at[runs[q].places[u]] = runs[q].clients[u];
        }
        const Fingerprint f = finish(at, scratch);
        if (std::tie(f.a, f.b) < std::tie(best.a, best.b)) {
          best = f;
          best_at = at;
        }
      }
      finish(best_at, canonical_of);
    }
  }
  if (canonical) canonical->assign(canonical_of.begin(), canonical_of.begin() + n);
  if (packed) {
    Pack(s, path,
         {times, tokens, best_at.data(), canonical_of.data(), timed.data(), rename_tokens,
          absolute_clock},
         packed);
  }
  return best;
}

}  // namespace lockstep::explore
