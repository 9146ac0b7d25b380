#include "sim/explore/visited_table.h"

namespace lockstep::explore {

VisitedTable::VisitedTable(Layout layout) : layout_(layout) {
  for (int i = 0; i < (1 << kShardBits); ++i) {
    shards_.push_back(std::make_unique<Shard>());
    Resize(*shards_.back(), 1024);
  }
}

VisitedTable::~VisitedTable() = default;

void VisitedTable::Resize(Shard& s, size_t slots) const {
  s.a.assign(slots, 0);
  if (layout_.wide_keys) s.b.assign(slots, 0);
  if (layout_.sleep) s.sleep.assign(slots, 0);
  if (layout_.depth) s.depth.assign(slots, 0);
}

// Twofold: a fourfold table would rehash less often but sit, on average,
// half as full.
void VisitedTable::Grow(Shard& s) const {
  Shard old;
  old.a.swap(s.a);
  old.b.swap(s.b);
  old.sleep.swap(s.sleep);
  old.depth.swap(s.depth);
  Resize(s, old.a.size() * 2);
  const size_t mask = s.a.size() - 1;
  for (size_t j = 0; j < old.a.size(); ++j) {
    if (old.a[j] == 0) continue;
    size_t i = Home(old.a[j], mask);
    while (s.a[i] != 0) i = (i + 1) & mask;
    s.a[i] = old.a[j];
    if (layout_.wide_keys) s.b[i] = old.b[j];
    SetEntry(s, i, EntryAt(old, j));
  }
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
  return 8 + (layout_.wide_keys ? 8 : 0) + (layout_.sleep ? 4 : 0) + (layout_.depth ? 4 : 0);
}

uint64_t VisitedTable::bytes() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->a.size();
  }
  return n * static_cast<uint64_t>(slot_bytes());
}

}  // namespace lockstep::explore
