#include "sim/explore/packed_table.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/base/check.h"
#include "sim/base/hash.h"
#include "sim/base/varint.h"

namespace lockstep::explore {
namespace {

// A shard's chunks grow from 4 KiB to 1 MiB, each as large as the shard's
// bytes so far: small searches stay small, large ones allocate rarely.
constexpr uint32_t kFirstChunkBytes = uint32_t{4} << 10;
constexpr uint32_t kMaxChunkBytes = uint32_t{1} << 20;
constexpr size_t kFirstSlots = 256;

}  // namespace

PackedTable::PackedTable(bool sleep, bool depth, bool threads, int shard_bits)
    : sleep_(sleep), depth_(depth), threads_(threads), shard_bits_(shard_bits) {
  for (int i = 0; i < (1 << shard_bits); ++i) {
    shards_.push_back(std::make_unique<Shard>());
    Shard& s = *shards_.back();
    s.slots.assign(kFirstSlots, 0);
    if (sleep_) s.sleep.assign(kFirstSlots, 0);
    if (depth_) s.depth.assign(kFirstSlots, 0);
  }
}

PackedTable::~PackedTable() = default;

std::string_view PackedTable::BytesAt(const Shard& s, uint64_t slot) {
  const uint64_t chunk = slot >> kOffsetBits & ((uint64_t{1} << kChunkBits) - 1);
  const char* p = s.chunks[chunk].get() + (slot & ((uint64_t{1} << kOffsetBits) - 1));
  uint64_t length = 0;
  // The table wrote the length itself, within the chunk: it reads whole.
  base::GetVarint(&p, p + base::kMaxVarintBytes, &length);
  return {p, length};
}

size_t PackedTable::Home(uint64_t tag, std::string_view packed, size_t slots) {
  const int bits = std::countr_zero(slots);
  const uint64_t top = tag >> kWhereBits & ((uint64_t{1} << kTagBits) - 1);
  if (bits <= kTagBits) return static_cast<size_t>(top >> (kTagBits - bits));
  const int more = bits - kTagBits;
  return static_cast<size_t>(top << more | (base::HashText(0, packed) >> (64 - more)));
}

size_t PackedTable::Find(const Shard& s, const Fingerprint& f, std::string_view packed) const {
  const size_t mask = s.slots.size() - 1;
  const uint64_t tag = TagOf(f.b);
  constexpr uint64_t kTagMask = ~((uint64_t{1} << kWhereBits) - 1);
  for (size_t i = Home(tag, packed, s.slots.size());; i = (i + 1) & mask) {
    const uint64_t slot = s.slots[i];
    if (slot == 0) return i;
    if ((slot & kTagMask) == tag && BytesAt(s, slot) == packed) return i;
  }
}

void PackedTable::Keep(Shard& s, size_t i, const Fingerprint& f, std::string_view packed,
                       const VisitedEntry& fresh) {
  // Room for the bytes and their length (at most 10 bytes).
  const size_t need = packed.size() + 10;
  if (s.chunks.empty() || s.chunk_used + need > s.chunk_size) {
    // 2^21 chunks of at least 1 MiB each is 2 TiB a shard: the memory
    // bound stops a search long before.
    LOCKSTEP_CHECK(s.chunks.size() < (size_t{1} << kChunkBits),
                   "packed table: a shard's chunks fit their 21 bits");
    const uint64_t grown = std::clamp<uint64_t>(s.chunk_bytes, kFirstChunkBytes, kMaxChunkBytes);
    // A state longer than a chunk gets one of its own, at offset 0, and no
    // other state fits after it (it leaves less than 10 bytes): offsets
    // stay below 2^20.
    s.chunk_size = static_cast<uint32_t>(std::max<uint64_t>(grown, need));
    s.chunks.push_back(std::make_unique_for_overwrite<char[]>(s.chunk_size));
    s.chunk_used = 0;
    s.chunk_bytes += s.chunk_size;
  }
  char* at = s.chunks.back().get() + s.chunk_used;
  const size_t head = base::PutVarint(packed.size(), at);
  std::memcpy(at + head, packed.data(), packed.size());
  s.slots[i] = TagOf(f.b) | uint64_t{s.chunks.size() - 1} << kOffsetBits | s.chunk_used;
  if (sleep_) s.sleep[i] = fresh.sleep;
  if (depth_) s.depth[i] = fresh.depth;
  s.chunk_used += static_cast<uint32_t>(head + packed.size());
  if (++s.used * 4 > s.slots.size() * 3) Grow(s);
}

void PackedTable::Grow(Shard& s) const {
  // Twice the slots, every state placed again by its fingerprint, which
  // its bytes give back.
  std::vector<uint64_t> slots(s.slots.size() * 2, 0);
  std::vector<uint32_t> sleep(sleep_ ? slots.size() : 0), depth(depth_ ? slots.size() : 0);
  const size_t mask = slots.size() - 1;
  for (size_t j = 0; j < s.slots.size(); ++j) {
    if (s.slots[j] == 0) continue;
    const uint64_t slot = s.slots[j];
    size_t i =
        Home(slot, slots.size() > (size_t{1} << kTagBits) ? BytesAt(s, slot) : "", slots.size());
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = s.slots[j];
    if (sleep_) sleep[i] = s.sleep[j];
    if (depth_) depth[i] = s.depth[j];
  }
  s.slots.swap(slots);
  s.sleep.swap(sleep);
  s.depth.swap(depth);
}

uint64_t PackedTable::size() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->used;
  }
  return n;
}

uint64_t PackedTable::bytes() const {
  uint64_t n = 0;
  for (const auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->slots.capacity() * (8 + (sleep_ ? 4 : 0) + (depth_ ? 4 : 0)) + s->chunk_bytes;
  }
  return n;
}

}  // namespace lockstep::explore
