#include "sim/algo/algorithm.h"

#include <algorithm>
#include <vector>

#include "sim/base/check.h"

namespace lockstep::algo {

void HoldLock(world::Client& c, const LockSettings& s, Millis valid_until, int64_t token) {
  c.EnterCriticalSection(valid_until);
  if (s.write_resource) c.WriteResource(token);
}

std::string SettingsLabel(const LockSettings& s) {
  std::string label = "key=" + std::to_string(s.key.size()) + ":" + s.key;
  for (auto [name, value] : {std::pair<const char*, int64_t>{"timeout", s.timeout},
                             {"rounds", s.rounds},
                             {"retry_delay", s.retry_delay},
                             {"release_with_leave", s.release_with_leave},
                             {"ttl", s.ttl},
                             {"write_resource", s.write_resource},
                             {"instances", s.instances},
                             {"token_instance", s.token_instance},
                             {"request_timeout", s.request_timeout}}) {
    label += std::string(" ") + name + "=" + std::to_string(value);
  }
  return label;
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
  r.insert(at, info);
  return true;
}

std::span<const AlgorithmInfo> Algorithms() { return Registry(); }

const AlgorithmInfo* FindAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& a : Registry()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace lockstep::algo
