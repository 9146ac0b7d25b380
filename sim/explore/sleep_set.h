// Sleep sets as bits: which client steps a state may skip (dfs_search.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/base/limits.h"
#include "sim/world/model.h"

namespace lockstep::explore {

// A sleep set holds client steps (every client, age < 4) as bits; anything
// else is never put to sleep, which is always sound.
inline constexpr int kAgeBits = 4;
static_assert(base::kMaxClients * kAgeBits <= 32, "a sleep set is 32 bits");
inline std::optional<uint32_t> SleepBit(const world::Action& a) {
  if (a.kind != world::Action::Kind::kStep || a.arg_age >= kAgeBits || a.drawn) {
    return std::nullopt;  // a draw's values would share one bit
  }
  return uint32_t{1} << (a.client * kAgeBits + a.arg_age);
}

// Re-numbers a sleep set between a state's client numbering and the
// canonical one (to_canonical[i] is client i's canonical number).
inline uint32_t Renumber(uint32_t mask, const std::vector<int>& to_canonical, bool to) {
  if (mask == 0) return mask;
  uint32_t out = 0;
  const int n = static_cast<int>(to_canonical.size());
  for (int i = 0; i < n; ++i) {
    int canon = to_canonical[i];
    int src = to ? i : canon, dst = to ? canon : i;
    uint32_t bits = (mask >> (src * kAgeBits)) & ((1u << kAgeBits) - 1);
    out |= bits << (dst * kAgeBits);
  }
  return out;
}

}  // namespace lockstep::explore
