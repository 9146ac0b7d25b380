#include "sim/kv/int_parse.h"

#include <charconv>
#include <limits>

namespace lockstep::kv {

bool ParseInt64(std::string_view s, int64_t* out) {
  // Mirrors util.c string2ll: accumulate the magnitude as unsigned and check
  // the range at the end, so INT64_MIN is accepted.
  if (s.empty() || s.size() >= 21) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (s.size() == 1) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = static_cast<uint64_t>(s[i] - '0');
  for (++i; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (v > kMaxPositive + 1) return false;
    // Two's complement negation of the magnitude, without signed overflow.
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > kMaxPositive) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

std::string FormatInt64(int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  return std::string(buf, end);
}

bool EqualsUpper(std::string_view s, std::string_view upper) {
  if (s.size() != upper.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != upper[i]) return false;
  }
  return true;
}

}  // namespace lockstep::kv
