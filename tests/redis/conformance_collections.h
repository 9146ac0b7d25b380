// Builders of the conformance sequences' hash and sorted-set commands
// (conformance_collections.cc), each adding a command's arguments after its
// name, as the generator's other builders do.
#pragma once

#include "tests/redis/conformance_gen.h"

namespace lockstep::conformance {

void Hset(Gen& g, Command* c);       // HSET key field value ...
void Hdel(Gen& g, Command* c);       // HDEL key field ...
void Hincrby(Gen& g, Command* c);    // HINCRBY key field increment
void HashField(Gen& g, Command* c);  // HGET, HEXISTS: key field
void Zadd(Gen& g, Command* c);
void Zincrby(Gen& g, Command* c);
void Zrem(Gen& g, Command* c);
void ZsetMember(Gen& g, Command* c);      // ZSCORE, ZRANK, ZREVRANK: key member
void ScoreRangeOnly(Gen& g, Command* c);  // ZCOUNT, ZREMRANGEBYSCORE: key min max
void RangeByScore(Gen& g, Command* c);    // Z[REV]RANGEBYSCORE
void RevRange(Gen& g, Command* c);        // ZREVRANGE
void Zrange(Gen& g, Command* c);

}  // namespace lockstep::conformance
