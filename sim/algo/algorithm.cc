#include "sim/algo/algorithm.h"

#include "sim/algo/setnx_takeover.h"

namespace lockstep::algo {
namespace {

const AlgorithmInfo kAlgorithms[] = {
    {"setnx-naive",
     "SETNX lock; expired lock taken over with GET, DEL, SETNX (racy)",
     [](const LockSettings& s) -> Body {
       return [s](world::Client& c) { RunSetnxLock(c, s, Takeover::kNaive); };
     }},
    {"setnx-getset",
     "SETNX lock; expired lock taken over with GETSET (the documented fix)",
     [](const LockSettings& s) -> Body {
       return [s](world::Client& c) { RunSetnxLock(c, s, Takeover::kGetSet); };
     }},
};

}  // namespace

std::span<const AlgorithmInfo> Algorithms() { return kAlgorithms; }

const AlgorithmInfo* FindAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& a : kAlgorithms) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace lockstep::algo
