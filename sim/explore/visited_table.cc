#include "sim/explore/visited_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lockstep::explore {

VisitedTable::VisitedTable(Layout layout) : layout_(layout) {
  sleep_word_ = kLowWord + (layout.wide_keys ? 1 : 0);
  depth_word_ = sleep_word_ + (layout.sleep ? 1 : 0);
  stride_ = depth_word_ + (layout.depth ? 1 : 0);
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
  s.count = slots;
  s.words.assign(slots * stride_, 0);
  s.hint_slots.store(s.words.data(), std::memory_order_relaxed);
  s.hint_homes.store(homes, std::memory_order_relaxed);
}

void VisitedTable::Rebuild(Shard& s, size_t homes) const {
  Shard old;
  old.words.swap(s.words);
  old.count = s.count;
  // The keys in ascending order, each at its new home or just after the
  // one before it: the order of the old table is the order of the new.
  // A first pass finds where the last one lands, so the tail always has
  // kTail slots free, however the keys crowd.
  auto place_all = [&](auto&& place) {
    size_t next = 0;
    for (size_t j = 0; j < old.count; ++j) {
      const uint64_t high = High(old.At(j, stride_));
      if (high == 0) continue;
      const size_t i = std::max(Home(high, homes), next);
      place(i, j);
      next = i + 1;
    }
    return next;
  };
  const size_t end = place_all([](size_t, size_t) {});
  Allocate(s, homes, std::max(homes, end) + kTail);
  place_all([&](size_t i, size_t j) {
    std::memcpy(s.At(i, stride_), old.At(j, stride_), stride_ * sizeof(uint32_t));
  });
}

uint64_t VisitedTable::size() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->used;
  }
  return n;
}

int VisitedTable::slot_bytes() const { return stride_ * static_cast<int>(sizeof(uint32_t)); }

int VisitedTable::key_bits() const { return kShardBits + 64 + (layout_.wide_keys ? 32 : 0); }

uint64_t VisitedTable::bytes() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->count;
  }
  return n * static_cast<uint64_t>(slot_bytes());
}

}  // namespace lockstep::explore
