// Stable 64-bit hashing (the same on every machine and every run), for
// client histories and state fingerprints.
#pragma once

#include <cstdint>
#include <string_view>

namespace lockstep::world {

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t HashCombine(uint64_t h, uint64_t v) {
  return Mix64(h + 0x9e3779b97f4a7c15ULL + v);
}

inline uint64_t HashBytes(uint64_t h, std::string_view s) {
  uint64_t f = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : s) f = (f ^ c) * 0x100000001b3ULL;
  return HashCombine(HashCombine(h, s.size()), f);
}

}  // namespace lockstep::world
