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
// A slot's fields lie together, 32-bit words one after another, so a
// lookup that misses the cache misses once, and a slot costs exactly the
// fields in use.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
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
    const uint32_t* slots = s.hint_slots.load(std::memory_order_relaxed);
    const size_t homes = s.hint_homes.load(std::memory_order_relaxed);
    const uint32_t* home = slots + Home(KeyOf(f).high, homes) * stride_;
    __builtin_prefetch(home);
    __builtin_prefetch(home + stride_ - 1);  // a slot may straddle two lines
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
    size_t homes = 0;  // homes lie in [0, homes); the slots run kTail or more further
    size_t count = 0;  // slots
    // stride_ words a slot: the key's high word (two), then low, sleep and
    // depth as the layout keeps them.
    std::vector<uint32_t, HugePageAllocator<uint32_t>> words;
    uint64_t used = 0;
    // The slots' address and homes, for Prefetch, which does not lock.
    std::atomic<const uint32_t*> hint_slots{nullptr};
    std::atomic<size_t> hint_homes{0};

    uint32_t* At(size_t i, int stride) { return words.data() + i * stride; }
    const uint32_t* At(size_t i, int stride) const { return words.data() + i * stride; }
  };
  // Slot `p`'s high word; 0 marks it empty.
  static uint64_t High(const uint32_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // Rises with `high`: the product's top 64 bits scale it into [0, homes).
  static size_t Home(uint64_t high, size_t homes) {
    __extension__ using U128 = unsigned __int128;  // GCC and Clang have it
    return static_cast<size_t>((static_cast<U128>(high) * homes) >> 64);
  }
  void Allocate(Shard& s, size_t homes, size_t slots) const;
  // Rebuilds `s` with `homes` homes, and slots enough for its keys and kTail
  // more.
  void Rebuild(Shard& s, size_t homes) const;
  void Place(uint32_t* p, const Key& k, const VisitedEntry& e) const {
    std::memcpy(p, &k.high, sizeof k.high);
    if (layout_.wide_keys) p[kLowWord] = k.low;
    SetEntry(p, e);
  }
  // A slot's payload, the fields the layout does not keep as 0; and back.
  VisitedEntry EntryAt(const uint32_t* p) const {
    return {layout_.sleep ? p[sleep_word_] : 0, layout_.depth ? p[depth_word_] : 0};
  }
  void SetEntry(uint32_t* p, const VisitedEntry& e) const {
    if (layout_.sleep) p[sleep_word_] = e.sleep;
    if (layout_.depth) p[depth_word_] = e.depth;
  }
  static constexpr int kLowWord = 2;
  Layout layout_;
  int sleep_word_, depth_word_;  // where in a slot they lie, if kept
  int stride_;                   // words a slot
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
    uint32_t* p = s.At(Home(k.high, s.homes), stride_);
    while (High(p) != 0 && High(p) < k.high) p += stride_;
    for (; High(p) == k.high; p += stride_) {
      if (!layout_.wide_keys || p[kLowWord] == k.low) {
        VisitedEntry e = EntryAt(p);
        update(e);
        SetEntry(p, e);
        return false;
      }
    }
    // Absent: p is its place. Make room by moving the run after it up.
    uint32_t* empty = p;
    while (High(empty) != 0) empty += stride_;
    if (empty + stride_ < s.At(s.count, stride_)) {
      std::memmove(p + stride_, p, (empty - p) * sizeof(uint32_t));
      Place(p, k, fresh);
      ++s.used;
      return true;
    }
    // The run would reach the last slot, which must stay empty: a rebuild
    // leaves kTail slots free after the last key.
    Rebuild(s, s.homes + s.homes / 4);
  }
}

}  // namespace lockstep::explore
