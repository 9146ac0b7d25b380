// Stable 64-bit hashing and pseudo-random numbers: the same on every machine
// and every run (unlike std::hash and the standard library's distributions),
// for client histories, keyspace digests, state fingerprints and seeds.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace lockstep::base {

// 2^64 / golden ratio: the odd increment of SplitMix64, and the multiplier of
// Fibonacci hashing (it spreads consecutive integers over all bits).
inline constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// SplitMix64's finaliser: a bijection that mixes every input bit into every
// output bit.
inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Mix64's inverse: each xorshift undone by shifting twice, each multiplier
// by its inverse modulo 2^64.
inline uint64_t Unmix64(uint64_t z) {
  z = (z ^ (z >> 31) ^ (z >> 62)) * 0x319642b2d24d8ec3ULL;
  z = (z ^ (z >> 27) ^ (z >> 54)) * 0x96de1b173f119089ULL;
  return z ^ (z >> 30) ^ (z >> 60);
}

inline uint64_t HashCombine(uint64_t h, uint64_t v) { return Mix64(h + kGoldenGamma + v); }

// wyhash's odd constants, for Mum-based mixing (HashText, the state
// fingerprint's mixer).
inline constexpr uint64_t kWyP0 = 0xa0761d6478bd642fULL, kWyP1 = 0xe7037ed1a0b428dbULL,
                          kWyP2 = 0x8ebc6af09c88c6e3ULL, kWyP3 = 0x589965cc75374cc3ULL;

// One 64x64->128-bit multiply folded to 64 bits (as in wyhash): a strong,
// cheap mix of two words.
inline uint64_t Mum(uint64_t a, uint64_t b) {
  __extension__ using U128 = unsigned __int128;  // GCC and Clang have it
  U128 r = static_cast<U128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

// Up to eight bytes of a string as a little-endian word on every host.
inline uint64_t LoadLittle(const char* p, size_t n) {
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// A hash of a string for state fingerprints and memo keys: eight bytes a
// multiply, where HashBytes takes one. Words are read little-endian, so the
// value is the same on every machine (ranks of a distributed search compare
// fingerprints); HashBytes stays for digests that are written down.
inline uint64_t HashText(uint64_t h, std::string_view s) {
  h = Mum(h ^ kWyP0, s.size() ^ kWyP1);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) h = Mum(h ^ LoadLittle(s.data() + i, 8) ^ kWyP0, kWyP1);
  if (i < s.size()) h = Mum(h ^ LoadLittle(s.data() + i, s.size() - i) ^ kWyP0, kWyP1);
  return Mix64(h);
}

// FNV-1a 64, streaming: fixed by its definition, so digests agree across
// machines.
class Fnv1a {
 public:
  void Bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ULL;
  }
  // Little-endian regardless of the host, for a stable value.
  void U64(uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
    Bytes(b, sizeof(b));
  }
  // Length-prefixed, so field boundaries cannot be confused.
  void Str(std::string_view s) {
    U64(s.size());
    Bytes(s.data(), s.size());
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

inline uint64_t HashBytes(uint64_t h, std::string_view s) {
  Fnv1a f;
  f.Bytes(s.data(), s.size());
  return HashCombine(HashCombine(h, s.size()), f.value());
}

// SplitMix64: a small generator whose draws are the same everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix64(state_ += kGoldenGamma); }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    // Rejection sampling keeps it exactly uniform.
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = Next();
    while (x >= limit);
    return x % n;
  }

 private:
  uint64_t state_;
};

}  // namespace lockstep::base
