// The loader's parts, one per section of a scenario document, in the order
// Load (scenario.cc) reads them. Each throws json::JsonError at the place
// it finds wrong; LoadScenario turns that into a ScenarioError naming the
// file. Internal to the loader: not installed.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/algo/algorithm.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/world/world.h"

namespace lockstep::scenario::internal {

// "a, b, c": every registered algorithm's name.
std::string AlgorithmNames();

// What a "lock" object gives: the settings it names (checked against their
// declarations, algo::AllSettings()) and the world's request timeout.
struct LockFields {
  std::map<std::string, nlohmann::json> settings;  // name -> a valid value
  std::optional<world::Millis> request_timeout;
};

// The lock fields every client shares, or (`per_client`) one client's
// overrides of `fields`.
LockFields ReadLock(const json::ObjectReader& o, LockFields fields, bool per_client);
// The settings `declared` with the values `fields` gives.
algo::Settings MakeSettings(std::span<const algo::Setting> declared, const LockFields& fields,
                            const algo::WorldFacts& world);
// The lock fields all clients share, and the guarded resource.
LockFields ReadSharedLock(const json::ObjectReader& o, Scenario& s, algo::WorldFacts& world);
// What a Lua algorithm reads as lock.settings, short of its own "settings".
nlohmann::json LuaSettings(const LockFields& fields, const algo::WorldFacts& world);
// "a, b": the algorithms that declare the setting `name`.
std::string AlgorithmsDeclaring(const std::string& name);
// Warns of each setting of a client's "lock" its algorithm does not read.
void WarnUnread(const json::ObjectReader& lock, std::span<const algo::Setting> declared,
                const std::string& algorithm, std::vector<std::string>& warnings);

// "server" or "servers", and which masters Redlock locks.
void ReadServers(const json::ObjectReader& o, Scenario& s, algo::WorldFacts& facts);
// The clock first: it bounds the times read after it.
void ReadClock(const json::ObjectReader& o, world::WorldConfig& w);
// The clients and their algorithms. Returns the keys timestamp locks take over.
std::set<std::string> ReadClients(const json::ObjectReader& o, const LockFields& lock,
                                  const algo::WorldFacts& world, Scenario& s);
void ReadKeyspace(const json::ObjectReader& o, const std::set<std::string>& timestamp_lock_keys,
                  world::WorldConfig& w);
void ReadAssumptions(const json::ObjectReader& o, world::WorldConfig& w);
void ReadFaults(const json::ObjectReader& o, world::WorldConfig& w);

Expectation ReadExpect(const json::ObjectReader& o);
std::vector<std::string> ReadProperties(const json::ObjectReader& o);
// What each part allows but the whole does not.
void CheckWhole(const json::ObjectReader& o, const Scenario& s);
// A search without a horizon: algorithms that declare relative time, a
// bound on arguments' age, no property waiting for the horizon.
void CheckAllTime(const json::ObjectReader& o, const Scenario& s);
// Timestamp locks' values that are not integers, and so never expire.
void WarnTimestampValues(const json::ObjectReader& o,
                         const std::set<std::string>& timestamp_lock_keys, Scenario& s);

}  // namespace lockstep::scenario::internal
