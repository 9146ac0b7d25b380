// The set of visited states, as fingerprints, each with the payload the
// search needs of it: the sleep set it was explored with (with sleep sets)
// and the depth it was reached at (with a bound on steps). Sharded, each
// shard a table behind its own lock, so several search threads can share it.
//
// Compact by design (about 15 bytes a state in exact mode, see Layout):
//  - A key is 96 bits of the fingerprint in 12 bytes (hash compaction: 64
//    bits in 8), and the 6 bits that choose the shard are not stored, as
//    every key in a shard shares them: 102 bits (70) tell states apart.
//  - Each shard is an ordered hash table (Amble and Knuth): a key's home
//    slot rises with the key, and the keys lie in ascending order, each at
//    or after its home. A lookup stops at the first larger key, so the
//    table can run 7/8 full and still answer in a few probes; an insertion
//    shifts the keys up to the next empty slot by one.
//  - Because the order does not depend on the table's size, growing is one
//    pass that copies the keys in order. So a table grows by a quarter at a
//    time, not by doubling, and stays between 7/10 and 7/8 full; the shards
//    start at staggered sizes, so they do not all grow at once and the
//    whole table's fill stays near the middle of that range.
// Each field lives in its own array, so a slot costs exactly the fields in
// use.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sim/explore/fingerprint.h"
#include "sim/explore/huge_page_allocator.h"

namespace lockstep::explore {

struct VisitedEntry {
  uint32_t sleep = 0;  // sleep set, canonical numbering (see dfs_search.cc)
  uint32_t depth = 0;
};

class VisitedTable {
 public:
  struct Layout {
    bool wide_keys = true;  // 96-bit stored keys; false: 64 bits (hash compaction)
    bool sleep = true;      // store each state's sleep set
    bool depth = true;      // store each state's depth
    bool threads = true;    // shared by several threads: a shard locks per call
  };
  explicit VisitedTable(Layout layout);
  ~VisitedTable();

  // Looks `f` up. If absent, inserts it with `fresh` and returns true.
  // Otherwise calls update(entry) under the shard's lock and returns false.
  // Fields the layout does not store read as 0 and are not kept.
  template <typename Update>
  bool InsertOrUpdate(const Fingerprint& f, const VisitedEntry& fresh, Update&& update);

  // Asks the processor to fetch the slot where `f`'s lookup will start, so
  // that a caller with other work to do first overlaps the cache miss.
  // Takes no lock: a concurrent rebuild at worst makes it fetch in vain.
  void Prefetch(const Fingerprint& f) const {
    const Shard& s = *shards_[ShardIndex(f)];
    const uint64_t* high = s.hint_high.load(std::memory_order_relaxed);
    const size_t homes = s.hint_homes.load(std::memory_order_relaxed);
    const size_t home = Home(KeyOf(f).high, homes);
    __builtin_prefetch(high + home);
    // The parallel arrays the lookup reads miss the cache as well.
    if (const uint32_t* low = s.hint_low.load(std::memory_order_relaxed)) {
      __builtin_prefetch(low + home);
    }
    if (const uint32_t* sleep = s.hint_sleep.load(std::memory_order_relaxed)) {
      __builtin_prefetch(sleep + home);
    }
  }

  uint64_t size() const;
  // Bytes held by the tables.
  uint64_t bytes() const;
  // Bytes one slot takes.
  int slot_bytes() const;
  // How many bits of a fingerprint tell two states apart: two states whose
  // fingerprints agree on these are taken for one.
  int key_bits() const;

 private:
  static constexpr int kShardBits = 6;
  // Slots past the last key a rebuild places, so that keys near the end
  // need not wrap; the last slot stays empty and ends every scan.
  static constexpr size_t kTail = 64;

  // A fingerprint as the table keeps it: `high` is never 0 (0 marks an
  // empty slot), `low` is kept only with wide keys.
  struct Key {
    uint64_t high;
    uint32_t low;
  };
  static Key KeyOf(const Fingerprint& f) {
    const uint64_t high = f.a << kShardBits | f.b >> (64 - kShardBits);
    return {high == 0 ? 1 : high, static_cast<uint32_t>(f.b >> (32 - kShardBits))};
  }
  static size_t ShardIndex(const Fingerprint& f) { return f.a >> (64 - kShardBits); }

  struct Shard {
    std::mutex mu;
    size_t homes = 0;  // homes lie in [0, homes); the arrays run kTail or more further
    template <typename T>
    using Array = std::vector<T, HugePageAllocator<T>>;
    Array<uint64_t> high;
    Array<uint32_t> low, sleep, depth;
    uint64_t used = 0;
    // The arrays' addresses (null for one the layout does not keep) and
    // homes, for Prefetch, which does not lock.
    std::atomic<const uint64_t*> hint_high{nullptr};
    std::atomic<const uint32_t*> hint_low{nullptr}, hint_sleep{nullptr};
    std::atomic<size_t> hint_homes{0};
  };
  // Rises with `high`: the product's top 64 bits scale it into [0, homes).
  static size_t Home(uint64_t high, size_t homes) {
    __extension__ using U128 = unsigned __int128;  // GCC and Clang have it
    return static_cast<size_t>((static_cast<U128>(high) * homes) >> 64);
  }
  void Allocate(Shard& s, size_t homes, size_t slots) const;
  // Rebuilds `s` with `homes` homes, and slots enough for its keys and kTail
  // more.
  void Rebuild(Shard& s, size_t homes) const;
  // Moves slots [from, to) up by one.
  void ShiftUp(Shard& s, size_t from, size_t to) const;
  void Place(Shard& s, size_t i, const Key& k, const VisitedEntry& e) const {
    s.high[i] = k.high;
    if (layout_.wide_keys) s.low[i] = k.low;
    SetEntry(s, i, e);
  }
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
  const Key k = KeyOf(f);
  Shard& s = *shards_[ShardIndex(f)];
  std::unique_lock<std::mutex> lock(s.mu, std::defer_lock);
  if (layout_.threads) lock.lock();
  // At most 7/8 of the homes used: the runs of full slots stay short.
  if ((s.used + 1) * 8 > s.homes * 7) Rebuild(s, s.homes + s.homes / 4);
  for (;;) {
    size_t i = Home(k.high, s.homes);
    while (s.high[i] != 0 && s.high[i] < k.high) ++i;
    for (; s.high[i] == k.high; ++i) {
      if (!layout_.wide_keys || s.low[i] == k.low) {
        VisitedEntry e = EntryAt(s, i);
        update(e);
        SetEntry(s, i, e);
        return false;
      }
    }
    // Absent: i is its place. Make room by moving the run after it up.
    size_t empty = i;
    while (s.high[empty] != 0) ++empty;
    if (empty + 1 < s.high.size()) {
      ShiftUp(s, i, empty);
      Place(s, i, k, fresh);
      ++s.used;
      return true;
    }
    // The run would reach the last slot, which must stay empty: a rebuild
    // leaves kTail slots free after the last key.
    Rebuild(s, s.homes + s.homes / 4);
  }
}

}  // namespace lockstep::explore
