#include "sim/explore/visited_table.h"

#include <algorithm>
#include <cmath>

namespace lockstep::explore {

VisitedTable::VisitedTable(Layout layout) : layout_(layout) {
  // Sizes spread over one growth step (a factor of 5/4), so that the
  // shards, filling at the same pace, grow at different times.
  const int shards = 1 << kShardBits;
  for (int i = 0; i < shards; ++i) {
    shards_.push_back(std::make_unique<Shard>());
    const auto homes = static_cast<size_t>(512 * std::pow(1.25, double(i) / shards));
    Allocate(*shards_.back(), homes, homes + kTail);
  }
}

VisitedTable::~VisitedTable() = default;

void VisitedTable::Allocate(Shard& s, size_t homes, size_t slots) const {
  s.homes = homes;
  s.high.assign(slots, 0);
  if (layout_.wide_keys) s.low.assign(slots, 0);
  if (layout_.sleep) s.sleep.assign(slots, 0);
  if (layout_.depth) s.depth.assign(slots, 0);
  s.hint_high.store(s.high.data(), std::memory_order_relaxed);
  s.hint_low.store(layout_.wide_keys ? s.low.data() : nullptr, std::memory_order_relaxed);
  s.hint_sleep.store(layout_.sleep ? s.sleep.data() : nullptr, std::memory_order_relaxed);
  s.hint_homes.store(homes, std::memory_order_relaxed);
}

void VisitedTable::Rebuild(Shard& s, size_t homes) const {
  Shard old;
  old.high.swap(s.high);
  old.low.swap(s.low);
  old.sleep.swap(s.sleep);
  old.depth.swap(s.depth);
  // The keys in ascending order, each at its new home or just after the
  // one before it: the order of the old table is the order of the new.
  // A first pass finds where the last one lands, so the tail always has
  // kTail slots free, however the keys crowd.
  auto place_all = [&](auto&& place) {
    size_t next = 0;
    for (size_t j = 0; j < old.high.size(); ++j) {
      if (old.high[j] == 0) continue;
      const size_t i = std::max(Home(old.high[j], homes), next);
      place(i, j);
      next = i + 1;
    }
    return next;
  };
  const size_t end = place_all([](size_t, size_t) {});
  Allocate(s, homes, std::max(homes, end) + kTail);
  place_all([&](size_t i, size_t j) {
    Place(s, i, {old.high[j], layout_.wide_keys ? old.low[j] : 0}, EntryAt(old, j));
  });
}

void VisitedTable::ShiftUp(Shard& s, size_t from, size_t to) const {
  auto shift = [from, to](auto& v) {
    if (!v.empty()) std::copy_backward(v.begin() + from, v.begin() + to, v.begin() + to + 1);
  };
  shift(s.high);
  shift(s.low);
  shift(s.sleep);
  shift(s.depth);
}

uint64_t VisitedTable::size() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->used;
  }
  return n;
}

int VisitedTable::slot_bytes() const {
  return 8 + (layout_.wide_keys ? 4 : 0) + (layout_.sleep ? 4 : 0) + (layout_.depth ? 4 : 0);
}

int VisitedTable::key_bits() const { return kShardBits + 64 + (layout_.wide_keys ? 32 : 0); }

uint64_t VisitedTable::bytes() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->high.size();
  }
  return n * static_cast<uint64_t>(slot_bytes());
}

}  // namespace lockstep::explore
