#include "sim/trace/diagram_servers.h"

#include <cctype>

namespace lockstep::trace {

std::string FaultLabel(const std::string& action, const std::string& client) {
  std::string s = action;
  if (!client.empty() && s.size() > client.size() + 1 &&
      s.compare(s.size() - client.size() - 1, std::string::npos, " " + client) == 0) {
    s.resize(s.size() - client.size() - 1);
  }
  size_t end = s.find(' ');
  for (size_t i = 0; i < s.size() && i < end; ++i) {
    s[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
  }
  return s;
}

namespace {

const kv::Entry* FindKey(const std::vector<kv::Entry>& keyspace, const std::string& key) {
  for (const kv::Entry& e : keyspace) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

std::string KeyFate(const ServerCell& before, const ServerCell& after, const std::string& key) {
  if (!before.entry) return "";
  if (!after.entry) return key + " lost";
  return after.entry->value == before.entry->value ? key + " kept" : key + " changed";
}

}  // namespace

// cells[i][k]: server k after step i. One server's clock is the global
// clock moved by its jumps (a one-server record does not carry it).
std::vector<std::vector<ServerCell>> ServerCells(const Trace& t, const std::string& key) {
  std::vector<std::vector<ServerCell>> cells;
  world::Millis jumped = 0;
  for (const world::StepRecord& r : t.steps) {
    std::vector<ServerCell> row;
    if (t.server_names.empty()) {
      if (r.index > 0 && r.action.kind == world::Action::Kind::kJump) jumped += r.action.jump_by;
      ServerCell c;
      c.clock = r.global_time + jumped;
      if (const kv::Entry* e = FindKey(r.keyspace, key)) c.entry = *e;
      auto w = r.writers.find(key);
      if (c.entry && w != r.writers.end()) c.writer = w->second;
      row.push_back(std::move(c));
    } else {
      for (const world::ServerRecord& sv : r.servers) {
        ServerCell c;
        c.role = sv.role;
        c.available = sv.available && sv.role != "failed";
        c.clock = sv.clock;
        if (const kv::Entry* e = FindKey(sv.keyspace, key)) c.entry = *e;
        auto w = sv.writers.find(key);
        if (c.entry && w != sv.writers.end()) c.writer = w->second;
        row.push_back(std::move(c));
      }
    }
    cells.push_back(std::move(row));
  }
  return cells;
}

// What a server's fault did to the lock key.
// The boxes a server action of step i draws in the servers' columns.
std::vector<ServerEvent> ServerEventsOf(const Trace& t,
                                        const std::vector<std::vector<ServerCell>>& cells, int i,
                                        const std::string& key) {
  using K = world::Action::Kind;
  const world::StepRecord& r = t.steps[static_cast<size_t>(i)];
  const auto& before = cells[static_cast<size_t>(i - 1)];
  const auto& after = cells[static_cast<size_t>(i)];
  const size_t k = t.server_names.empty() ? 0 : static_cast<size_t>(r.action.server);
  std::vector<ServerEvent> events;
  ServerEvent e;
  e.step = r.index;
  e.column = static_cast<int>(k);
  if (r.action.kind == K::kJump) {
    e.label = "JUMP +" + std::to_string(r.action.jump_by);
    e.note = "clock " + std::to_string(before[k].clock) + " -> " + std::to_string(after[k].clock);
    if (before[k].entry && !after[k].entry) e.note += ", " + key + " expired";
  } else if (r.action.kind == K::kRestart) {
    e.label = "RESTART";
    e.note = KeyFate(before[k], after[k], key);
  } else if (r.action.kind == K::kFailover) {
    e.label = "FAILOVER";
    for (size_t j = 0; j < after.size(); ++j) {
      if (before[j].role == "replica" && after[j].role == "master") {
        e.note = KeyFate(before[k], after[j], key);  // what the promoted replica kept
      }
    }
  } else if (r.action.kind == K::kReplicate) {
    e.label = "REPLICATE";
    e.fault = false;
    for (size_t j = 0; j < after.size(); ++j) {
      if (j != k && after[j].role == "replica" &&
          (before[j].entry != after[j].entry || e.note.empty())) {
        e.note = "to " + t.server_names[j];
      }
    }
  } else {
    e.label = FaultLabel(world::FormatAction(r.action, {}, t.server_names), "");
  }
  events.push_back(std::move(e));
  for (size_t j = 0; j < after.size(); ++j) {
    if (j != k && before[j].role == "replica" && after[j].role == "master") {
      ServerEvent p;
      p.step = r.index;
      p.column = static_cast<int>(j);
      p.label = "PROMOTED";
      p.note = "now master";
      events.push_back(std::move(p));
    }
  }
  return events;
}

std::vector<std::vector<ServerEvent>> ServerEvents(const Trace& t) {
  const std::string lock_key = LockKeyOf(t);
  const auto cells = ServerCells(t, lock_key);
  std::vector<std::vector<ServerEvent>> events(t.steps.size());
  for (size_t i = 1; i < t.steps.size(); ++i) {
    const world::StepRecord& r = t.steps[i];
    if (r.action.client < 0 && r.action.kind != world::Action::Kind::kTick) {
      events[i] = ServerEventsOf(t, cells, static_cast<int>(i), lock_key);
    }
  }
  return events;
}

std::string LockKeyOf(const Trace& t) {
  std::string key;  // the scenario's "lock"/"key"
  if (t.scenario.is_object() && t.scenario.contains("lock")) {
    const auto& lock = t.scenario["lock"];
    if (lock.is_object() && lock.contains("key") && lock["key"].is_string()) {
      key = lock["key"].get<std::string>();
    }
  }
  // A library that names its key after the setting (redis-semaphore's
  // "mutex:" prefix) never holds the key itself: show the one it holds.
  std::string first_held;
  for (const auto& r : t.steps) {
    for (const auto& e : r.keyspace) {
      if (!key.empty() && e.key == key) return key;
      if (first_held.empty()) first_held = e.key;
    }
  }
  return first_held.empty() ? key : first_held;
}

}  // namespace lockstep::trace
