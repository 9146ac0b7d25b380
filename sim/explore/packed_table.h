// The set of visited states kept whole (`explore --storage exact`): each
// state's packed bytes (packed_state.h) in an arena, found through an
// open-addressing index by fingerprint, and compared byte for byte. Two
// states are taken for one only if their bytes are equal, so a SAFE
// verdict owes nothing to chance. A slot of the index is 8 bytes: 23 bits
// of the fingerprint, so that most probes that are not the state skip its
// bytes, and where the bytes are; the sleep set and the depth, when the
// search keeps them, in arrays beside it. A slot's place is the top bits
// of the fingerprint's second word, which the slot keeps, so the index
// grows without reading the states (but for shards of over 2^22 slots,
// where the rest comes from a hash of the bytes). Sharded by fingerprint, each
// shard behind its own lock, as VisitedTable.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "sim/explore/fingerprint.h"
#include "sim/explore/visited_table.h"

namespace lockstep::explore {

class PackedTable {
 public:
  // `sleep`, `depth`: keep each state's sleep set, its depth. 2^shard_bits
  // shards (fewer make a shard's growth past 2^22 slots testable).
  PackedTable(bool sleep, bool depth, bool threads, int shard_bits = 6);
  ~PackedTable();

  // Looks the state up by its fingerprint `f` and its bytes `packed`. If
  // absent, keeps it with `fresh` and returns true; otherwise calls
  // update(entry) under the shard's lock and returns false.
  template <typename Update>
  bool InsertOrUpdate(const Fingerprint& f, std::string_view packed, const VisitedEntry& fresh,
                      Update&& update) {
    Shard& s = *shards_[ShardIndex(f)];
    std::unique_lock<std::mutex> lock(s.mu, std::defer_lock);
    if (threads_) lock.lock();
    const size_t i = Find(s, f, packed);
    if (s.slots[i] != 0) {
      VisitedEntry e{sleep_ ? s.sleep[i] : 0, depth_ ? s.depth[i] : 0};
      update(e);
      if (sleep_) s.sleep[i] = e.sleep;
      if (depth_) s.depth[i] = e.depth;
      return false;
    }
    Keep(s, i, f, packed, fresh);
    return true;
  }

  uint64_t size() const;
  // Bytes held: the indexes and the arenas' chunks.
  uint64_t bytes() const;

 private:
  // A slot: in use (1 bit, so that no slot in use is 0) | the top 22 bits
  // of the fingerprint's second word | chunk (21 bits) | offset in the
  // chunk (20 bits).
  static constexpr int kOffsetBits = 20;
  static constexpr int kChunkBits = 21;
  static constexpr int kWhereBits = kOffsetBits + kChunkBits;
  static constexpr int kTagBits = 22;
  struct Shard {
    std::mutex mu;
    std::vector<uint64_t> slots;  // a power of two, at most 3/4 used; 0: empty
    std::vector<uint32_t> sleep, depth;
    uint64_t used = 0;
    std::vector<std::unique_ptr<char[]>> chunks;
    uint32_t chunk_size = 0;  // of the last chunk
    uint32_t chunk_used = 0;  // bytes used of the last chunk
    uint64_t chunk_bytes = 0;
  };
  // The shard from the fingerprint's first word, the slot and the tag
  // from its second.
  size_t ShardIndex(const Fingerprint& f) const {
    return shard_bits_ == 0 ? 0 : f.a >> (64 - shard_bits_);
  }
  static uint64_t TagOf(uint64_t b) {
    return (b >> (64 - kTagBits) | uint64_t{1} << kTagBits) << kWhereBits;
  }
  // Where a state with this tag and these bytes starts its probe in a
  // shard of `slots` slots (a power of two).
  static size_t Home(uint64_t tag, std::string_view packed, size_t slots);
  // The slot holding the state, or the empty slot where it goes.
  size_t Find(const Shard& s, const Fingerprint& f, std::string_view packed) const;
  void Keep(Shard& s, size_t i, const Fingerprint& f, std::string_view packed,
            const VisitedEntry& fresh);
  void Grow(Shard& s) const;
  static std::string_view BytesAt(const Shard& s, uint64_t slot);

  bool sleep_, depth_, threads_;
  int shard_bits_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace lockstep::explore
