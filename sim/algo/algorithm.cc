#include "sim/algo/algorithm.h"

#include <cstdio>

#include "sim/algo/fencing_lock.h"
#include "sim/algo/redlock.h"
#include "sim/algo/set_nx_px.h"
#include "sim/algo/setnx_expire.h"
#include "sim/algo/setnx_takeover.h"

namespace lockstep::algo {

void HoldLock(world::Client& c, const LockSettings& s, Millis valid_until, int64_t token) {
  c.EnterCriticalSection(valid_until);
  if (s.write_resource) c.WriteResource(token);
}

std::string SettingsLabel(const LockSettings& s) {
  std::string label = "key=" + std::to_string(s.key.size()) + ":" + s.key;
  for (auto [name, value] : {std::pair<const char*, int64_t>{"timeout", s.timeout},
                             {"rounds", s.rounds},
                             {"retry_delay", s.retry_delay},
                             {"release_with_leave", s.release_with_leave},
                             {"ttl", s.ttl},
                             {"write_resource", s.write_resource},
                             {"instances", s.instances},
                             {"token_instance", s.token_instance},
                             {"request_timeout", s.request_timeout}}) {
    label += std::string(" ") + name + "=" + std::to_string(value);
  }
  return label;
}

namespace {

template <auto Run, auto... Args>
Body Make(const LockSettings& s) {
  return [s](world::Client& c) { Run(c, s, Args...); };
}

const AlgorithmInfo kAlgorithms[] = {
    {"setnx-naive", "SETNX lock; expired lock taken over with GET, DEL, SETNX (racy)",
     Make<RunSetnxLock, Takeover::kNaive>},
    {"setnx-getset", "SETNX lock; expired lock taken over with GETSET (the documented fix)",
     Make<RunSetnxLock, Takeover::kGetSet>},
    {"setnx-expire", "SETNX, then PEXPIRE as a second command; release by DEL",
     Make<RunSetnxExpire>},
    {"set-px-del", "SET key token NX PX ttl; release by plain DEL",
     Make<RunSetNxPx, Release::kDel>},
    {"set-px-get-del", "SET key token NX PX ttl; release by GET, compare in the client, DEL",
     Make<RunSetNxPx, Release::kGetCompare>},
    {"set-px-script", "SET key token NX PX ttl; release by the compare-and-delete script",
     Make<RunSetNxPx, Release::kScript>},
    {"fenced-set-px", "SET NX PX and a fencing token from INCR in one script; release by script",
     Make<RunFencedLock>},
    {"redlock",
     "Redlock: SET NX PX on every instance, a majority within the validity; "
     "release by script on all",
     Make<RunRedlock, RedlockTokens::kNone>, /*draws_numbers=*/true},
    {"redlock-instance-tokens",
     "Redlock with a fencing token: the largest INCR among the "
     "instances locked (unsafe)",
     Make<RunRedlock, RedlockTokens::kInstanceCounters>, /*draws_numbers=*/true},
    {"redlock-fenced", "Redlock with a fencing token from INCR on lock.token_server",
     Make<RunRedlock, RedlockTokens::kTokenService>, /*draws_numbers=*/true},
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
