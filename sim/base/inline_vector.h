// A vector of at most N trivially copyable elements held in place, for a
// state's clients: a state copied from another copies them with it, the
// elements in use and no more, and reaching one follows no pointer.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "sim/base/check.h"

namespace lockstep::base {

template <typename T, int N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "copied as bytes");

 public:
  InlineVector() = default;
  InlineVector(const InlineVector& o) : size_(o.size_) {
    std::copy_n(o.items_.begin(), size_, items_.begin());
  }
  InlineVector& operator=(const InlineVector& o) {
    size_ = o.size_;
    std::copy_n(o.items_.begin(), size_, items_.begin());
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // New elements are T{}.
  void resize(size_t n) {
    LOCKSTEP_CHECK(n <= N, "inline-vector: no more elements than it holds");
    std::fill(items_.begin() + std::min<size_t>(size_, n), items_.begin() + n, T{});
    size_ = static_cast<uint32_t>(n);
  }

  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  T* begin() { return items_.data(); }
  T* end() { return items_.data() + size_; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }

 private:
  std::array<T, N> items_{};
  uint32_t size_ = 0;
};

}  // namespace lockstep::base
