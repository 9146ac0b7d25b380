#include "sim/scenario/scenario.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sim/check/property.h"
#include "sim/trace/json_reader.h"

namespace lockstep::scenario {
namespace {

namespace jr = lockstep::json;
using nlohmann::json;

constexpr int64_t kMaxTime = 1'000'000'000'000;  // about 31 years in ms
constexpr int64_t kMaxSpan = 10'000'000;          // horizon - start
constexpr int kMaxClients = 8;

std::string AlgorithmNames() {
  std::string s;
  for (const auto& a : algo::Algorithms()) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

algo::LockSettings ReadLock(const jr::ObjectReader& o, algo::LockSettings s) {
  o.RejectUnknown({"key", "timeout", "rounds", "retry_delay", "release_with_leave"});
  if (auto key = o.OptString("key")) {
    if (key->empty()) throw jr::JsonError(o.PointerOf("key"), "expected a non-empty key name");
    s.key = *key;
  }
  if (auto v = o.OptInt("timeout", 0, kMaxSpan)) s.timeout = *v;
  if (auto v = o.OptInt("rounds", 1, 1000)) s.rounds = static_cast<int>(*v);
  if (auto v = o.OptInt("retry_delay", 0, kMaxSpan)) s.retry_delay = *v;
  s.release_with_leave = o.Bool("release_with_leave", s.release_with_leave);
  return s;
}

Expectation ReadExpect(const jr::ObjectReader& o) {
  std::string text = o.String("expect");
  Expectation e;
  if (text == "safe") return e;
  const std::string prefix = "violation:";
  if (text.starts_with(prefix)) {
    e.safe = false;
    e.property = text.substr(prefix.size());
    if (check::MakeProperty(e.property)) return e;
  }
  std::string props;
  for (const auto& p : check::PropertyNames()) props += ", \"violation:" + p + "\"";
  throw jr::JsonError(o.PointerOf("expect"),
                      "expected \"safe\"" + props + "; got \"" + text + "\"");
}

Scenario Load(const json& doc, const std::string& file, const std::string& prefix) {
  jr::ObjectReader o(doc, prefix);
  o.RejectUnknown({"name", "description", "clients", "lock", "keyspace", "clock",
                   "assumptions", "faults", "properties", "expect", "schedule",
                   "seed", "max_steps"});
  Scenario s;
  s.file = file;
  s.name = o.OptString("name").value_or("");
  s.description = o.OptString("description").value_or("");
  s.expect = ReadExpect(o);

  algo::LockSettings lock;
  if (o.Has("lock")) lock = ReadLock(o.Object("lock"), lock);

  // Clock first: it bounds the times below.
  jr::ObjectReader clock = o.Object("clock");
  clock.RejectUnknown({"start", "horizon"});
  world::WorldConfig& w = s.world;
  w.start_time = clock.OptInt("start", 0, kMaxTime).value_or(0);
  w.horizon = clock.Int("horizon", w.start_time, w.start_time + kMaxSpan);

  // Clients.
  const json& clients = o.Array("clients");
  const std::string cptr = o.PointerOf("clients");
  if (clients.empty() || clients.size() > kMaxClients) {
    throw jr::JsonError(cptr, "expected 1 to " + std::to_string(kMaxClients) +
                                  " clients, got " + std::to_string(clients.size()));
  }
  static const std::regex kName("[A-Za-z][A-Za-z0-9_-]{0,15}");
  std::set<std::string> seen;
  for (size_t i = 0; i < clients.size(); ++i) {
    jr::ObjectReader c(clients[i], cptr + "/" + std::to_string(i));
    c.RejectUnknown({"name", "algorithm", "skew", "crashed", "lock"});
    world::ClientSetup setup;
    setup.name = c.String("name");
    if (!std::regex_match(setup.name, kName)) {
      throw jr::JsonError(c.PointerOf("name"),
                          "expected a client name of 1-16 letters, digits, '_' or '-' "
                          "starting with a letter, got \"" + setup.name + "\"");
    }
    if (!seen.insert(setup.name).second) {
      throw jr::JsonError(c.PointerOf("name"), "duplicate client name \"" + setup.name + "\"");
    }
    if (setup.name == "clock" || setup.name == "start" || setup.name == "tick" ||
        setup.name == "crash") {
      throw jr::JsonError(c.PointerOf("name"), "\"" + setup.name + "\" is reserved");
    }
    setup.crashed = c.Bool("crashed", false);
    setup.skew = c.OptInt("skew", -kMaxSpan, kMaxSpan).value_or(0);
    if (!setup.crashed || c.Has("algorithm")) {
      std::string name = c.String("algorithm");
      const algo::AlgorithmInfo* info = algo::FindAlgorithm(name);
      if (!info) {
        throw jr::JsonError(c.PointerOf("algorithm"), "expected one of " + AlgorithmNames() +
                                                          "; got \"" + name + "\"");
      }
      algo::LockSettings mine = lock;
      if (c.Has("lock")) mine = ReadLock(c.Object("lock"), mine);
      setup.algorithm = name;
      setup.settings = json{{"key", mine.key}, {"timeout", mine.timeout}, {"rounds", mine.rounds},
                            {"retry_delay", mine.retry_delay},
                            {"release_with_leave", mine.release_with_leave}}.dump();
      setup.body = info->make(mine);
    }
    s.algorithms.push_back(setup.algorithm);
    w.clients.push_back(std::move(setup));
  }

  // Initial keyspace.
  if (o.Has("keyspace")) {
    const json& ks = o.Array("keyspace");
    std::set<std::string> keys;
    for (size_t i = 0; i < ks.size(); ++i) {
      jr::ObjectReader e(ks[i], o.PointerOf("keyspace") + "/" + std::to_string(i));
      e.RejectUnknown({"key", "value", "deadline", "writer"});
      kv::Entry entry;
      entry.key = e.String("key");
      if (!keys.insert(entry.key).second) {
        throw jr::JsonError(e.PointerOf("key"), "duplicate key \"" + entry.key + "\"");
      }
      entry.value = e.String("value");
      entry.deadline = e.OptInt("deadline", 0, kMaxTime);
      if (auto writer = e.OptString("writer")) w.initial_writers[entry.key] = *writer;
      w.initial_keyspace.push_back(entry);
    }
  }

  if (o.Has("assumptions")) {
    jr::ObjectReader a = o.Object("assumptions");
    a.RejectUnknown({"max_arg_delay", "holders_release_in_time", "max_hold_ticks"});
    if (a.Has("max_arg_delay")) {
      w.assumptions.max_arg_delay = a.OptInt("max_arg_delay", 0, kMaxSpan);  // null: unbounded
    }
    w.assumptions.holders_release_in_time = a.Bool("holders_release_in_time", false);
    w.assumptions.max_hold_ticks = a.OptInt("max_hold_ticks", 0, kMaxSpan);
  }
  if (o.Has("faults")) {
    jr::ObjectReader f = o.Object("faults");
    f.RejectUnknown({"crash"});
    w.faults.crash = static_cast<int>(f.OptInt("crash", 0, kMaxClients).value_or(0));
  }

  s.properties = {"mutual_exclusion"};
  if (o.Has("properties")) {
    s.properties.clear();
    const json& props = o.Array("properties");
    for (size_t i = 0; i < props.size(); ++i) {
      std::string p = jr::ReadString(props[i], o.PointerOf("properties") + "/" + std::to_string(i));
      if (!check::MakeProperty(p)) {
        std::string known;
        for (const auto& k : check::PropertyNames()) known += (known.empty() ? "" : ", ") + k;
        throw jr::JsonError(o.PointerOf("properties") + "/" + std::to_string(i),
                            "expected one of " + known + "; got \"" + p + "\"");
      }
      s.properties.push_back(p);
    }
  }

  w.seed = static_cast<uint64_t>(o.OptInt("seed", 0, INT64_MAX).value_or(0));
  s.max_steps = static_cast<int>(o.OptInt("max_steps", 1, 10'000'000).value_or(10000));

  std::vector<std::string> names;
  for (const auto& c : w.clients) names.push_back(c.name);
  if (o.Has("schedule")) {
    const json& sched = o.Array("schedule");
    s.has_schedule = true;
    for (size_t i = 0; i < sched.size(); ++i) {
      std::string ptr = o.PointerOf("schedule") + "/" + std::to_string(i);
      std::string text = jr::ReadString(sched[i], ptr);
      std::string error;
      auto a = world::ParseAction(text, names, &error);
      if (!a) throw jr::JsonError(ptr, error);
      s.schedule_text.push_back(text);
      s.schedule.push_back(*a);
    }
  }
  s.document = doc;
  s.document.erase("schedule");
  return s;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, "cannot open the file for reading");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw ScenarioError(path, "cannot read the file");
  if (size > (16 << 20)) {
    throw ScenarioError(path, "file is " + std::to_string(size) +
                                  " bytes; expected at most 16 MiB");
  }
  in.seekg(0);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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

const char* const kFieldReference = R"(Scenario fields (JSON object; unknown fields are refused):
  name            string       optional label
  description     string       optional
  clients         array, 1-8   each {name, algorithm, skew?, crashed?, lock?}
    name          string       1-16 of [A-Za-z0-9_-], starting with a letter; unique
    algorithm     string       one of `lockstep list`; optional if crashed
    skew          integer      client clock = global clock + skew; |skew| <= 10000000
    crashed       boolean      crashed before the run: never runs (default false)
    lock          object       per-client override of the top-level lock settings
  lock            object       {key?, timeout?, rounds?, retry_delay?, release_with_leave?}
    key           string       default "lock.foo"
    timeout       integer      T in ticks, 0..10000000; a lock stores now+T+1 (default 2)
    rounds        integer      acquisitions per client, 1..1000 (default 1)
    retry_delay   integer      sleep before retrying a held lock, 0..10000000 (default 1)
    release_with_leave boolean leave the critical section and release in one step,
                               the clock read in that step (SPIN's model; default false)
  keyspace        array        initial entries {key, value, deadline?, writer?}; keys unique
  clock           object       {start?, horizon}
    start         integer      0..10^12 (default 0)
    horizon       integer      the clock never passes it; start..start+10000000
  assumptions     object       {max_arg_delay?, holders_release_in_time?, max_hold_ticks?}
    max_arg_delay integer|null largest age of timestamp arguments; 0 = read in the
                               command's own step (default); null = unbounded
    holders_release_in_time  boolean  the clock never passes a holder's own
                               timestamp while it holds the lock (default false)
    max_hold_ticks integer     the clock never moves more than this past a holder's
                               acquisition while it holds the lock
  faults          object       {crash?}: crash 0..8, crash actions allowed (default 0)
  properties      array        property names (default ["mutual_exclusion"])
  expect          string       "safe" or "violation:PROPERTY"
  schedule        array        actions: "C1", "C1~2" (arguments 2 ticks old), "tick",
                               "crash C1"
  seed            integer      >= 0, for random values (default 0)
  max_steps       integer      1..10000000 (default 10000)
)";

}  // namespace lockstep::scenario
