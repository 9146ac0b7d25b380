#include "sim/explore/visited_table.h"

namespace lockstep::explore {

VisitedTable::VisitedTable() {
  for (int i = 0; i < (1 << kShardBits); ++i) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->slots.resize(1024);
  }
}

VisitedTable::~VisitedTable() = default;

void VisitedTable::Grow(Shard& s) {
  std::vector<Slot> old = std::move(s.slots);
  // Growing fourfold halves the rehashing of growing twofold.
  s.slots.assign(old.size() * 4, Slot{});
  const size_t mask = s.slots.size() - 1;
  for (const Slot& slot : old) {
    if (slot.a == 0) continue;
    size_t i = (slot.a * base::kGoldenGamma) >> 20 & mask;
    while (s.slots[i].a != 0) i = (i + 1) & mask;
    s.slots[i] = slot;
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

uint64_t VisitedTable::bytes() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->slots.size() * sizeof(Slot);
  }
  return n;
}

}  // namespace lockstep::explore
