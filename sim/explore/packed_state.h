// A state's identity written out whole, for exact storage: every datum the
// fingerprint hashes (fingerprint.h), in the same canonical client order,
// as bytes that two states share only if the search takes them for one
// state. Numbers are LEB128 varints (times and client names zigzagged, as
// they may be negative), strings their length and bytes: a lock's state is
// a few dozen bytes. Each datum's kind is fixed by its place and the data
// before it, so the bytes read back one way only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace lockstep::explore {

class PackedState {
 public:
  void Clear() { size_ = 0; }
  void Word(uint64_t v) { size_ += PutVarint(v, Room(10)); }
  void Signed(int64_t v) { Word((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  // A 64-bit name (a hash: a client's state): 8 bytes, where a varint of
  // a random word takes 10.
  void Name(uint64_t v) {
    char* p = Room(8);
    for (int k = 0; k < 8; ++k) p[k] = static_cast<char>(v >> (8 * k));
    size_ += 8;
  }
  void Text(std::string_view s) {
    Word(s.size());
    std::memcpy(Room(s.size()), s.data(), s.size());
    size_ += s.size();
  }
  std::string_view bytes() const { return {buffer_.data(), size_}; }

  // `v` as a LEB128 varint at `out`, which has room for 10 bytes; returns
  // the bytes written.
  static size_t PutVarint(uint64_t v, char* out) {
    size_t k = 0;
    while (v >= 0x80) {
      out[k++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    out[k++] = static_cast<char>(v);
    return k;
  }

 private:
  // Where the next `n` bytes go: the buffer grows only while a search
  // warms up, and a datum is written without a check a byte.
  char* Room(size_t n) {
    if (size_ + n > buffer_.size()) buffer_.resize(std::max(2 * buffer_.size(), size_ + n + 64));
    return buffer_.data() + size_;
  }
  std::string buffer_;
  size_t size_ = 0;
};

}  // namespace lockstep::explore
