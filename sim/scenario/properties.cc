// What the scenario asks of its runs (the properties, the outcome
// expected) and what each part allows but the whole does not.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sim/check/liveness.h"
#include "sim/check/property.h"
#include "sim/kv/int_parse.h"
#include "sim/scenario/sections.h"

namespace lockstep::scenario::internal {

namespace jr = lockstep::json;
using nlohmann::json;

Expectation ReadExpect(const jr::ObjectReader& o) {
  Expectation e;
  if (!o.Has("expect")) {
    e.stated = false;
    return e;
  }
  std::string text = o.String("expect");
  if (text == "safe") return e;
  if (text == "vacuous") {
    e.vacuous = true;
    return e;
  }
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
                      "expected \"safe\", \"vacuous\"" + props + "; got " + json(text).dump());
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

}  // namespace lockstep::scenario::internal
