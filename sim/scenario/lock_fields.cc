// The "lock" object: settings checked against the algorithms'
// declarations, the values each client's algorithm is given, and the
// settings a Lua algorithm reads.
#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "sim/algo/settings.h"
#include "sim/base/limits.h"
#include "sim/scenario/sections.h"

namespace lockstep::scenario::internal {

namespace jr = lockstep::json;
using nlohmann::json;

std::string AlgorithmNames() {
  std::string s;
  for (const auto& a : algo::Algorithms()) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

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

}  // namespace lockstep::scenario::internal
