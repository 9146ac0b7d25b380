#include "sim/kv/text.h"

#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "sim/base/hash.h"

namespace lockstep::kv {

namespace {

// The search's threads keep texts at once: the kept ones are spread over
// shards by hash, each under its own lock, and each thread remembers the
// texts it met last, so that a value written again takes no lock.
constexpr int kShardBits = 6;
constexpr size_t kRecent = 1024;

struct Shard {
  std::mutex mutex;
  std::unordered_multimap<uint64_t, const Text::Kept*> by_hash;
  std::deque<Text::Kept> kept;  // a deque: what it holds never moves
};

std::array<Shard, size_t{1} << kShardBits>& Shards() {
  static auto* shards = new std::array<Shard, size_t{1} << kShardBits>;  // never freed: see text.h
  return *shards;
}

std::atomic<uint64_t> kept_bytes{0};

}  // namespace

Text::Text(std::string_view s) {
  if (s.empty()) return;
  const uint64_t h = base::HashText(0, s);
  thread_local std::array<const Kept*, kRecent> recent{};
  const Kept*& last = recent[h & (kRecent - 1)];
  if (last != nullptr && last->hash == h && last->bytes == s) {
    kept_ = last;
    return;
  }
  Shard& shard = Shards()[h >> (64 - kShardBits)];
  std::lock_guard lock(shard.mutex);
  auto [it, end] = shard.by_hash.equal_range(h);
  while (it != end && it->second->bytes != s) ++it;
  if (it != end) {
    kept_ = it->second;
  } else {
    kept_ = &shard.kept.emplace_back(Kept{std::string(s), h});
    shard.by_hash.emplace(h, kept_);
    // The string's buffer beyond the kept record, and the index's node.
    const uint64_t buffer = s.size() > std::string().capacity() ? s.size() + 1 : 0;
    kept_bytes.fetch_add(sizeof(Kept) + buffer + 4 * sizeof(void*), std::memory_order_relaxed);
  }
  last = kept_;
}

uint64_t Text::KeptBytes() { return kept_bytes.load(std::memory_order_relaxed); }

const std::string& Text::EmptyString() {
  static const std::string kEmpty;
  return kEmpty;
}

}  // namespace lockstep::kv
