// The world around the clients: the servers, the clock, the initial
// keyspace, the assumptions and the fault budgets.
#include <regex>
#include <set>
#include <string>

#include "sim/base/limits.h"
#include "sim/kv/int_parse.h"
#include "sim/scenario/sections.h"
#include "sim/world/fault_kind.h"

namespace lockstep::scenario::internal {

namespace jr = lockstep::json;
using nlohmann::json;

using base::kMaxServers;

namespace {

world::ServerConfig ReadServer(const jr::ObjectReader& sv, bool named) {
  if (named) {
    sv.RejectUnknown({"name", "skew", "persistence", "sync_every", "restart_delay", "replica_of"});
  } else {
    sv.RejectUnknown({"skew", "persistence", "sync_every", "restart_delay"});
  }
  world::ServerConfig config;
  if (named) {
    config.name = sv.String("name");
    static const std::regex kServerName("[A-Za-z][A-Za-z0-9_-]{0,15}");
    if (!std::regex_match(config.name, kServerName)) {
      throw jr::JsonError(sv.PointerOf("name"),
                          "expected a server name of 1-16 letters, digits, '_' or '-' "
                          "starting with a letter, got " +
                              json(config.name).dump());
    }
  }
  config.skew = sv.OptInt("skew", -base::Limits::kMaxSpan, base::Limits::kMaxSpan).value_or(0);
  if (auto p = sv.OptString("persistence")) {
    if (*p == "always") {
      config.persistence = world::Persistence::kAlways;
    } else if (*p == "everysec") {
      config.persistence = world::Persistence::kEverySec;
    } else if (*p == "none") {
      config.persistence = world::Persistence::kNone;
    } else {
      throw jr::JsonError(sv.PointerOf("persistence"),
                          "expected one of always, everysec, none; got " + json(*p).dump());
    }
  }
  config.sync_every = sv.OptInt("sync_every", 1, base::Limits::kMaxSpan).value_or(1);
  config.restart_delay = sv.OptInt("restart_delay", 0, base::Limits::kMaxSpan).value_or(0);
  return config;
}

}  // namespace

// "server" or "servers", and which masters Redlock locks.
void ReadServers(const jr::ObjectReader& o, Scenario& s, algo::WorldFacts& facts) {
  if (o.Has("server") && o.Has("servers")) {
    throw jr::JsonError(
        o.PointerOf("servers"),
        "expected either \"server\" (one server) or \"servers\" (several), not both");
  }
  if (o.Has("server")) {
    s.world.servers = {ReadServer(o.Object("server"), false)};
  }
  if (o.Has("servers")) {
    const json& list = o.Array("servers");
    const std::string sptr = o.PointerOf("servers");
    if (list.empty() || list.size() > kMaxServers) {
      throw jr::JsonError(sptr, "expected 1 to " + std::to_string(kMaxServers) + " servers, got " +
                                    std::to_string(list.size()));
    }
    s.world.servers.clear();
    std::vector<std::string> replica_of(list.size());
    for (size_t k = 0; k < list.size(); ++k) {
      jr::ObjectReader sv(list[k], sptr + "/" + std::to_string(k));
      world::ServerConfig config = ReadServer(sv, true);
      for (const auto& other : s.world.servers) {
        if (other.name == config.name) {
          throw jr::JsonError(sv.PointerOf("name"),
                              "duplicate server name \"" + config.name + "\"");
        }
      }
      if (auto master = sv.OptString("replica_of")) {
        int m = -1;
        for (size_t j = 0; j < s.world.servers.size(); ++j) {
          if (s.world.servers[j].name == *master) m = static_cast<int>(j);
        }
        if (m < 0 || s.world.servers[m].replica_of >= 0) {
          throw jr::JsonError(sv.PointerOf("replica_of"),
                              "expected the name of a master listed before this server; got " +
                                  json(*master).dump());
        }
        for (const auto& other : s.world.servers) {
          if (other.replica_of == m) {
            throw jr::JsonError(
                sv.PointerOf("replica_of"),
                "\"" + *master + "\" already has a replica; a master has at most one");
          }
        }
        config.replica_of = m;
      }
      s.world.servers.push_back(config);
    }
  }
  int instances = 0;
  for (const auto& sv : s.world.servers) instances += sv.replica_of < 0 ? 1 : 0;
  if (instances == 0) {
    throw jr::JsonError(o.PointerOf("servers"), "expected at least one master");
  }
  facts.instances = instances;
  if (o.Has("lock") && o.Object("lock").Has("token_server")) {
    const jr::ObjectReader l = o.Object("lock");
    const std::string name = l.String("token_server");
    int instance = 0;
    facts.token_instance = -1;
    for (const auto& sv : s.world.servers) {
      if (sv.replica_of >= 0) continue;
      if (sv.name == name) facts.token_instance = instance;
      ++instance;
    }
    if (facts.token_instance < 0 || instances < 2) {
      throw jr::JsonError(l.PointerOf("token_server"),
                          "expected the name of a master, with at least one other master to lock; "
                          "got " +
                              json(name).dump());
    }
  }
}

// The clock first: it bounds the times read after it.
void ReadClock(const jr::ObjectReader& o, world::WorldConfig& w) {
  jr::ObjectReader clock = o.Object("clock");
  clock.RejectUnknown({"start", "horizon"});
  w.start_time = clock.OptInt("start", 0, base::Limits::kMaxTime).value_or(0);
  // null: all time (docs/design.md, "Time without a horizon").
  clock.Raw("horizon");  // required, if only as null
  w.horizon = clock.NullableInt("horizon", w.start_time, w.start_time + base::Limits::kMaxSpan);
}

void ReadKeyspace(const jr::ObjectReader& o, const std::set<std::string>& timestamp_lock_keys,
                  world::WorldConfig& w) {
  if (o.Has("keyspace")) {
    const json& ks = o.Array("keyspace");
    std::set<std::string> keys;
    for (size_t i = 0; i < ks.size(); ++i) {
      jr::ObjectReader e(ks[i], o.PointerOf("keyspace") + "/" + std::to_string(i));
      e.RejectUnknown({"key", "value", "deadline", "writer", "timestamp"});
      kv::Entry entry;
      entry.key = kv::Text(e.String("key"));
      if (!keys.insert(entry.key).second) {
        throw jr::JsonError(e.PointerOf("key"), "duplicate key " + json(entry.key).dump());
      }
      entry.value = kv::Text(e.String("value"));
      entry.deadline = e.NullableInt("deadline", 0, base::Limits::kMaxTime);
      if (auto writer = e.OptString("writer")) w.initial_writers[entry.key] = *writer;
      // A timestamp lock's integer value is a time; any other value is one
      // only if the scenario says so.
      int64_t number = 0;
      entry.timestamp = e.Bool("timestamp", timestamp_lock_keys.count(entry.key) > 0 &&
                                                kv::ParseInt64(entry.value, &number));
      if (entry.timestamp && !kv::ParseInt64(entry.value, &number)) {
        throw jr::JsonError(
            e.PointerOf("value"),
            "expected an integer: the entry is a timestamp; got " + json(entry.value).dump());
      }
      w.initial_keyspace.push_back(entry);
    }
  }
}

void ReadAssumptions(const jr::ObjectReader& o, world::WorldConfig& w) {
  if (o.Has("assumptions")) {
    jr::ObjectReader a = o.Object("assumptions");
    a.RejectUnknown(
        {"max_arg_delay", "holders_release_in_time", "max_hold_ticks", "max_ready_ticks"});
    if (a.Has("max_arg_delay")) {
      // null: unbounded
      w.assumptions.max_arg_delay = a.NullableInt("max_arg_delay", 0, base::Limits::kMaxSpan);
    }
    w.assumptions.holders_release_in_time = a.Bool("holders_release_in_time", false);
    w.assumptions.max_hold_ticks = a.NullableInt("max_hold_ticks", 0, base::Limits::kMaxSpan);
    w.assumptions.max_ready_ticks = a.NullableInt("max_ready_ticks", 0, base::Limits::kMaxSpan);
  }
}

void ReadFaults(const jr::ObjectReader& o, world::WorldConfig& w) {
  if (o.Has("faults")) {
    jr::ObjectReader f = o.Object("faults");
    std::vector<const char*> known;
    for (const world::FaultKind& k : world::kFaultKinds) known.push_back(k.name.data());
    known.insert(known.end(), {"jump_by", "stall_where"});
    f.RejectUnknown(known);
    if (auto where = f.OptString("stall_where")) {
      if (*where != "holding" && *where != "releasing") {
        throw jr::JsonError(f.PointerOf("stall_where"),
                            "expected \"holding\" or \"releasing\", got \"" + *where + "\"");
      }
      w.faults.stall_only_releasing = *where == "releasing";
    }
    for (const world::FaultKind& k : world::kFaultKinds) {
      w.faults.*k.count =
          static_cast<int>(f.OptInt(std::string(k.name), 0, k.max_budget).value_or(0));
    }
    if (f.Has("jump_by")) {
      const json& by = f.Array("jump_by");
      for (size_t i = 0; i < by.size(); ++i) {
        w.faults.jump_by.push_back(jr::ReadInt(
            by[i], f.PointerOf("jump_by") + "/" + std::to_string(i), 1, base::Limits::kMaxSpan));
      }
    }
    if (w.faults.jump > 0 && w.faults.jump_by.empty()) {
      throw jr::JsonError(f.pointer(), "\"jump\" faults need \"jump_by\": the sizes of the jumps");
    }
  }
}

}  // namespace lockstep::scenario::internal
