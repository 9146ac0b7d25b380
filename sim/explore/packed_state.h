// A state's identity written out whole, for exact storage: every datum the
// fingerprint hashes (fingerprint.h), in the same canonical client order,
// as bytes that two states share only if the search takes them for one
// state. Numbers are varints (sim/base/varint.h; times and client names
// zigzagged, as they may be negative), strings their length and bytes: a
// lock's state is a few dozen bytes. Each datum's kind is fixed by its
// place and the data before it, so the bytes read back one way only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "sim/base/varint.h"

namespace lockstep::explore {

class PackedState {
 public:
  void Clear() { size_ = 0; }
  void Word(uint64_t v) { size_ += base::PutVarint(v, Room(base::kMaxVarintBytes)); }
  void Signed(int64_t v) { Word(base::ZigZag(v)); }
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
