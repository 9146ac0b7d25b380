// Ghost state: who wrote each key's current value, kept beside the keyspace
// for properties and traces, never read by the algorithms.
#include "sim/world/ghost_state.h"

#include <algorithm>

#include "sim/kv/command_table.h"

namespace lockstep::world {

int Model::WriterOf(const ServerState& s, const std::string& key) {
  auto it = std::lower_bound(s.writers.begin(), s.writers.end(), key,
                             [](const auto& w, const std::string& k) { return w.first < k; });
  return it != s.writers.end() && it->first == key ? it->second : -1;
}

void SetWriter(ServerState& s, const std::string& key, int writer) {
  auto it = std::lower_bound(s.writers.begin(), s.writers.end(), key,
                             [](const auto& w, const std::string& k) { return w.first < k; });
  if (it != s.writers.end() && it->first == key) {
    if (writer < 0) {
      s.writers.erase(it);
    } else {
      it->second = writer;
    }
  } else if (writer >= 0) {
    s.writers.insert(it, {key, writer});
  }
}

void ForgetGoneWriters(ServerState& s, Millis server_now) {
  std::erase_if(s.writers, [&](const auto& w) { return !s.keyspace.Find(w.first, server_now); });
}

void Model::NoteWrites(WorldState& s, int server, int actor, const std::vector<std::string>& argv,
                       const std::vector<int>& writers_before) {
  const kv::CommandSpec* spec = kv::FindCommand(argv[0]);
  if (!spec || !kv::ArityOk(*spec, argv.size())) return;
  const Millis server_now = ServerClock(s, server);
  ServerState& sv = s.servers[server];
  const ClientSlot& c = s.clients[actor];
  const bool releasing = c.holding && !c.in_critical_section;
  std::vector<std::string> keys = kv::CommandKeys(*spec, argv);
  for (size_t k = 0; k < keys.size(); ++k) {
    const bool present = sv.keyspace.Find(keys[k], server_now) != nullptr;
    const int before = writers_before[k];
    if (!present && before >= 0 && before != actor && releasing && s.step.released_by < 0) {
      s.step.released_by = actor;
      s.step.released_of = before;
      s.step.released_key = keys[k];
    }
    SetWriter(sv, keys[k], present ? actor : -1);
  }
}

}  // namespace lockstep::world
