// Hashes and sorted sets: what the random conformance sequences rarely
// reach, pinned (each checked once against redis-server 7.0.15 by hand and
// held to it by tests/redis/conformance_test.cc's sequences).
#include <catch2/catch.hpp>

#include "sim/kv/command_table.h"
#include "sim/kv/conflicts.h"
#include "tests/kv/kv_test_util.h"

namespace lockstep::kv {
namespace {

using testing::Server;

TEST_CASE("HGETALL answers in the order fields were added, a field set again keeping its place",
          "[kv][hash]") {
  Server s;
  CHECK(s.Run(0, {"HSET", "h", "b", "1", "a", "2"}) == "(integer) 2");
  CHECK(s.Run(0, {"HSET", "h", "c", "3", "b", "9"}) == "(integer) 1");
  CHECK(s.Run(0, {"HGETALL", "h"}) == R"(["b", "9", "a", "2", "c", "3"])");
  CHECK(s.Run(0, {"HDEL", "h", "b", "zz"}) == "(integer) 1");
  CHECK(s.Run(0, {"HSET", "h", "b", "0"}) == "(integer) 1");
  CHECK(s.Run(0, {"HGETALL", "h"}) == R"(["a", "2", "c", "3", "b", "0"])");
  CHECK(s.Run(0, {"TYPE", "h"}) == "hash");
}

TEST_CASE("HDEL of a hash's last field deletes the key, and its TTL with it", "[kv][hash]") {
  Server s;
  s.Run(0, {"HSET", "h", "f", "v"});
  s.Run(0, {"PEXPIRE", "h", "100"});
  CHECK(s.Run(0, {"HDEL", "h", "f", "f"}) == "(integer) 1");
  CHECK(s.Run(0, {"EXISTS", "h"}) == "(integer) 0");
  CHECK(s.ks.size() == 0);
  CHECK(s.Run(0, {"HSET", "h", "f", "v"}) == "(integer) 1");
  CHECK(s.Run(500, {"PTTL", "h"}) == "(integer) -1");
}

TEST_CASE("HINCRBY parses the increment before the key and the field's value after it",
          "[kv][hash]") {
  Server s;
  s.Run(0, {"SET", "str", "1"});
  CHECK(s.Run(0, {"HINCRBY", "str", "f", "x"}) ==
        "(error) ERR value is not an integer or out of range");
  CHECK(s.Run(0, {"HINCRBY", "str", "f", "1"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(s.Run(0, {"HINCRBY", "h", "n", "5"}) == "(integer) 5");
  s.Run(0, {"HSET", "h", "s", "05"});
  CHECK(s.Run(0, {"HINCRBY", "h", "s", "1"}) == "(error) ERR hash value is not an integer");
  s.Run(0, {"HSET", "h", "big", "9223372036854775807"});
  CHECK(s.Run(0, {"HINCRBY", "h", "big", "1"}) ==
        "(error) ERR increment or decrement would overflow");
  CHECK(s.Run(0, {"HGET", "h", "n"}) == R"("5")");
}

TEST_CASE("HSET with a field and no value is an arity error, the hash untouched", "[kv][hash]") {
  Server s;
  CHECK(s.Run(0, {"HSET", "h", "f", "v", "g"}) ==
        "(error) ERR wrong number of arguments for 'hset' command");
  CHECK(s.ks.size() == 0);
}

TEST_CASE("a hash past Redis's listpack limits is not vouched for on a real server", "[kv][hash]") {
  Server s;
  s.Run(0, {"HSET", "h", "f", std::string(64, 'v')});
  CHECK(s.last_effect.unvouched == nullptr);
  s.Run(0, {"HSET", "h", "g", std::string(65, 'v')});
  CHECK(s.last_effect.unvouched != nullptr);
  for (int i = 0; i < 128; ++i) s.Run(0, {"HSET", "many", "f" + std::to_string(i), "v"});
  CHECK(s.last_effect.unvouched == nullptr);
  s.Run(0, {"HSET", "many", "f128", "v"});
  CHECK(s.last_effect.unvouched != nullptr);
}

TEST_CASE("a sorted set orders members by score, then by their bytes", "[kv][zset]") {
  Server s;
  CHECK(s.Run(0, {"ZADD", "z", "2", "b", "1", "c", "2", "a", "-inf", "z", "1", "B"}) ==
        "(integer) 5");
  CHECK(s.Run(0, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}) ==
        R"(["z", "-inf", "B", "1", "c", "1", "a", "2", "b", "2"])");
  CHECK(s.Run(0, {"ZRANK", "z", "a"}) == "(integer) 3");
  CHECK(s.Run(0, {"ZREVRANK", "z", "a"}) == "(integer) 1");
  CHECK(s.Run(0, {"TYPE", "z"}) == "zset");
}

TEST_CASE("scores are printed as %.17g and -0 comes back as 0, as a listpack keeps it",
          "[kv][zset]") {
  Server s;
  s.Run(0, {"ZADD", "z", "0.1", "a", "-0", "b", "9007199254740993", "c"});
  CHECK(s.Run(0, {"ZSCORE", "z", "a"}) == R"("0.10000000000000001")");
  CHECK(s.Run(0, {"ZSCORE", "z", "b"}) == R"("0")");
  CHECK(s.Run(0, {"ZSCORE", "z", "c"}) == R"("9007199254740992")");
  CHECK(s.Run(0, {"ZINCRBY", "z", "0.2", "a"}) == R"("0.30000000000000004")");
  CHECK(s.last_effect.unvouched == nullptr);
}

TEST_CASE("ZADD refuses bad scores before it touches the set, and NaN from INCR", "[kv][zset]") {
  Server s;
  for (const char* bad : {"nan", "", " 1", "1 ", "abc", "1e400", "1e-400"}) {
    INFO(bad);
    CHECK(s.Run(0, {"ZADD", "z", "1", "a", bad, "b"}) == "(error) ERR value is not a valid float");
  }
  CHECK(s.ks.size() == 0);
  s.Run(0, {"ZADD", "z", "inf", "a"});
  CHECK(s.Run(0, {"ZADD", "z", "INCR", "-inf", "a"}) ==
        "(error) ERR resulting score is not a number (NaN)");
  CHECK(s.Run(0, {"ZADD", "z", "NX", "XX", "1", "a"}) ==
        "(error) ERR XX and NX options at the same time are not compatible");
  CHECK(s.Run(0, {"ZADD", "z", "GT", "LT", "1", "a"}) ==
        "(error) ERR GT, LT, and/or NX options at the same time are not compatible");
  CHECK(s.Run(0, {"ZADD", "z", "INCR", "1", "a", "2", "b"}) ==
        "(error) ERR INCR option supports a single increment-element pair");
}

TEST_CASE("ZADD's GT, LT, XX, CH and INCR decide what changes and what is counted", "[kv][zset]") {
  Server s;
  s.Run(0, {"ZADD", "z", "5", "a"});
  CHECK(s.Run(0, {"ZADD", "z", "GT", "CH", "4", "a", "1", "b"}) == "(integer) 1");
  CHECK(s.Run(0, {"ZSCORE", "z", "a"}) == R"("5")");
  CHECK(s.Run(0, {"ZADD", "z", "LT", "CH", "4", "a"}) == "(integer) 1");
  CHECK(s.Run(0, {"ZADD", "z", "XX", "1", "new"}) == "(integer) 0");
  CHECK(s.Run(0, {"ZADD", "z", "XX", "INCR", "1", "new"}) == "(nil)");
  CHECK(s.Run(0, {"ZADD", "z", "GT", "INCR", "-1", "a"}) == "(nil)");
  CHECK(s.Run(0, {"ZADD", "z", "INCR", "0", "a"}) == R"("4")");
  CHECK(s.Run(0, {"ZADD", "missing", "XX", "1", "a"}) == "(integer) 0");
  CHECK(s.Run(0, {"EXISTS", "missing"}) == "(integer) 0");
}

TEST_CASE("score ranges: open ends, infinities, and Redis's strtod up to a NUL", "[kv][zset]") {
  Server s;
  s.Run(0, {"ZADD", "z", "1", "a", "2", "b", "3", "c"});
  CHECK(s.Run(0, {"ZCOUNT", "z", "(1", "3"}) == "(integer) 2");
  CHECK(s.Run(0, {"ZCOUNT", "z", "-inf", "(3"}) == "(integer) 2");
  CHECK(s.Run(0, {"ZCOUNT", "z", " 1", ""}) == "(integer) 0");  // leading space read, "" is 0
  CHECK(s.Run(0, {"ZCOUNT", "z", std::string("1\0z", 3), "2"}) == "(integer) 2");
  CHECK(s.Run(0, {"ZCOUNT", "z", "x", "2"}) == "(error) ERR min or max is not a float");
  CHECK(s.Run(0, {"ZRANGEBYSCORE", "z", "1", "3", "LIMIT", "1", "1"}) == R"(["b"])");
  CHECK(s.Run(0, {"ZRANGEBYSCORE", "z", "1", "3", "LIMIT", "-1", "5"}) == "[]");
  CHECK(s.Run(0, {"ZREVRANGEBYSCORE", "z", "3", "(1", "WITHSCORES"}) == R"(["c", "3", "b", "2"])");
  CHECK(s.Run(0, {"ZREMRANGEBYSCORE", "z", "-inf", "+inf"}) == "(integer) 3");
  CHECK(s.Run(0, {"EXISTS", "z"}) == "(integer) 0");
}

TEST_CASE("ZRANGE's options: BYSCORE, BYLEX, REV and LIMIT, and their conflicts", "[kv][zset]") {
  Server s;
  s.Run(0, {"ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d"});
  CHECK(s.Run(0, {"ZRANGE", "z", "[b", "+", "BYLEX"}) == R"(["b", "c", "d"])");
  CHECK(s.Run(0, {"ZRANGE", "z", "(c", "-", "BYLEX", "REV"}) == R"(["b", "a"])");
  CHECK(s.Run(0, {"ZRANGE", "z", "+", "-", "BYLEX"}) == "[]");
  CHECK(s.Run(0, {"ZRANGE", "z", "b", "+", "BYLEX"}) ==
        "(error) ERR min or max not valid string range item");
  CHECK(s.Run(0, {"ZRANGE", "z", "-1", "0", "REV"}) == "[]");
  CHECK(s.Run(0, {"ZRANGE", "z", "0", "1", "REV"}) == R"(["d", "c"])");
  CHECK(s.Run(0, {"ZRANGE", "z", "0", "1", "LIMIT", "0", "1"}) ==
        "(error) ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
        "BYLEX");
  CHECK(s.Run(0, {"ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"}) ==
        "(error) ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  CHECK(s.Run(0, {"ZRANGEBYSCORE", "z", "0", "1", "REV"}) == "(error) ERR syntax error");
  CHECK(s.Run(0, {"ZREVRANGE", "z", "0", "0", "WITHSCORES"}) == R"(["d", "0"])");
}

TEST_CASE("ZREM of a set's last member deletes the key, and wrong types are refused",
          "[kv][zset]") {
  Server s;
  s.Run(0, {"ZADD", "z", "1", "a"});
  CHECK(s.Run(0, {"ZREM", "z", "a", "a"}) == "(integer) 1");
  CHECK(s.ks.size() == 0);
  s.Run(0, {"HSET", "h", "f", "v"});
  for (std::vector<std::string> argv :
       std::vector<std::vector<std::string>>{{"ZADD", "h", "1", "a"},
                                             {"ZSCORE", "h", "a"},
                                             {"ZRANGE", "h", "0", "-1"},
                                             {"GET", "h"},
                                             {"HSET", "z2", "f", "v"}}) {
    if (argv[0] == "HSET") s.Run(0, {"ZADD", "z2", "1", "a"});
    INFO(argv[0]);
    CHECK(s.Run(0, argv) ==
          "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  }
}

TEST_CASE("hash and sorted-set reads commute, and writes to one key do not", "[kv][conflicts]") {
  CHECK(CommandsCommute({"HGET", "h", "f"}, {"ZSCORE", "h", "m"}));
  CHECK(CommandsCommute({"ZADD", "a", "1", "m"}, {"HSET", "b", "f", "v"}));
  CHECK_FALSE(CommandsCommute({"ZADD", "a", "1", "m"}, {"ZRANGE", "a", "0", "-1"}));
  CHECK_FALSE(CommandsCommute({"HINCRBY", "h", "f", "1"}, {"HGETALL", "h"}));
}

}  // namespace
}  // namespace lockstep::kv
