// Bitstate hashing (Holzmann's "supertrace"): a visited state is k bits set
// in one large bit array, with no key stored at all. A state whose k bits
// are all set already is taken as visited, rightly or because other states
// set them: such a state, and what only it leads to, is missed. The
// search's verdict is then a probabilistic one, and ExpectedOmissions says
// how probable.
//
// Lock-free: the bits are set with atomic OR, so the search's threads share
// the array. Two threads that meet the same new state at once may both
// explore it, which is only work done twice.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "sim/explore/fingerprint.h"

namespace lockstep::explore {

class BitstateTable {
 public:
  // 2^log2_bits bits, `hashes` bits per state.
  BitstateTable(int log2_bits, int hashes);

  // Sets the bits of (f, salt); true if one of them was clear (a new state).
  bool Insert(const Fingerprint& f, uint32_t salt);

  // States inserted as new.
  uint64_t size() const { return inserted_.load(); }
  uint64_t bytes() const { return (uint64_t{1} << log2_bits_) / 8; }

  // The expected number of states taken for visited when they were not,
  // over the whole search, from the chance that all k bits of a new state
  // are set already after i insertions into m bits, (1 - e^(-k i / m))^k
  // (the Bloom filter's false-positive rate).
  double ExpectedOmissions() const;

 private:
  int log2_bits_;
  int hashes_;
  std::unique_ptr<std::atomic<uint64_t>[]> words_;
  std::atomic<uint64_t> inserted_{0};
};

}  // namespace lockstep::explore
