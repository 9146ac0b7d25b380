// Numbers as LEB128 varints (7 bits a byte, the high bit set on every byte
// but the last), signed ones zigzagged first (0, -1, 1, -2, ... as 0, 1,
// 2, 3, ...): the one encoding of exact storage's states and the
// distributed search's messages.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lockstep::base {

inline constexpr size_t kMaxVarintBytes = 10;

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Writes `v` at `out`, which has room for kMaxVarintBytes; returns the
// bytes written.
inline size_t PutVarint(uint64_t v, char* out) {
  size_t k = 0;
  for (; v >= 0x80; v >>= 7) out[k++] = static_cast<char>(v | 0x80);
  out[k++] = static_cast<char>(v);
  return k;
}

// Reads a varint from [*p, end) into *v and moves *p past it; false if the
// bytes end first or it runs past kMaxVarintBytes.
inline bool GetVarint(const char** p, const char* end, uint64_t* v) {
  uint64_t value = 0;
  for (size_t k = 0; k < kMaxVarintBytes && *p < end; ++k) {
    const auto byte = static_cast<unsigned char>(*(*p)++);
    value |= uint64_t{byte & 0x7fu} << (7 * k);
    if (byte < 0x80) {
      *v = value;
      return true;
    }
  }
  return false;
}

}  // namespace lockstep::base
