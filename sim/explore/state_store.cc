#include "sim/explore/state_store.h"

#include <cmath>
#include <stdexcept>

namespace lockstep::explore {

StateStore::StateStore(const StorageOptions& options, bool sleep_sets, bool depths, bool threads)
    : options_(options) {
  if (options.kind == Storage::kBitstate) {
    if (depths) {
      throw std::invalid_argument(
          "bitstate storage cannot bound the steps: a state reached again at a smaller depth "
          "must be explored again, and a bit array does not keep depths");
    }
    bits_.emplace(options.bitstate_log2_bits, options.bitstate_hashes);
  } else if (options.kind == Storage::kExact) {
    packed_.emplace(sleep_sets, depths, threads);
  } else {
    table_.emplace(VisitedTable::Layout{.wide_keys = options.kind == Storage::kFingerprint,
                                        .sleep = sleep_sets,
                                        .depth = depths,
                                        .threads = threads});
  }
}

double StateStore::ExpectedOmissions() const {
  if (bits_) return bits_->ExpectedOmissions();
  if (packed_) return 0;  // nothing is taken for another
  // A new state is missed if its key equals one of the i stored: summed over
  // the n insertions, n(n-1)/2 pairs, each equal with chance 2^-bits.
  const double n = static_cast<double>(size());
  return n * (n - 1) / 2 * std::ldexp(1.0, -table_->key_bits());
}

}  // namespace lockstep::explore
