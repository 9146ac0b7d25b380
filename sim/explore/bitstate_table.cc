#include "sim/explore/bitstate_table.h"

#include <cmath>

#include "sim/base/check.h"
#include "sim/base/hash.h"

namespace lockstep::explore {

BitstateTable::BitstateTable(int log2_bits, int hashes) : log2_bits_(log2_bits), hashes_(hashes) {
  LOCKSTEP_CHECK(log2_bits >= 10 && log2_bits <= 40 && hashes >= 1 && hashes <= 16,
                 "a bit array of 2^10 to 2^40 bits, 1 to 16 bits per state");
  // Value-initialised: every bit clear.
  words_ = std::make_unique<std::atomic<uint64_t>[]>(size_t{1} << (log2_bits - 6));
}

bool BitstateTable::Insert(const Fingerprint& f, uint32_t salt) {
  // Double hashing: bit i is h1 + i * h2, two independent 64-bit hashes of
  // the fingerprint and the salt (h2 odd, so the k bits differ).
  const uint64_t h1 = base::Mix64(f.a ^ base::Mix64(uint64_t{salt} + base::kGoldenGamma));
  const uint64_t h2 = base::Mix64(f.b + salt) | 1;
  bool fresh = false;
  for (int i = 0; i < hashes_; ++i) {
    const uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) >> (64 - log2_bits_);
    const uint64_t mask = uint64_t{1} << (bit & 63);
    if (!(words_[bit >> 6].fetch_or(mask, std::memory_order_relaxed) & mask)) fresh = true;
  }
  if (fresh) inserted_.fetch_add(1, std::memory_order_relaxed);
  return fresh;
}

double BitstateTable::ExpectedOmissions() const {
  // The sum over i from 0 to n, as an integral by Simpson's rule: the
  // integrand is smooth and increasing, and 512 intervals are plenty.
  const double n = static_cast<double>(size());
  const double m = std::ldexp(1.0, log2_bits_);
  const double k = hashes_;
  // A state met after i insertions is missed with chance p = (1 -
  // e^(-k i / m))^k, and each miss leaves the array as it was: the misses
  // at that fill number p / (1 - p) on average.
  auto rate = [&](double i) {
    const double p = std::pow(1 - std::exp(-k * i / m), k);
    return p / (1 - p);
  };
  constexpr int kIntervals = 512;
  const double h = n / kIntervals;
  double sum = rate(0) + rate(n);
  for (int j = 1; j < kIntervals; ++j) sum += rate(j * h) * (j % 2 ? 4 : 2);
  return sum * h / 3;
}

}  // namespace lockstep::explore
