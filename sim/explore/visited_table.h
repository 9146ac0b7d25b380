// The set of visited states, as fingerprints, each with the payload the
// search needs of it: the sleep set it was explored with (with sleep sets)
// and the depth it was reached at (with a bound on steps). Sharded, each
// shard an open-addressing table behind its own lock, so several search
// threads can share it.
//
// Keys are 128-bit fingerprints, or with hash compaction their first 64
// bits only: 8 bytes a slot instead of 16, at the price of a chance that
// two states share a key and the second is taken as visited
// (state_store.h estimates it). Each field lives in its own array, so a
// slot costs exactly the fields in use.
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
  struct Layout {
    bool wide_keys = true;  // 128-bit keys; false: 64-bit (hash compaction)
    bool sleep = true;      // store each state's sleep set
    bool depth = true;      // store each state's depth
  };
  explicit VisitedTable(Layout layout);
  ~VisitedTable();

  // Looks `f` up. If absent, inserts it with `fresh` and returns true.
  // Otherwise calls update(entry) under the shard's lock and returns false.
  // Fields the layout does not store read as 0 and are not kept.
  template <typename Update>
  bool InsertOrUpdate(const Fingerprint& f, const VisitedEntry& fresh, Update&& update);

  uint64_t size() const;
  // Bytes held by the tables.
  uint64_t bytes() const;
  // Bytes one slot takes.
  int slot_bytes() const;

 private:
  struct Shard {
    std::mutex mu;
    std::vector<uint64_t> a, b;  // a == 0 marks an empty slot (keys avoid it)
    std::vector<uint32_t> sleep, depth;
    uint64_t used = 0;
  };
  static constexpr int kShardBits = 6;
  Shard& ShardOf(uint64_t a) { return *shards_[a >> (64 - kShardBits)]; }
  void Resize(Shard& s, size_t slots) const;
  void Grow(Shard& s) const;
  static size_t Home(uint64_t a, size_t mask) { return (a * base::kGoldenGamma) >> 20 & mask; }
  // Slot i's payload, the fields the layout does not keep as 0; and back.
  VisitedEntry EntryAt(const Shard& s, size_t i) const {
    return {layout_.sleep ? s.sleep[i] : 0, layout_.depth ? s.depth[i] : 0};
  }
  void SetEntry(Shard& s, size_t i, const VisitedEntry& e) const {
    if (layout_.sleep) s.sleep[i] = e.sleep;
    if (layout_.depth) s.depth[i] = e.depth;
  }
  Layout layout_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

template <typename Update>
bool VisitedTable::InsertOrUpdate(const Fingerprint& f, const VisitedEntry& fresh,
                                  Update&& update) {
  const uint64_t a = f.a == 0 ? 1 : f.a;
  Shard& s = ShardOf(a);
  std::lock_guard<std::mutex> lock(s.mu);
  // At most 3/4 full: linear probing stays short.
  if ((s.used + 1) * 4 > s.a.size() * 3) Grow(s);
  const size_t mask = s.a.size() - 1;
  for (size_t i = Home(a, mask);; i = (i + 1) & mask) {
    if (s.a[i] == 0) {
      s.a[i] = a;
      if (layout_.wide_keys) s.b[i] = f.b;
      SetEntry(s, i, fresh);
      ++s.used;
      return true;
    }
    if (s.a[i] == a && (!layout_.wide_keys || s.b[i] == f.b)) {
      VisitedEntry e = EntryAt(s, i);
      update(e);
      SetEntry(s, i, e);
      return false;
    }
  }
}

}  // namespace lockstep::explore
