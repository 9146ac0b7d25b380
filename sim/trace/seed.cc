#include "sim/trace/seed.h"

#include "sim/trace/json_reader.h"

namespace lockstep::trace {

std::string SeedRange() { return "an integer in [0, " + std::to_string(kMaxSeed) + "]"; }

std::optional<uint64_t> ParseSeed(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (kMaxSeed - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

uint64_t ReadSeed(const nlohmann::json& j, const std::string& pointer) {
  return static_cast<uint64_t>(json::ReadInt(j, pointer, 0, static_cast<int64_t>(kMaxSeed)));
}

}  // namespace lockstep::trace
