// How the exhaustive search remembers the states it has visited, as the
// user chose (SPIN offers the same kinds):
//  - exact: every state kept whole, as the bytes the fingerprint hashes
//    (packed_table.h): two states are one only if they are equal;
//  - fingerprint (the default): fingerprints told apart by 102 of their
//    128 bits, 12 bytes a slot; two states are taken for one with a chance
//    of about n^2 / 2^103 among n states: 10^-15 at a hundred million;
//  - hash compaction: 70 bits, 8 bytes a slot; a search of millions of
//    states has a small but real chance of taking a new state for one it
//    has seen;
//  - bitstate: a few bits a state in a fixed array; far smaller, and it
//    misses states once the array fills.
// The last two make a "safe" verdict probabilistic: the report says so and
// gives ExpectedOmissions, the expected number of states missed (a bound on
// the probability that any was). A violation found is always real.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/explore/bitstate_table.h"
#include "sim/explore/packed_table.h"
#include "sim/explore/storage.h"
#include "sim/explore/visited_table.h"

namespace lockstep::explore {

class StateStore {
 public:
  // `sleep_sets`: the search keeps each state's sleep set; `depths`: each
  // state's depth (with a bound on steps, a state reached sooner than
  // before is explored again). A bit array cannot keep either: there a
  // state is identified together with its sleep set (a state met with
  // another sleep set is explored again, which is sound), and a bound on
  // steps is refused (std::invalid_argument). `threads`: several threads
  // share it (without, an exact or hash-compact table takes no locks).
  StateStore(const StorageOptions& options, bool sleep_sets, bool depths, bool threads);

  // Exact storage keeps the states' bytes: the identity is asked for them.
  bool keeps_states() const { return packed_.has_value(); }

  // As VisitedTable::InsertOrUpdate; `packed` is the state's bytes when
  // keeps_states(). In a bit array `update` is never called: a state met
  // again with the same sleep set is done.
  template <typename Update>
  bool InsertOrUpdate(const Fingerprint& f, std::string_view packed, const VisitedEntry& fresh,
                      Update&& update) {
    if (bits_) return bits_->Insert(f, fresh.sleep);
    if (packed_) return packed_->InsertOrUpdate(f, packed, fresh, update);
    return table_->InsertOrUpdate(f, fresh, update);
  }

  // Starts fetching where InsertOrUpdate(f) will look (fingerprints and
  // hash compaction; a bit array's bits are spread too wide to be worth it,
  // and exact storage reads the state's bytes after its slot).
  void Prefetch(const Fingerprint& f) const {
    if (table_) table_->Prefetch(f);
  }

  uint64_t size() const {
    return bits_ ? bits_->size() : packed_ ? packed_->size() : table_->size();
  }
  uint64_t bytes() const {
    return bits_ ? bits_->bytes() : packed_ ? packed_->bytes() : table_->bytes();
  }
  double ExpectedOmissions() const;

 private:
  StorageOptions options_;
  std::optional<VisitedTable> table_;
  std::optional<PackedTable> packed_;
  std::optional<BitstateTable> bits_;
};

}  // namespace lockstep::explore
