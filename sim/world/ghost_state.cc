// Ghost state: who wrote each key's current value and whose acquisition it
// belongs to, kept beside the keyspace for properties and traces, never read
// by the algorithms.
#include "sim/world/ghost_state.h"

#include <algorithm>

#include "sim/kv/command_table.h"

namespace lockstep::world {
namespace {

auto Find(const ValueGhosts& g, const std::string& key) {
  return std::lower_bound(g.begin(), g.end(), key,
                          [](const auto& e, const std::string& k) { return e.first < k; });
}

// The same value, whatever its deadline: rewriting it keeps its owner.
bool SameValue(const kv::Entry& a, const kv::Entry& b) {
  return a.kind == b.kind && a.value == b.value && a.list == b.list;
}

}  // namespace

ValueGhost Model::GhostOf(const ServerState& s, const std::string& key) {
  // A lock's keys are few: a scan, where a size compare rejects most keys,
  // costs less than a binary search (as kv::FindKey).
  if (s.ghosts.size() <= 8) {
    for (const auto& [k, ghost] : s.ghosts) {
      if (k == key) return ghost;
    }
    return ValueGhost{};
  }
  auto it = Find(s.ghosts, key);
  return it != s.ghosts.end() && it->first == key ? it->second : ValueGhost{};
}

void SetGhost(ServerState& s, const std::string& key, ValueGhost ghost) {
  auto it = s.ghosts.begin() + (Find(s.ghosts, key) - s.ghosts.cbegin());
  if (it != s.ghosts.end() && it->first == key) {
    if (ghost.writer < 0) {
      s.ghosts.erase(it);
    } else {
      it->second = ghost;
    }
  } else if (ghost.writer >= 0) {
    s.ghosts.insert(it, {key, ghost});
  }
}

void ForgetGoneGhosts(ServerState& s, Millis server_now) {
  std::erase_if(s.ghosts, [&](const auto& g) { return !s.keyspace.Find(g.first, server_now); });
}

void Model::NoteWrites(WorldState& s, int server, int actor, const kv::CommandSpec& spec,
                       const std::vector<std::string>& argv, const std::vector<std::string>& stamps,
                       std::span<const KeyBefore> before) {
  const Millis server_now = ServerClock(s, server);
  ServerState& sv = s.servers[server];
  const ClientSlot& c = s.clients[actor];
  const bool releasing = c.holding && !c.in_critical_section;
  const kv::KeyPositions at = kv::CommandKeyPositions(spec, argv);
  for (size_t k = 0; k < at.count(); ++k) {
    const std::string& key = argv[at.first + k * at.step];
    const kv::Entry* now = sv.keyspace.Find(key, server_now);
    const ValueGhost& was = before[k].ghost;
    if (!now && was.owner >= 0 && was.owner != actor && releasing && s.step.released_by < 0) {
      s.step.released_by = actor;
      s.step.released_of = was.owner;
      s.step.released_key = key;
    }
    if (!now) {
      SetGhost(sv, key, {});
    } else {
      // Provenance travels with the entry: replication, persistence and
      // restarts copy it.
      auto& entries = sv.keyspace.mutable_entries();
      kv::Entry& e = *kv::FindKey(entries, key);
      e.timestamp = e.kind == kv::Entry::Kind::kString &&
                    std::find(stamps.begin(), stamps.end(), e.value) != stamps.end();
      // A write that leaves the value as it was (PEXPIRE, PERSIST, SET ...
      // KEEPTTL of the same value, a script's write-back) keeps the value's
      // provenance whole: its writer too, or the client that extends another's
      // key before that one acquired would take the lock over in the ghost
      // state when it acquires itself.
      const bool kept = before[k].entry && SameValue(*before[k].entry, *now);
      SetGhost(sv, key, kept ? was : ValueGhost{actor, -1});
    }
  }
}

void Model::NoteAcquisition(WorldState& s, int i) {
  for (ServerState& sv : s.servers) {
    for (auto& [key, g] : sv.ghosts) {
      if (g.writer == i) g.owner = i;
    }
    // A write not yet replicated carries its owner to the replica.
    for (ReplicatedWrite& w : sv.backlog) {
      for (ReplicatedWrite::Key& k : w.keys) {
        if (k.ghost.writer == i) k.ghost.owner = i;
      }
    }
  }
}

}  // namespace lockstep::world
