// Seeds: a trace carries its seed as an integer in 0..2^63-1 ("seed"), so
// that is what every place a seed enters accepts: the command line, a
// scenario's "seed" and a trace's. One rule, so that every run's trace
// replays.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace lockstep::trace {

inline constexpr uint64_t kMaxSeed = INT64_MAX;

// "an integer in [0, 9223372036854775807]"
std::string SeedRange();

// Decimal digits only (no sign, no spaces, not empty) naming a value in
// 0..kMaxSeed; nullopt otherwise.
std::optional<uint64_t> ParseSeed(std::string_view text);

// A JSON seed at `pointer`; throws json::JsonError unless it is an integer
// in 0..kMaxSeed.
uint64_t ReadSeed(const nlohmann::json& j, const std::string& pointer);

}  // namespace lockstep::trace
