// Lists printed as text.
#pragma once

#include <string>
#include <vector>

namespace lockstep::base {

// The strings of v with sep between each two: "C1, C2, C3".
inline std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace lockstep::base
