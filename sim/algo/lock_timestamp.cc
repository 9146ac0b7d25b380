#include "sim/algo/lock_timestamp.h"

#include <charconv>

namespace lockstep::algo {

std::optional<world::Millis> ParseTimestamp(const std::string& value) {
  world::Millis t = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), t);
  if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return t;
}

}  // namespace lockstep::algo
