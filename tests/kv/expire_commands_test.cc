// EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, PERSIST, TTL, PTTL and the expiry
// boundary.
// Cases named after Redis's tests/unit/expire.tcl reproduce them on virtual
// time: where the Tcl test sleeps, these pass a later `now`, so the expected
// TTLs are exact instead of ranges.
#include <catch2/catch.hpp>

#include "tests/kv/kv_test_util.h"

namespace lockstep::kv {
namespace {

using testing::Server;

TEST_CASE("EXPIRE - set timeouts multiple times", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "foobar"});
  CHECK(s.Run(0, {"EXPIRE", "x", "5"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) 5");
  CHECK(s.Run(0, {"EXPIRE", "x", "10"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) 10");
  CHECK(s.Run(0, {"EXPIRE", "x", "2"}) == "(integer) 1");
}

TEST_CASE("EXPIRE - It should be still possible to read 'x'", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "foobar"});
  s.Run(0, {"EXPIRE", "x", "2"});
  CHECK(s.Run(1999, {"GET", "x"}) == "\"foobar\"");
}

TEST_CASE("EXPIRE - After 2.1 seconds the key should no longer be here", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "foobar"});
  s.Run(0, {"EXPIRE", "x", "2"});
  CHECK(s.Run(2100, {"GET", "x"}) == "(nil)");
  CHECK(s.Run(2100, {"EXISTS", "x"}) == "(integer) 0");
}

TEST_CASE("PERSIST can undo an EXPIRE", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "foo"});
  s.Run(0, {"EXPIRE", "x", "50"});
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) 50");
  CHECK(s.Run(0, {"PERSIST", "x"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) -1");
  CHECK(s.Run(60'000, {"GET", "x"}) == "\"foo\"");
}

TEST_CASE("PERSIST returns 0 against non existing or non volatile keys", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "foo"});
  CHECK(s.Run(0, {"PERSIST", "x"}) == "(integer) 0");
  CHECK(s.Run(0, {"PERSIST", "nokeyatall"}) == "(integer) 0");
  s.Run(0, {"PEXPIRE", "x", "5"});
  CHECK(s.Run(6, {"PERSIST", "x"}) == "(integer) 0");  // expired: gone
}

TEST_CASE("A key with deadline d is live at now == d and gone at d + 1", "[kv][expire][boundary]") {
  Server s;
  s.Run(0, {"SET", "k", "v", "PX", "100"});
  CHECK(s.Run(100, {"GET", "k"}) == "\"v\"");
  CHECK(s.Run(100, {"PTTL", "k"}) == "(integer) 0");
  CHECK(s.Run(100, {"TTL", "k"}) == "(integer) 0");
  CHECK(s.Run(100, {"EXISTS", "k"}) == "(integer) 1");
  CHECK(s.ks.Find("k", 100) != nullptr);
  CHECK(s.ks.Find("k", 101) == nullptr);
  CHECK(s.Run(101, {"GET", "k"}) == "(nil)");
  CHECK(s.last_effect.saw_expired);
  CHECK(s.Run(101, {"TTL", "k"}) == "(integer) -2");
  CHECK_FALSE(s.last_effect.saw_expired);  // purged by the GET before
}

TEST_CASE("EXPIREAT - Check for EXPIRE alike behavior", "[kv][expire]") {
  Server s;
  s.Run(3000, {"SET", "x", "foo"});
  CHECK(s.Run(3000, {"EXPIREAT", "x", "18"}) == "(integer) 1");
  CHECK(s.Run(3000, {"TTL", "x"}) == "(integer) 15");
  CHECK(s.Run(3000, {"PTTL", "x"}) == "(integer) 15000");
}

TEST_CASE("PEXPIRE/PEXPIREAT can set sub-second expires", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "somevalue"});
  CHECK(s.Run(0, {"PEXPIRE", "x", "100"}) == "(integer) 1");
  CHECK(s.Run(0, {"GET", "x"}) == "\"somevalue\"");
  CHECK(s.Run(101, {"GET", "x"}) == "(nil)");

  s.Run(1000, {"SET", "x", "somevalue"});
  CHECK(s.Run(1000, {"PEXPIREAT", "x", "1200"}) == "(integer) 1");
  CHECK(s.Run(1000, {"GET", "x"}) == "\"somevalue\"");
  CHECK(s.Run(1201, {"GET", "x"}) == "(nil)");
}

TEST_CASE("TTL returns time to live in seconds, rounded", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "somevalue", "EX", "10"});
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) 10");
  // (ttl + 500) / 1000: 9500 ms rounds up, 9499 ms rounds down.
  CHECK(s.Run(500, {"TTL", "x"}) == "(integer) 10");
  CHECK(s.Run(501, {"TTL", "x"}) == "(integer) 9");
  CHECK(s.Run(9501, {"TTL", "x"}) == "(integer) 0");
}

TEST_CASE("PTTL returns time to live in milliseconds", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "somevalue", "EX", "1"});
  CHECK(s.Run(0, {"PTTL", "x"}) == "(integer) 1000");
  CHECK(s.Run(58, {"PTTL", "x"}) == "(integer) 942");
}

TEST_CASE("TTL / PTTL return -1 if key has no expire", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "x", "hello"});
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) -1");
  CHECK(s.Run(0, {"PTTL", "x"}) == "(integer) -1");
}

TEST_CASE("TTL / PTTL return -2 if key does not exit", "[kv][expire]") {
  Server s;
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) -2");
  CHECK(s.Run(0, {"PTTL", "x"}) == "(integer) -2");
}

TEST_CASE("EXPIRE with big integer overflows when converted to milliseconds",
          "[kv][expire][errors]") {
  Server s;
  // Redis's clock is far from 0; with the virtual clock at 1000 ms the
  // `when > LLONG_MAX - basetime` case is hit the same way.
  s.Run(1000, {"SET", "foo", "bar"});
  const std::string err = "(error) ERR invalid expire time in 'expire' command";
  CHECK(s.Run(1000, {"EXPIRE", "foo", "9223372036854775"}) == err);
  CHECK(s.Run(1000, {"EXPIRE", "foo", "9223372036854776"}) == err);
  CHECK(s.Run(1000, {"EXPIRE", "foo", "10000000000000000"}) == err);
  CHECK(s.Run(1000, {"EXPIRE", "foo", "18446744073709561"}) == err);
  CHECK(s.Run(1000, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("PEXPIRE with big integer overflow when basetime is added", "[kv][expire][errors]") {
  Server s;
  s.Run(10000, {"SET", "foo", "bar"});
  CHECK(s.Run(10000, {"PEXPIRE", "foo", "9223372036854770000"}) ==
        "(error) ERR invalid expire time in 'pexpire' command");
}

TEST_CASE("EXPIRE with big negative integer", "[kv][expire][errors]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  const std::string err = "(error) ERR invalid expire time in 'expire' command";
  CHECK(s.Run(0, {"EXPIRE", "foo", "-9223372036854776"}) == err);
  CHECK(s.Run(0, {"EXPIRE", "foo", "-9999999999999999"}) == err);
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("PEXPIREAT with big integer works", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"PEXPIREAT", "foo", "9223372036854770000"}) == "(integer) 1");
  CHECK(s.Run(0, {"PTTL", "foo"}) == "(integer) 9223372036854770000");
}

TEST_CASE("PEXPIREAT with big negative integer works", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"PEXPIREAT", "foo", "-9223372036854770000"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -2");
}

TEST_CASE("EXPIREAT with a time in the past deletes the key", "[kv][expire]") {
  Server s;
  s.Run(5000, {"SET", "foo", "bar"});
  CHECK(s.Run(5000, {"EXPIREAT", "foo", "4"}) == "(integer) 1");
  CHECK(s.last_effect.wrote);
  CHECK(s.ks.size() == 0);
}

TEST_CASE("EXPIRE with zero or negative time deletes the key", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "a", "1"});
  s.Run(0, {"SET", "b", "1"});
  CHECK(s.Run(0, {"EXPIRE", "a", "0"}) == "(integer) 1");
  CHECK(s.Run(0, {"PEXPIRE", "b", "-1"}) == "(integer) 1");
  CHECK(s.Run(0, {"EXISTS", "a", "b"}) == "(integer) 0");
  // A deadline of exactly now is already expired for EXPIRE.
  s.Run(700, {"SET", "c", "1"});
  CHECK(s.Run(700, {"PEXPIREAT", "c", "700"}) == "(integer) 1");
  CHECK(s.Run(700, {"EXISTS", "c"}) == "(integer) 0");
}

TEST_CASE("EXPIRE on a missing or expired key returns 0", "[kv][expire]") {
  Server s;
  CHECK(s.Run(0, {"EXPIRE", "nokey", "100"}) == "(integer) 0");
  CHECK_FALSE(s.last_effect.wrote);
  s.Run(0, {"SET", "k", "v", "PX", "5"});
  CHECK(s.Run(6, {"EXPIRE", "k", "100"}) == "(integer) 0");
  CHECK(s.last_effect.saw_expired);
}

TEST_CASE("EXPIRE with NX option on a key with ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "NX"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
}

TEST_CASE("EXPIRE with NX option on a key without ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "NX"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 200");
}

TEST_CASE("EXPIRE with XX option on a key with ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "XX"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 200");
}

TEST_CASE("EXPIRE with XX option on a key without ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "XX"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("EXPIRE with GT option on a key with lower ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "GT"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 200");
}

TEST_CASE("EXPIRE with GT option on a key with higher ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "200"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "100", "GT"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 200");
}

TEST_CASE("EXPIRE with GT option and an equal deadline fails", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "PX", "200"});
  CHECK(s.Run(0, {"PEXPIRE", "foo", "200", "GT"}) == "(integer) 0");
  CHECK(s.Run(0, {"PEXPIRE", "foo", "200", "LT"}) == "(integer) 0");
}

TEST_CASE("EXPIRE with GT option on a key without ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "GT"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("EXPIRE with LT option on a key with higher ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "LT"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
}

TEST_CASE("EXPIRE with LT option on a key with lower ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "200"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "100", "LT"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
}

TEST_CASE("EXPIRE with LT option on a key without ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "100", "LT"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
}

TEST_CASE("EXPIRE with LT and XX option on a key with ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "200"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "100", "LT", "XX"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
}

TEST_CASE("EXPIRE with LT and XX option on a key without ttl", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "LT", "XX"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("EXPIRE options are case-insensitive and may repeat", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "10", "nx", "Nx"}) == "(integer) 1");
  CHECK(s.Run(0, {"EXPIRE", "foo", "20", "gt", "GT"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 20");
}

TEST_CASE("EXPIRE with negative expiry", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "-10", "LT"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -2");
}

TEST_CASE("EXPIRE with negative expiry on a non-valitale key", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "-10", "LT"}) == "(integer) 1");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -2");
}

TEST_CASE("EXPIRE with negative expiry and GT is refused", "[kv][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "-1", "GT"}) == "(integer) 0");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
}

TEST_CASE("EXPIRE with non-existed key", "[kv][expire]") {
  Server s;
  CHECK(s.Run(0, {"EXPIRE", "none", "100", "NX"}) == "(integer) 0");
  CHECK(s.Run(0, {"EXPIRE", "none", "100", "XX"}) == "(integer) 0");
  CHECK(s.Run(0, {"EXPIRE", "none", "100", "GT"}) == "(integer) 0");
  CHECK(s.Run(0, {"EXPIRE", "none", "100", "LT"}) == "(integer) 0");
}

TEST_CASE("Relative expires count from now, absolute ones from 0", "[kv][expire]") {
  Server s;
  s.Run(2000, {"SET", "a", "1"});
  s.Run(2000, {"SET", "b", "1"});
  s.Run(2000, {"EXPIRE", "a", "3"});
  s.Run(2000, {"EXPIREAT", "b", "3"});
  CHECK(s.Run(2000, {"PTTL", "a"}) == "(integer) 3000");
  CHECK(s.Run(2000, {"PTTL", "b"}) == "(integer) 1000");
  CHECK(s.ks.Find("a", 5000) != nullptr);
  CHECK(s.ks.Find("b", 3001) == nullptr);
}

}  // namespace
}  // namespace lockstep::kv

namespace lockstep::kv {
namespace {

TEST_CASE("TTL of a deadline near INT64_MAX rounds without wrapping, as redis-server 7.0 does",
          "[kv][expire]") {
  testing::Server s;
  s.Run(10, {"SET", "k", "v", "PXAT", "9223372036854775807"});
  CHECK(s.Run(10, {"TTL", "k"}) == "(integer) 9223372036854776");
  CHECK(s.Run(10, {"PTTL", "k"}) == "(integer) 9223372036854775797");
}

}  // namespace
}  // namespace lockstep::kv
