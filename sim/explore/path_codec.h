// The wire form of the distributed search's states: a state travels as its
// fingerprint and the path that reaches it, not as its value (a client's
// automaton state is a number in the process that learned it, and a path
// is far smaller than a state). An action takes two bytes (its kind with
// flags, its client), followed by whichever of its argument age, jump and
// server are not zero, as varints: most steps take two bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/explore/fingerprint.h"
#include "sim/world/action.h"

namespace lockstep::explore {

void PutU64(std::string& out, uint64_t v);
void PutVarint(std::string& out, uint64_t v);
void PutAction(std::string& out, const world::Action& a);
// The number of steps, then each step.
void PutPath(std::string& out, const std::vector<world::Action>& path);
void PutFingerprint(std::string& out, const Fingerprint& f);

// Reads what the Put functions wrote. A message that ends early or holds a
// bad number is an internal error (LOCKSTEP_CHECK): only ranks of one
// search write them.
class Reader {
 public:
  explicit Reader(const std::string& s, size_t at = 0) : s_(s), at_(at) {}
  bool done() const { return at_ == s_.size(); }
  uint8_t Byte();
  uint64_t U64();
  uint64_t Varint();
  Fingerprint Print();
  world::Action Step();
  std::vector<world::Action> Path();
  // `n` bytes as they are.
  std::string Bytes(size_t n);

 private:
  void Take(void* to, size_t n);
  const std::string& s_;
  size_t at_ = 0;
};

// The actions PutAction encoded in `steps`, into *path.
void Decode(const std::string& steps, std::vector<world::Action>* path);

}  // namespace lockstep::explore
