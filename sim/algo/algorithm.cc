#include "sim/algo/algorithm.h"

#include <algorithm>
#include <vector>

#include "sim/base/check.h"

namespace lockstep::algo {

void HoldLock(world::Client& c, bool write_resource, Millis valid_until, int64_t token) {
  c.EnterCriticalSection(valid_until);
  if (write_resource) {
    c.Because("inside the critical section: write the resource with token " +
              std::to_string(token));
    c.Because(c.WriteResource(token) ? "the resource accepted token " + std::to_string(token)
                                     : "the resource refused token " + std::to_string(token) +
                                           ": a later holder has written");
  }
}

namespace {

std::vector<AlgorithmInfo>& Registry() {
  static std::vector<AlgorithmInfo> registry;  // built before first use, whatever the order
  return registry;
}

}  // namespace

bool RegisterAlgorithm(const AlgorithmInfo& info) {
  std::vector<AlgorithmInfo>& r = Registry();
  auto at = std::lower_bound(r.begin(), r.end(), info.name,
                             [](const AlgorithmInfo& a, std::string_view n) { return a.name < n; });
  LOCKSTEP_CHECK(at == r.end() || at->name != info.name,
                 "algorithms: two registrations of one name");
  for (const Setting& mine : info.settings) {
    for (const AlgorithmInfo& other : r) {
      for (const Setting& theirs : other.settings) {
        LOCKSTEP_CHECK(theirs.name != mine.name || theirs == mine,
                       "algorithms: one setting declared two ways");
      }
    }
    LOCKSTEP_CHECK(mine.type != SettingType::kString || !mine.default_text.empty(),
                   "algorithms: a string setting without a default");
    LOCKSTEP_CHECK(mine.type != SettingType::kInt ||
                       (mine.min <= mine.default_value && mine.default_value <= mine.max),
                   "algorithms: a setting's default out of its range");
  }
  r.insert(at, info);
  return true;
}

std::span<const AlgorithmInfo> Algorithms() { return Registry(); }

std::vector<Setting> AllSettings() {
  std::vector<Setting> all;
  for (const AlgorithmInfo& a : Registry()) {
    for (const Setting& s : a.settings) {
      if (std::none_of(all.begin(), all.end(), [&](const Setting& t) { return t.name == s.name; }))
        all.push_back(s);
    }
  }
  return all;
}

const AlgorithmInfo* FindAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& a : Registry()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace lockstep::algo
