// Values kept once however often they recur, at addresses that never move:
// a client automaton learns hundreds of thousands of transitions at long
// horizons, and their replies, reasons and ghost events are a few hundred
// distinct values between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <utility>

namespace lockstep::world {

// HASH is a function object from const T& to uint64_t.
template <typename T, typename Hash>
class Interned {
 public:
  // The kept value equal to `v`, and whether it was kept just now.
  std::pair<const T*, bool> Keep(const T& v) {
    auto [it, fresh] = values_.insert(v);
    return {&*it, fresh};
  }
  size_t size() const { return values_.size(); }
  // Forgets every value: what Keep returned before is gone.
  void Clear() { values_ = {}; }
  size_t bucket_count() const { return values_.bucket_count(); }

 private:
  struct Hasher {
    size_t operator()(const T& v) const { return static_cast<size_t>(Hash{}(v)); }
  };
  std::unordered_set<T, Hasher> values_;
};

}  // namespace lockstep::world
