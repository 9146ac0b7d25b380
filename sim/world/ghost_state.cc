// Ghost state: who wrote each key's current value and whose acquisition it
// belongs to, kept in the key's entry for properties and traces, never read
// by the algorithms.
#include "sim/world/ghost_state.h"

#include <algorithm>

#include "sim/kv/command_table.h"

namespace lockstep::world {
namespace {

// The same value, whatever its deadline: rewriting it keeps its owner.
bool SameValue(const kv::Entry& a, const kv::Entry& b) {
  return a.kind == b.kind && a.value == b.value && a.items == b.items;
}

}  // namespace

ValueGhost Model::GhostOf(const ServerState& s, std::string_view key) {
  const auto& entries = s.keyspace.entries();
  auto it = kv::FindKey(entries, key);
  return it != entries.end() ? GhostIn(*it) : ValueGhost{};
}

namespace {

void SetGhostOn(kv::Entry& e, ValueGhost ghost) {
  e.writer = ghost.writer;
  e.owner = ghost.writer < 0 ? -1 : ghost.owner;
}

}  // namespace

void SetGhost(ServerState& s, std::string_view key, ValueGhost ghost) {
  auto& entries = s.keyspace.mutable_entries();
  auto it = kv::FindKey(entries, key);
  if (it != entries.end()) SetGhostOn(*it, ghost);
}

void Persist(ServerState& s) {
  s.persisted = s.keyspace;
  for (kv::Entry& e : s.persisted.mutable_entries()) e.writer = e.owner = -1;
}

void RestartFrom(ServerState& s, const kv::Keyspace& persisted) {
  kv::Keyspace before = std::move(s.keyspace);
  s.keyspace = persisted;
  for (const kv::Entry& e : before.entries()) {
    if (e.writer >= 0) SetGhost(s, e.key, GhostIn(e));
  }
}

void Model::NoteWrites(WorldState& s, int server, int actor, const kv::CommandSpec& spec,
                       const kv::Args& argv, const kv::Args& stamps,
                       std::span<const KeyBefore> before) {
  const Millis server_now = ServerClock(s, server);
  ServerState& sv = s.servers[server];
  const ClientSlot& c = s.clients[actor];
  const bool releasing = c.holding && !c.in_critical_section;
  auto& entries = sv.keyspace.mutable_entries();
  const kv::KeyPositions at = kv::CommandKeyPositions(spec, argv);
  for (size_t k = 0; k < at.count(); ++k) {
    const kv::Text key = argv[at.first + k * at.step];
    const auto found = kv::FindKey(entries, key);
    kv::Entry* now = found != entries.end() && !found->ExpiredAt(server_now) ? &*found : nullptr;
    const ValueGhost& was = before[k].ghost;
    if (!now && was.owner >= 0 && was.owner != actor && releasing && s.step.released_by < 0) {
      s.step.released_by = actor;
      s.step.released_of = was.owner;
      s.step.released_key = key;
    }
    if (now) {
      // Provenance travels with the entry: replication, persistence and
      // restarts copy it.
      kv::Entry& e = *now;
      // A time in a list, hash or sorted set is marked too: the
      // fingerprint then keeps the clock as it is (explore/fingerprint.cc).
      // A string's value is written whole; a collection keeps the items an
      // earlier command wrote, and so its mark (sound, if one outlives its
      // item).
      auto stamped = [&](std::string_view v) {
        return std::find(stamps.begin(), stamps.end(), v) != stamps.end();
      };
      const kv::Entry* was_entry = before[k].entry ? &*before[k].entry : nullptr;
      const bool kept_mark = was_entry && was_entry->kind == e.kind && was_entry->timestamp;
      e.timestamp = e.kind == kv::Entry::Kind::kString
                        ? stamped(e.value)
                        : kept_mark || std::any_of(e.items.begin(), e.items.end(), stamped);
      // A write that leaves the value as it was (PEXPIRE, PERSIST, SET ...
      // KEEPTTL of the same value, a script's write-back) keeps the value's
      // provenance whole: its writer too, or the client that extends another's
      // key before that one acquired would take the lock over in the ghost
      // state when it acquires itself.
      const bool kept = before[k].entry && SameValue(*before[k].entry, *now);
      SetGhostOn(e, kept ? was : ValueGhost{actor, -1});
    }
  }
}

void Model::NoteAcquisition(WorldState& s, int i) {
  for (ServerState& sv : s.servers) {
    for (kv::Entry& e : sv.keyspace.mutable_entries()) {
      if (e.writer == i) e.owner = i;
    }
    // A write not yet replicated carries its owner to the replica.
    for (ReplicatedWrite& w : sv.backlog) {
      for (ReplicatedWrite::Key& k : w.keys) {
        if (k.entry && k.entry->writer == i) k.entry->owner = i;
      }
    }
  }
}

}  // namespace lockstep::world
