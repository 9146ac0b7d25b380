// The visited table against a plain map of the bits it keeps: the same
// answers for random fingerprints and for keys crowded at a shard's end,
// payloads kept per layout, and the bytes a state it promises.
#include "sim/explore/visited_table.h"

#include <cstdint>
#include <map>
#include <tuple>

#include <catch2/catch.hpp>

#include "sim/base/hash.h"

namespace lockstep {
namespace {

using explore::Fingerprint;
using explore::VisitedEntry;
using explore::VisitedTable;

// What the table tells apart: all of `a` and the top 38 bits of `b` (the
// top 6 only, with 64-bit keys).
std::tuple<uint64_t, uint64_t> KeptBits(const Fingerprint& f, bool wide) {
  return {f.a, f.b >> (wide ? 26 : 58)};
}

// Inserts `f` into both, the payload's sleep set kept as the smallest seen,
// and checks that they agree.
void InsertBoth(VisitedTable& table, std::map<std::tuple<uint64_t, uint64_t>, VisitedEntry>& model,
                const Fingerprint& f, uint32_t sleep, bool wide) {
  const VisitedEntry fresh{sleep, sleep + 7};
  VisitedEntry seen{};
  const bool added = table.InsertOrUpdate(f, fresh, [&](VisitedEntry& e) {
    seen = e;
    e.sleep = std::min(e.sleep, sleep);
  });
  auto [it, model_added] = model.try_emplace(KeptBits(f, wide), fresh);
  REQUIRE(added == model_added);
  if (!added) {
    CHECK(seen.sleep == it->second.sleep);
    CHECK(seen.depth == it->second.depth);
    it->second.sleep = std::min(it->second.sleep, sleep);
  }
}

TEST_CASE("the visited table answers as a map of the fingerprint bits it keeps") {
  for (bool wide : {true, false}) {
    INFO("wide keys " << wide);
    // One thread: the table takes no locks then (they change no answer).
    VisitedTable table({.wide_keys = wide, .sleep = true, .depth = true, .threads = !wide});
    std::map<std::tuple<uint64_t, uint64_t>, VisitedEntry> model;
    base::SplitMix64 rng(wide ? 11 : 12);
    std::vector<Fingerprint> kept;
    for (int i = 0; i < 60'000; ++i) {
      // Mostly new fingerprints, a third of them ones seen before.
      Fingerprint f{rng.Next(), rng.Next()};
      if (!kept.empty() && rng.Next() % 3 == 0) f = kept[rng.Next() % kept.size()];
      kept.push_back(f);
      InsertBoth(table, model, f, static_cast<uint32_t>(rng.Next() % 100), wide);
    }
    CHECK(table.size() == model.size());
    CHECK(table.size() > 40'000);  // the shards grew many times over
  }
}

TEST_CASE("the visited table keeps keys crowded at a shard's end and keys that differ late") {
  for (bool wide : {true, false}) {
    INFO("wide keys " << wide);
    // One thread: the table takes no locks then (they change no answer).
    VisitedTable table({.wide_keys = wide, .sleep = true, .depth = true, .threads = !wide});
    std::map<std::tuple<uint64_t, uint64_t>, VisitedEntry> model;
    base::SplitMix64 rng(5);
    // Shard 0, the highest keys it can hold: all of them want the last few
    // homes, far more than the slots past the end.
    for (int i = 0; i < 3'000; ++i) {
      const Fingerprint f{(~uint64_t{0} >> 6) - (rng.Next() >> 40), rng.Next()};
      InsertBoth(table, model, f, static_cast<uint32_t>(i % 5), wide);
      InsertBoth(table, model, f, 9, wide);
    }
    // Fingerprints that differ only in bits 26-57 of b: apart with wide
    // keys, one state with narrow ones. Zero fingerprints among them.
    for (uint64_t i = 0; i < 500; ++i) {
      InsertBoth(table, model, {0, i << 26}, 1, wide);
      InsertBoth(table, model, {uint64_t{7} << 58, i << 26 | 3}, 2, wide);
    }
    CHECK(table.size() == model.size());
    CHECK(table.size() == (wide ? 4'000 : 3'002));
  }
}

TEST_CASE("the visited table keeps only the payload its layout names") {
  VisitedTable table({.wide_keys = true, .sleep = false, .depth = true});
  const Fingerprint f{base::Mix64(1), base::Mix64(2)};
  CHECK(table.InsertOrUpdate(f, {5, 9}, [](VisitedEntry&) {}));
  VisitedEntry seen{1, 1};
  CHECK_FALSE(table.InsertOrUpdate(f, {6, 10}, [&](VisitedEntry& e) { seen = e; }));
  CHECK(seen.sleep == 0);
  CHECK(seen.depth == 9);
  CHECK(table.slot_bytes() == 16);
  CHECK(table.key_bits() == 102);
  CHECK(VisitedTable({.wide_keys = false, .sleep = false, .depth = false}).key_bits() == 70);
}

TEST_CASE("the exact visited table takes at most 16 bytes a state as it grows") {
  // Keys alone, as the search without sleep sets or a bound on steps keeps
  // them: 12 bytes a slot, the shards 7/10 to 7/8 full at staggered times.
  VisitedTable table({.wide_keys = true, .sleep = false, .depth = false});
  base::SplitMix64 rng(3);
  double most = 0, least = 1e9;
  for (uint64_t n = 1; n <= 2'000'000; ++n) {
    table.InsertOrUpdate({rng.Next(), rng.Next()}, {}, [](VisitedEntry&) {});
    if (n >= 250'000 && n % 50'000 == 0) {
      const double per_state = static_cast<double>(table.bytes()) / static_cast<double>(n);
      most = std::max(most, per_state);
      least = std::min(least, per_state);
    }
  }
  INFO("bytes a state from " << least << " to " << most);
  CHECK(most <= 16.0);
  CHECK(least >= 12.0);
}

TEST_CASE(
    "the table's arrays of 2 MiB or more start on a 2 MiB boundary and hold what they are given") {
  using Allocator = explore::HugePageAllocator<uint64_t>;
  constexpr size_t kHuge = Allocator::kHugePage / sizeof(uint64_t);
  for (size_t n : {size_t{1000}, kHuge - 1, kHuge, kHuge + 12345, 3 * kHuge}) {
    INFO(n << " elements");
    std::vector<uint64_t, Allocator> v(n, 0);
    if (n >= kHuge) CHECK(reinterpret_cast<uintptr_t>(v.data()) % Allocator::kHugePage == 0);
    for (size_t i = 0; i < n; i += 997) v[i] = i * 3 + 1;
    std::vector<uint64_t, Allocator> grown;
    grown.swap(v);
    grown.resize(n + kHuge / 2, 7);
    for (size_t i = 0; i < n; i += 997) CHECK(grown[i] == i * 3 + 1);
    CHECK(grown.back() == 7);
  }
}

}  // namespace
}  // namespace lockstep
