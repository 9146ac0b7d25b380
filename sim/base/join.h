// Lists printed as text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::base {

// The strings of v with sep between each two: "C1, C2, C3".
inline std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// The same with " and " before the last: "C1", "C1 and C2", "C1, C2 and C3".
inline std::string JoinWithAnd(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + v[i];
  }
  return s;
}

// A count with its noun, singular for one: "1 tick", "2 ticks"
// (`plural` when adding an "s" is wrong).
inline std::string Counted(long long n, const std::string& noun, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

// 1,234,567.
inline std::string Thousands(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace lockstep::base
