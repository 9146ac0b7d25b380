#include "sim/scenario/scenario.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <span>
#include <sstream>

#include <sys/stat.h>

#include "sim/algo/lua_algorithm.h"
#include "sim/base/hash.h"
#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/check/liveness.h"
#include "sim/check/property.h"
#include "sim/kv/int_parse.h"
#include "sim/scenario/process_algorithm.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/seed.h"
#include "sim/trace/trace.h"
#include "sim/world/fault_kind.h"

namespace lockstep::scenario {
namespace {

namespace jr = lockstep::json;
using nlohmann::json;

using base::kMaxClients;
using base::kMaxServers;

std::string AlgorithmNames() {
  std::string s;
  for (const auto& a : algo::Algorithms()) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

// What a "lock" object gives: the settings it names (checked against their
// declarations, algo::AllSettings()) and the world's request timeout.
struct LockFields {
  std::map<std::string, json> settings;  // name -> a valid value
  std::optional<world::Millis> request_timeout;
};

// The lock fields every client shares, or (`per_client`) one client's
// overrides of `shared`; the token server is the world's, so only the
// shared ones name it.
LockFields ReadLock(const jr::ObjectReader& o, LockFields fields, bool per_client) {
  const std::vector<algo::Setting> declared = algo::AllSettings();
  std::vector<const char*> known;
  for (const algo::Setting& d : declared) known.push_back(d.name.data());
  known.push_back("request_timeout");
  if (!per_client) known.push_back("token_server");
  o.RejectUnknown(known);
  for (const algo::Setting& d : declared) {
    const std::string name(d.name);
    if (!o.Has(name)) continue;
    switch (d.type) {
      case algo::SettingType::kInt:
        fields.settings[name] = *o.OptInt(name, d.min, d.max);
        break;
      case algo::SettingType::kBool:
        fields.settings[name] = o.Bool(name, false);
        break;
      case algo::SettingType::kString: {
        std::string text = *o.OptString(name);
        if (text.empty()) {
          throw jr::JsonError(o.PointerOf(name), "expected a non-empty " + name + " name");
        }
        fields.settings[name] = text;
        break;
      }
    }
  }
  if (auto v = o.OptInt("request_timeout", 0, base::Limits::kMaxSpan)) fields.request_timeout = *v;
  return fields;
}

// The settings `declared` with the values `fields` gives.
algo::Settings MakeSettings(std::span<const algo::Setting> declared, const LockFields& fields,
                            const algo::WorldFacts& world) {
  algo::Settings settings(declared);
  settings.world = world;
  for (const algo::Setting& d : declared) {
    auto given = fields.settings.find(std::string(d.name));
    if (given == fields.settings.end()) continue;
    if (d.type == algo::SettingType::kString) {
      settings.SetText(d.name, given->second.get<std::string>());
    } else if (d.type == algo::SettingType::kBool) {
      settings.SetNumber(d.name, given->second.get<bool>() ? 1 : 0);
    } else {
      settings.SetNumber(d.name, given->second.get<int64_t>());
    }
  }
  return settings;
}

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

Expectation ReadExpect(const jr::ObjectReader& o) {
  std::string text = o.String("expect");
  Expectation e;
  if (text == "safe") return e;
  const std::string prefix = "violation:";
  if (text.starts_with(prefix)) {
    e.safe = false;
    e.property = text.substr(prefix.size());
    if (check::IsProperty(e.property)) return e;
    if (std::string retired = check::RetiredProperty(e.property); !retired.empty()) {
      throw jr::JsonError(o.PointerOf("expect"), retired);
    }
  }
  std::string props;
  for (const auto& p : check::PropertyNames()) props += ", \"violation:" + p + "\"";
  throw jr::JsonError(o.PointerOf("expect"),
                      "expected \"safe\"" + props + "; got " + json(text).dump());
}

// A trace given where a scenario is expected: say so, and how to use it.
void RejectTrace(const jr::ObjectReader& o, const std::string& prefix) {
  if (prefix.empty() && o.Has("scenario") && o.Has("steps")) {
    if (!o.Has("format")) {
      throw jr::JsonError("",
                          "missing field \"format\": this is a trace (it has \"scenario\" and "
                          "\"steps\"), and a trace says \"format\": \"" +
                              trace::FormatName(trace::kFormatVersion) + "\"");
    }
    throw jr::JsonError("", "this is a trace, not a scenario; replay it with `lockstep replay`");
  }
}

// The lock fields all clients share, and the guarded resource, which
// makes them write it.
LockFields ReadSharedLock(const jr::ObjectReader& o, Scenario& s, algo::WorldFacts& world) {
  LockFields lock;
  if (o.Has("lock")) lock = ReadLock(o.Object("lock"), lock, false);
  if (o.Has("resource")) {
    jr::ObjectReader r = o.Object("resource");
    r.RejectUnknown({"fenced"});
    s.world.resource.enabled = true;
    s.world.resource.fenced = r.Bool("fenced", false);
    world.write_resource = true;
  }
  return lock;
}

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

// The settings a Lua algorithm reads as lock.settings: every setting some
// algorithm declares, the facts of the world, then the algorithm's own.
json LuaSettings(const LockFields& fields, const algo::WorldFacts& world) {
  const std::vector<algo::Setting> declared = algo::AllSettings();
  const algo::Settings values = MakeSettings(declared, fields, world);
  json j = json::object();
  for (const algo::Setting& d : declared) {
    const std::string name(d.name);
    switch (d.type) {
      case algo::SettingType::kInt:
        j[name] = values.Int(name);
        break;
      case algo::SettingType::kBool:
        j[name] = values.Bool(name);
        break;
      case algo::SettingType::kString:
        j[name] = values.String(name);
        break;
    }
  }
  j["write_resource"] = world.write_resource;
  j["instances"] = world.instances;
  j["request_timeout"] = fields.request_timeout.value_or(0);
  if (world.token_instance >= 0)
    j["token_instance"] = world.token_instance + 1;  // Lua counts from 1
  return j;
}

// A client's algorithm written in Lua: {"lua": FILE} (relative to the
// scenario's folder) or {"lua_inline": SOURCE}, with "settings" and
// "draws_numbers", "never_reads_tokens" and "relative_time". `written` is the client's algorithm in
// s.document: a file is put there inline (with "lua_file" naming it), so that a saved trace replays
// anywhere.
void ReadLuaAlgorithm(const jr::ObjectReader& a, const LockFields& mine,
                      const algo::WorldFacts& world, Scenario& s, world::ClientSetup& setup,
                      json& written) {
  a.RejectUnknown({"lua", "lua_inline", "lua_file", "settings", "draws_numbers",
                   "never_reads_tokens", "relative_time"});
  if (a.Has("lua") == a.Has("lua_inline")) {
    throw jr::JsonError(a.pointer(),
                        "expected a Lua algorithm as exactly one of \"lua\" (a file) and "
                        "\"lua_inline\" (its source)");
  }
  auto program = std::make_shared<algo::LuaProgram>();
  std::string shown;  // the file as the scenario names it
  if (a.Has("lua")) {
    shown = a.String("lua");
    std::filesystem::path path(shown);
    if (path.is_relative()) path = std::filesystem::path(s.file).parent_path() / path;
    try {
      program->source = ReadFile(path.string());
    } catch (const ScenarioError& e) {
      throw jr::JsonError(a.PointerOf("lua"), path.string() + ": " + e.expected);
    }
    program->name = path.string();
  } else {
    program->source = a.String("lua_inline");
    shown = a.OptString("lua_file").value_or("");
    program->name = shown.empty() ? s.file + "#" + a.PointerOf("lua_inline") : shown;
  }
  if (std::string error = algo::LuaSyntaxError(*program); !error.empty()) {
    throw jr::JsonError(a.PointerOf(a.Has("lua") ? "lua" : "lua_inline"),
                        "expected a Lua algorithm; " + error);
  }
  json settings = LuaSettings(mine, world);
  if (a.Has("settings")) {
    jr::ObjectReader(a.Raw("settings"), a.PointerOf("settings"));  // must be an object
    for (const auto& [key, value] : a.Raw("settings").items()) settings[key] = value;
  }
  const bool draws_numbers = a.Bool("draws_numbers", false);
  const bool never_reads_tokens = a.Bool("never_reads_tokens", false);
  program->relative_time = a.Bool("relative_time", false);
  setup.algorithm = "lua:" + (shown.empty() ? std::string("inline") : shown);
  setup.request_timeout = mine.request_timeout.value_or(0);
  setup.settings = setup.algorithm + " " + std::to_string(base::HashBytes(0, program->source)) +
                   " " + settings.dump();
  setup.draws_numbers = draws_numbers;
  setup.never_reads_tokens = never_reads_tokens;
  setup.relative_time = program->relative_time;
  setup.time_constants = algo::LuaTimeConstants(settings);
  setup.body = algo::MakeLuaBody(program, settings);
  if (a.Has("lua")) {
    json inline_form = {{"lua_inline", program->source}, {"lua_file", shown}};
    if (a.Has("settings")) inline_form["settings"] = a.Raw("settings");
    if (a.Has("draws_numbers")) inline_form["draws_numbers"] = draws_numbers;
    if (a.Has("never_reads_tokens")) inline_form["never_reads_tokens"] = never_reads_tokens;
    if (a.Has("relative_time")) inline_form["relative_time"] = program->relative_time;
    written = inline_form;
  }
}

// "a, b": the algorithms that declare the setting `name`.
std::string AlgorithmsDeclaring(const std::string& name) {
  std::string out;
  for (const algo::AlgorithmInfo& a : algo::Algorithms()) {
    for (const algo::Setting& d : a.settings) {
      if (d.name == name) out += (out.empty() ? "" : ", ") + std::string(a.name);
    }
  }
  return out;
}

// Warns of each setting of a client's "lock" that its algorithm `algorithm`
// does not declare: valid, but it changes nothing.
void WarnUnread(const jr::ObjectReader& lock, std::span<const algo::Setting> declared,
                const std::string& algorithm, std::vector<std::string>& warnings) {
  for (const algo::Setting& d : algo::AllSettings()) {
    const std::string name(d.name);
    if (!lock.Has(name)) continue;
    if (std::none_of(declared.begin(), declared.end(),
                     [&](const algo::Setting& m) { return m.name == d.name; })) {
      warnings.push_back("at " + lock.PointerOf(name) + ": " + algorithm +
                         " does not read this setting (" + AlgorithmsDeclaring(name) + " do)");
    }
  }
}

// The clients and their algorithms. Returns the keys that timestamp locks
// take over.
std::set<std::string> ReadClients(const jr::ObjectReader& o, const LockFields& lock,
                                  const algo::WorldFacts& world, Scenario& s) {
  world::WorldConfig& w = s.world;
  const json& clients = o.Array("clients");
  const std::string cptr = o.PointerOf("clients");
  if (clients.empty() || clients.size() > kMaxClients) {
    throw jr::JsonError(cptr, "expected 1 to " + std::to_string(kMaxClients) + " clients, got " +
                                  std::to_string(clients.size()));
  }
  static const std::regex kName("[A-Za-z][A-Za-z0-9_-]{0,15}");
  std::set<std::string> seen;
  std::set<std::string> read;                 // the settings some client's algorithm reads
  bool lua = false;                           // a Lua algorithm reads them all
  std::set<std::string> timestamp_lock_keys;  // the keys timestamp locks take over
  for (size_t i = 0; i < clients.size(); ++i) {
    jr::ObjectReader c(clients[i], cptr + "/" + std::to_string(i));
    c.RejectUnknown({"name", "algorithm", "skew", "crashed", "lock", "may_never_enter"});
    world::ClientSetup setup;
    setup.name = c.String("name");
    if (!std::regex_match(setup.name, kName)) {
      throw jr::JsonError(c.PointerOf("name"),
                          "expected a client name of 1-16 letters, digits, '_' or '-' "
                          "starting with a letter, got " +
                              json(setup.name).dump());
    }
    if (!seen.insert(setup.name).second) {
      throw jr::JsonError(c.PointerOf("name"), "duplicate client name \"" + setup.name + "\"");
    }
    if (setup.name == "clock" || setup.name == "start" || setup.name == "tick" ||
        setup.name == "crash") {
      throw jr::JsonError(c.PointerOf("name"), "\"" + setup.name + "\" is reserved");
    }
    setup.crashed = c.Bool("crashed", false);
    setup.skew = c.OptInt("skew", -base::Limits::kMaxSpan, base::Limits::kMaxSpan).value_or(0);
    if (c.Has("algorithm") && c.Raw("algorithm").is_object()) {
      LockFields mine = lock;
      if (c.Has("lock")) mine = ReadLock(c.Object("lock"), mine, true);
      lua = true;
      if (c.Object("algorithm").Has("process")) {
        ReadProcessAlgorithm(c.Object("algorithm"), LuaSettings(mine, world),
                             mine.request_timeout.value_or(0), s.file, setup,
                             s.document["clients"][i]["algorithm"]);
      } else {
        ReadLuaAlgorithm(c.Object("algorithm"), mine, world, s, setup,
                         s.document["clients"][i]["algorithm"]);
      }
    } else if (!setup.crashed || c.Has("algorithm")) {
      std::string name = c.String("algorithm");
      const algo::AlgorithmInfo* info = algo::FindAlgorithm(name);
      if (!info) {
        throw jr::JsonError(c.PointerOf("algorithm"),
                            "expected one of " + AlgorithmNames() + "; got " + json(name).dump());
      }
      LockFields mine = lock;
      if (c.Has("lock")) mine = ReadLock(c.Object("lock"), mine, true);
      if (info->needs_token_server && world.token_instance < 0) {
        throw jr::JsonError(c.PointerOf("algorithm"),
                            name +
                                " draws its fencing tokens from a server that is not "
                                "one of Redlock's instances: expected lock.token_server naming a "
                                "master");
      }
      const algo::Settings settings = MakeSettings(info->settings, mine, world);
      for (const algo::Setting& d : info->settings) read.insert(std::string(d.name));
      if (c.Has("lock")) WarnUnread(c.Object("lock"), info->settings, name, s.warnings);
      if (info->timestamp_lock && settings.Declares("key")) {
        timestamp_lock_keys.insert(settings.String("key"));
      }
      setup.algorithm = name;
      setup.request_timeout = mine.request_timeout.value_or(0);
      setup.settings =
          settings.Label() + " request_timeout=" + std::to_string(setup.request_timeout);
      setup.draws_numbers = info->draws_numbers;
      setup.never_reads_tokens = info->never_reads_tokens;
      setup.relative_time = info->relative_time;
      setup.time_constants = settings.Magnitude();
      setup.body = info->make(settings);
    }
    s.algorithms.push_back(setup.algorithm);
    s.may_never_enter.push_back(c.Bool("may_never_enter", false));
    w.clients.push_back(std::move(setup));
  }
  for (const auto& [name, value] : lock.settings) {
    if (!lua && !read.count(name)) {
      s.warnings.push_back("at " + o.PointerOf("lock") + "/" + name +
                           ": no client's algorithm reads this setting (" +
                           AlgorithmsDeclaring(name) + " do)");
    }
  }
  return timestamp_lock_keys;
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
      entry.key = e.String("key");
      if (!keys.insert(entry.key).second) {
        throw jr::JsonError(e.PointerOf("key"), "duplicate key " + json(entry.key).dump());
      }
      entry.value = e.String("value");
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
    a.RejectUnknown({"max_arg_delay", "holders_release_in_time", "max_hold_ticks"});
    if (a.Has("max_arg_delay")) {
      // null: unbounded
      w.assumptions.max_arg_delay = a.NullableInt("max_arg_delay", 0, base::Limits::kMaxSpan);
    }
    w.assumptions.holders_release_in_time = a.Bool("holders_release_in_time", false);
    w.assumptions.max_hold_ticks = a.NullableInt("max_hold_ticks", 0, base::Limits::kMaxSpan);
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

std::vector<std::string> ReadProperties(const jr::ObjectReader& o) {
  std::vector<std::string> properties = {"mutual_exclusion"};
  if (o.Has("properties")) {
    properties.clear();
    const json& props = o.Array("properties");
    for (size_t i = 0; i < props.size(); ++i) {
      std::string p = jr::ReadString(props[i], o.PointerOf("properties") + "/" + std::to_string(i));
      if (std::string retired = check::RetiredProperty(p); !retired.empty()) {
        throw jr::JsonError(o.PointerOf("properties") + "/" + std::to_string(i), retired);
      }
      if (!check::IsProperty(p)) {
        std::string known;
        for (const auto& k : check::PropertyNames()) known += (known.empty() ? "" : ", ") + k;
        throw jr::JsonError(o.PointerOf("properties") + "/" + std::to_string(i),
                            "expected one of " + known + "; got " + json(p).dump());
      }
      properties.push_back(p);
    }
  }
  // An exception in a client's code is a finding in every scenario.
  if (std::find(properties.begin(), properties.end(), "client_error") == properties.end()) {
    properties.push_back("client_error");
  }
  return properties;
}

// A search without a horizon keeps times relative to the clock: it needs
// algorithms that declare so, a bound on arguments' age, and properties
// that do not wait for the horizon (docs/design.md, "Time without a
// horizon").
void CheckAllTime(const jr::ObjectReader& o, const Scenario& s) {
  const world::WorldConfig& w = s.world;
  if (w.horizon) {
    // An execution the horizon cuts is neither a violation nor a proof.
    for (size_t i = 0; i < s.properties.size(); ++i) {
      if (check::IsLiveness(s.properties[i])) {
        throw jr::JsonError(o.PointerOf("properties") + "/" + std::to_string(i),
                            s.properties[i] +
                                " is judged on infinite executions: expected the clock without "
                                "a horizon (\"clock\": {\"horizon\": null})");
      }
    }
    return;
  }
  const std::string why = " (the clock has no horizon: \"horizon\": null)";
  for (size_t i = 0; i < w.clients.size(); ++i) {
    const world::ClientSetup& c = w.clients[i];
    if (c.crashed || c.relative_time) continue;
    throw jr::JsonError(
        o.PointerOf("clients") + "/" + std::to_string(i) + "/algorithm",
        "expected an algorithm whose decisions depend on times only through their differences "
        "(relative_time in its declaration); " +
            s.algorithms[i] + " does not declare it" +
            (c.algorithm.starts_with("lua:") ? " (\"relative_time\": true in its algorithm object)"
                                             : "") +
            why);
  }
  if (!w.assumptions.max_arg_delay) {
    throw jr::JsonError(o.PointerOf("assumptions") + "/max_arg_delay",
                        "expected a bound on the age of clock arguments, not null" + why);
  }
}

// What each part allows but the whole does not: a violation expected of a
// property not checked, restarts no server can make.
void CheckWhole(const jr::ObjectReader& o, const Scenario& s) {
  const world::WorldConfig& w = s.world;
  if (!s.expect.safe && std::find(s.properties.begin(), s.properties.end(), s.expect.property) ==
                            s.properties.end()) {
    throw jr::JsonError(o.PointerOf("expect"),
                        "expects a violation of " + s.expect.property +
                            ", which \"properties\" does not check; expected " + s.expect.property +
                            " among the properties");
  }
  auto restartable = [&](const world::ServerConfig& sv) {
    return sv.replica_of < 0 &&
           std::none_of(w.servers.begin(), w.servers.end(), [&](const world::ServerConfig& r) {
             return r.replica_of >= 0 &&
                    w.servers[static_cast<size_t>(r.replica_of)].name == sv.name;
           });
  };
  if (w.faults.restart > 0 && std::none_of(w.servers.begin(), w.servers.end(), restartable)) {
    throw jr::JsonError(o.PointerOf("faults") + "/restart",
                        "no server can restart (a server with a replica or a master never "
                        "does); expected 0, or a server without either");
  }
}

// Timestamp locks take over a lock whose value is an old time: for them a
// value that is not an integer never expires.
void WarnTimestampValues(const jr::ObjectReader& o,
                         const std::set<std::string>& timestamp_lock_keys, Scenario& s) {
  const world::WorldConfig& w = s.world;
  for (size_t i = 0; i < w.initial_keyspace.size(); ++i) {
    const kv::Entry& e = w.initial_keyspace[i];
    int64_t ignored = 0;
    if (timestamp_lock_keys.count(e.key) && !e.deadline && !kv::ParseInt64(e.value, &ignored)) {
      s.warnings.push_back("at " + o.PointerOf("keyspace") + "/" + std::to_string(i) +
                           "/value: the lock's value " + jr::Describe(json(e.value)) +
                           " is not an integer timestamp, so it never expires");
    }
  }
}

Scenario Load(const json& doc, const std::string& file, const std::string& prefix) {
  jr::ObjectReader o(doc, prefix);
  RejectTrace(o, prefix);
  o.RejectUnknown({"name", "description", "clients", "lock", "keyspace", "clock", "assumptions",
                   "faults", "server", "servers", "resource", "properties", "expect", "schedule",
                   "seed", "max_steps"});
  Scenario s;
  s.file = file;
  s.document = doc;  // ReadClients puts Lua files in it
  s.document.erase("schedule");
  s.name = o.OptString("name").value_or("");
  s.description = o.OptString("description").value_or("");
  s.expect = ReadExpect(o);

  algo::WorldFacts facts;
  const LockFields lock = ReadSharedLock(o, s, facts);
  ReadServers(o, s, facts);
  world::WorldConfig& w = s.world;
  ReadClock(o, w);
  const std::set<std::string> timestamp_lock_keys = ReadClients(o, lock, facts, s);
  ReadKeyspace(o, timestamp_lock_keys, w);
  ReadAssumptions(o, w);
  ReadFaults(o, w);
  s.properties = ReadProperties(o);
  CheckWhole(o, s);
  CheckAllTime(o, s);
  WarnTimestampValues(o, timestamp_lock_keys, s);

  if (o.Has("seed")) w.seed = trace::ReadSeed(o.Raw("seed"), o.PointerOf("seed"));
  s.max_steps = static_cast<int>(
      o.OptInt("max_steps", 1, base::Limits::kMaxSteps).value_or(base::Limits::kDefaultMaxSteps));

  std::vector<std::string> names;
  for (const auto& c : w.clients) names.push_back(c.name);
  std::vector<std::string> server_names;
  if (w.servers.size() > 1) {
    for (const auto& sv : w.servers) server_names.push_back(sv.name);
  }
  if (o.Has("schedule")) {
    const json& sched = o.Array("schedule");
    s.has_schedule = true;
    for (size_t i = 0; i < sched.size(); ++i) {
      std::string ptr = o.PointerOf("schedule") + "/" + std::to_string(i);
      std::string text = jr::ReadString(sched[i], ptr);
      try {
        s.schedule.push_back(world::ParseAction(text, names, server_names));
      } catch (const base::InputError& e) {
        throw jr::JsonError(ptr, e.expected);
      }
      s.schedule_text.push_back(text);
    }
  }
  return s;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  // The limit holds while reading, whatever the file is: a device, a FIFO or
  // a /proc file has no size to check beforehand.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ScenarioError(path, "cannot open the file for reading");
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    throw ScenarioError(path, std::string("cannot read the file: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw ScenarioError(path, "is a directory; expected a file");
  if (S_ISREG(st.st_mode) && st.st_size > static_cast<off_t>(kMaxInputBytes)) {
    throw ScenarioError(
        path, "file is " + std::to_string(st.st_size) + " bytes; expected at most 16 MiB");
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ScenarioError(path, std::string("cannot read the file: ") + std::strerror(errno));
    }
    if (text.size() + static_cast<size_t>(n) > kMaxInputBytes) {
      throw ScenarioError(path, "more than 16 MiB to read; expected at most 16 MiB");
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

Scenario LoadScenario(const json& document, const std::string& file,
                      const std::string& pointer_prefix) {
  try {
    return Load(document, file, pointer_prefix);
  } catch (const jr::JsonError& e) {
    throw ScenarioError(file, e.what());
  }
}

Scenario LoadScenarioFile(const std::string& path) {
  json doc;
  try {
    doc = jr::Parse(ReadFile(path));
  } catch (const jr::JsonError& e) {
    throw ScenarioError(path, e.what());
  }
  return LoadScenario(doc, path);
}

namespace {

const char* const kFieldsBeforeLock =
    R"(Scenario fields (JSON object; unknown fields are refused; the file is at
most 16 MiB and nests at most 64 levels; integers are JSON integers, never
1.0 or 1e3, and null only where the type says |null):
  name            string       optional label (any text)
  description     string       optional (any text)
  clients         array, 1-8   each {name, algorithm, skew?, crashed?, lock?}
    name          string       1-16 of [A-Za-z0-9_-], starting with a letter; unique
    algorithm     string|object one of `lockstep list`, or a Lua algorithm: {lua: FILE
                               (relative to the scenario) or lua_inline: SOURCE,
                               settings?: object added to lock.settings, draws_numbers?:
                               boolean (default false), never_reads_tokens?: boolean
                               (default false), relative_time?: boolean (default
                               false; needed without a horizon)}, see "Lua
                               algorithms" below;
)";
const char* const kFieldsAfterAlgorithm =
    R"(                               optional if crashed
    skew          integer      client clock = global clock + skew; |skew| <= 10000000
    crashed       boolean      crashed before the run: never runs (default false)
    may_never_enter boolean    a SAFE need not see it enter the critical section
                               (default false: a SAFE in which it never enters is vacuous)
    lock          object       per-client override of the top-level lock settings
)";

const char* const kFieldsBeforeFaults =
    R"(  keyspace        array        initial entries {key, value, deadline?, writer?}; keys unique
    key           string       any text
    value         string       any text
    deadline      integer|null expires when the clock passes it, 0..10^12 (default null: never)
    writer        string       who wrote it, for traces (ghost state; any text)
    timestamp     boolean      the value is a time (default: true for an integer value of
                               a timestamp lock's key); an all-time search keeps it
                               relative to the clock
  clock           object       {start?, horizon}
    start         integer      0..10^12 (default 0)
    horizon       integer|null the clock never passes it; start..start+10000000; null:
                               all time, no horizon
  assumptions     object       {max_arg_delay?, holders_release_in_time?, max_hold_ticks?}
    max_arg_delay integer|null largest age of timestamp arguments, 0..10000000; 0 = read
                               in the command's own step (default); null = unbounded
    holders_release_in_time  boolean  the clock never passes a holder's own
                               timestamp while it holds the lock (default false)
    max_hold_ticks integer|null the clock never moves more than this past a holder's
                               acquisition while it holds the lock, 0..10000000
                               (default null: no bound)
  faults          object       fault budgets, each an integer (default 0):
)";

const char* const kLockWorldFields =
    R"(    request_timeout integer    ticks a client waits for a reply before it sees a timeout,
                               0..10000000 (default 0: the timeout comes in the same step)
    token_server  string       top level only: the master whose INCR hands out
                               redlock-fenced's tokens; not one of Redlock's instances
)";

// Read after the budget of "jump", which they qualify.
const char* const kJumpFields =
    R"(    jump_by       array        sizes of the jumps, integers 1..10000000 (needed with jump)
    stall_where   string       holding (default: anywhere while holding the lock) or
                               releasing (holding the lock outside the critical section:
                               releasing it, or renewing it between two jobs)
)";

const char* const kFieldsAfterFaults =
    R"(  server          object       the one server (named S1): {skew?, persistence?,
                               sync_every?, restart_delay?}
    skew          integer      server clock = global clock + skew + jumps; |skew| <= 10000000
    persistence   string       always (default), everysec (synced every sync_every ticks), none
    sync_every    integer      1..10000000 (default 1)
    restart_delay integer      ticks a restarted server stays unavailable, 0..10000000
                               (default 0; Redlock's delayed restarts)
  servers         array, 1-8   several servers instead of "server": each {name, replica_of?,
                               and the fields of server}; the masters, in order, are the
                               instances clients address
    name          string       1-16 of [A-Za-z0-9_-], starting with a letter; unique
    replica_of    string       a master listed earlier; at most one replica each; writes
                               reach it by "replicate" steps the scheduler places
  resource        object       {fenced?}: holders write a protected resource while they
                               hold the lock; fenced (default false): it refuses tokens not
                               larger than one it has accepted
  properties      array        names of properties to check: mutual_exclusion,
                               foreign_release, stale_write, no_stuck_states, and
                               (without a horizon, on fair infinite executions)
                               deadlock_free, starvation_free, no_orphaned_lock
                               (default ["mutual_exclusion"]); client_error (a client's
                               code threw) is always checked
  expect          string       "safe" or "violation:PROPERTY"
  schedule        array        actions: "C1", "C1~2" (arguments 2 ticks old), "tick",
                               "crash C1", "stall C1", "lose-request C1", "lose-reply C1",
                               "jump +5", "restart";
                               with several servers "jump A +5", "restart A",
                               "replicate A" (A's oldest unreplicated write reaches its
                               replica), "failover A"
  seed            integer      0..2^63-1, for random values (default 0)
  max_steps       integer      1..10000000 (default 10000): the steps of a run; an
                               execution this long ends a search, incomplete

Trace fields (what --trace-out and explore write; `lockstep replay` reads them
with the same limits and refuses, at its JSON location, the first field that
differs from replaying the schedule on the embedded scenario):
  format          string       "lockstep-trace/1"; other versions are refused
  scenario        object       the scenario run, as above, without schedule
  seed            integer      0..2^63-1
  clients         array        {name, algorithm, skew, crashed_at_start?}; names
                               unique, the scenario's clients in its order
  schedule        array        actions, as in a scenario
  steps           array        step i: {index (= i), action (from step 1), actor,
                               command, reply, events, clock, client_clocks,
                               keyspace, in_critical_section, holding, server?, servers?}
    command       array        strings: the command as executed (empty: none)
    reply         object|null  {type: integer|bulk|status|error|nil|array,
                               value?, elements?}
    clock         integer      global clock after the step, |clock| <= 2^61
    client_clocks object       client name -> integer, |clock| <= 2^61
    keyspace      array        {key, value or list, deadline (integer|null), writer}; with
                               several servers, the first instance's master's
    server        string       several servers: the server the step's command went to
    servers       array        several servers: {name, role, available, clock, keyspace,
                               writers, unreplicated} after the step
  end             string       why the execution ended
  violation       object|null  {property, clients, step (0..2^31-1), message}
)";

// "    crash         integer      0..8: a client crashes (...)", and a second line if any.
std::string FaultFields() {
  std::string out;
  for (const world::FaultKind& k : world::kFaultKinds) {
    std::string name(k.name);
    out += "    " + name + std::string(14 - name.size(), ' ') + "integer      0.." +
           std::to_string(k.max_budget) + ": " + std::string(k.help) + "\n";
    if (!k.more.empty()) out += std::string(31, ' ') + std::string(k.more) + "\n";
    if (k.name == "jump") out += kJumpFields;
  }
  return out;
}

// `head` then `text`, wrapped at 90 columns under column 31.
std::string Wrapped(std::string head, const std::string& text) {
  if (head.size() < 31) head += std::string(31 - head.size(), ' ');
  std::string out = head;
  size_t column = head.size();
  bool first = true;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    at = end + 1;
    if (!first && column + 1 + word.size() > 90) {
      out += "\n" + std::string(31, ' ');
      column = 31;
    } else if (!first) {
      out += " ";
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out + "\n";
}

// The "lock" object: the settings the algorithms declare, then the world's.
std::string LockFieldLines() {
  const std::vector<algo::Setting> declared = algo::AllSettings();
  std::string names = "{";
  for (const algo::Setting& d : declared) names += std::string(d.name) + "?, ";
  names += "request_timeout?, token_server?}: each setting is read by the algorithms declaring it";
  std::string out = Wrapped("  lock            object", names);
  for (const algo::Setting& d : declared) {
    std::string head = "    " + std::string(d.name);
    head += std::string(head.size() < 18 ? 18 - head.size() : 1, ' ') +
            std::string(algo::TypeName(d.type));
    std::string what(d.help);
    switch (d.type) {
      case algo::SettingType::kInt:
        what += ", " + std::to_string(d.min) + ".." + std::to_string(d.max) + " (default " +
                std::to_string(d.default_value) + ")";
        break;
      case algo::SettingType::kBool:
        what += std::string(" (default ") + (d.default_value ? "true" : "false") + ")";
        break;
      case algo::SettingType::kString:
        what += " (default " + json(std::string(d.default_text)).dump() + ")";
        break;
    }
    out += Wrapped(head, what);
  }
  return out + kLockWorldFields;
}

}  // namespace

std::string FieldReference() {
  return kFieldsBeforeLock + std::string(kProcessFields) + kFieldsAfterAlgorithm +
         LockFieldLines() + kFieldsBeforeFaults + FaultFields() + kFieldsAfterFaults + "\n" +
         std::string(algo::kLuaApiReference);
}

}  // namespace lockstep::scenario
