// The set of visited states, as fingerprints, each with a small payload:
// the sleep set it was explored with and the depth it was reached at.
// Sharded, each shard an open-addressing table behind its own lock, so
// several search threads can share it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sim/base/hash.h"
#include "sim/explore/fingerprint.h"

namespace lockstep::explore {

struct VisitedEntry {
  uint32_t sleep = 0;  // sleep set, canonical numbering (see dfs_search.cc)
  uint32_t depth = 0;
};

class VisitedTable {
 public:
  VisitedTable();
  ~VisitedTable();

  // Looks `f` up. If absent, inserts it with `fresh` and returns true.
  // Otherwise calls update(entry) under the shard's lock and returns false.
  template <typename Update>
  bool InsertOrUpdate(const Fingerprint& f, const VisitedEntry& fresh, Update&& update);

  uint64_t size() const;
  // Bytes held by the tables.
  uint64_t bytes() const;

 private:
  struct Slot {
    uint64_t a = 0, b = 0;  // a == 0 marks an empty slot (fingerprints avoid it)
    VisitedEntry entry;
  };
  struct Shard {
    std::mutex mu;
    std::vector<Slot> slots;
    uint64_t used = 0;
  };
  static constexpr int kShardBits = 6;
  Shard& ShardOf(uint64_t a) { return *shards_[a >> (64 - kShardBits)]; }
  static void Grow(Shard& s);
  std::vector<std::unique_ptr<Shard>> shards_;
};

template <typename Update>
bool VisitedTable::InsertOrUpdate(const Fingerprint& f, const VisitedEntry& fresh,
                                  Update&& update) {
  const uint64_t a = f.a == 0 ? 1 : f.a;
  Shard& s = ShardOf(a);
  std::lock_guard<std::mutex> lock(s.mu);
  if ((s.used + 1) * 10 > s.slots.size() * 7) Grow(s);
  const size_t mask = s.slots.size() - 1;
  for (size_t i = (a * base::kGoldenGamma) >> 20 & mask;; i = (i + 1) & mask) {
    Slot& slot = s.slots[i];
    if (slot.a == 0) {
      slot.a = a;
      slot.b = f.b;
      slot.entry = fresh;
      ++s.used;
      return true;
    }
    if (slot.a == a && slot.b == f.b) {
      update(slot.entry);
      return false;
    }
  }
}

}  // namespace lockstep::explore
