// GET, SET (every option), SETNX, GETSET, INCR/INCRBY/DECR/DECRBY, DEL,
// EXISTS, TYPE, RPUSH, LLEN. Cases named after Redis's tests/unit/type/
// string.tcl, incr.tcl and keyspace.tcl reproduce those tests on virtual
// time: instead of sleeping, a later `now` is passed.
#include <catch2/catch.hpp>

#include "tests/kv/kv_test_util.h"

namespace lockstep::kv {
namespace {

using testing::Server;

TEST_CASE("GET returns nil for a missing key and the value after SET", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"GET", "foo"}) == "(nil)");
  CHECK(s.Run(0, {"SET", "foo", "bar"}) == "OK");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar\"");
}

TEST_CASE("Zero length value in key. SET/GET/EXISTS", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SET", "emptykey", ""}) == "OK");
  CHECK(s.Run(0, {"GET", "emptykey"}) == "\"\"");
  CHECK(s.Run(0, {"EXISTS", "emptykey"}) == "(integer) 1");
  CHECK(s.Run(0, {"DEL", "emptykey"}) == "(integer) 1");
  CHECK(s.Run(0, {"EXISTS", "emptykey"}) == "(integer) 0");
}

TEST_CASE("Command names are case-insensitive", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"set", "k", "v"}) == "OK");
  CHECK(s.Run(0, {"gEt", "k"}) == "\"v\"");
}

TEST_CASE("SETNX target key missing", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SETNX", "novar", "foobared"}) == "(integer) 1");
  CHECK(s.Run(0, {"GET", "novar"}) == "\"foobared\"");
}

TEST_CASE("SETNX target key exists", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "novar", "foobared"});
  CHECK(s.Run(0, {"SETNX", "novar", "blabla"}) == "(integer) 0");
  CHECK(s.Run(0, {"GET", "novar"}) == "\"foobared\"");
}

TEST_CASE("SETNX against not-expired volatile key", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "x", "10"});
  CHECK(s.Run(0, {"EXPIRE", "x", "10000"}) == "(integer) 1");
  CHECK(s.Run(5000, {"SETNX", "x", "20"}) == "(integer) 0");
  CHECK(s.Run(5000, {"GET", "x"}) == "\"10\"");
}

TEST_CASE("SETNX against expired volatile key", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "x", "10"});
  s.Run(0, {"EXPIRE", "x", "1"});
  // The Tcl test waits 1100 ms with active expiry off.
  CHECK(s.Run(1100, {"SETNX", "x", "20"}) == "(integer) 1");
  CHECK(s.last_effect.saw_expired);
  CHECK(s.last_effect.wrote);
  CHECK(s.Run(1100, {"GET", "x"}) == "\"20\"");
  CHECK(s.Run(1100, {"TTL", "x"}) == "(integer) -1");
}

TEST_CASE("SETNX on a list key fails like any existing key", "[kv][string]") {
  Server s;
  s.Run(0, {"RPUSH", "l", "a"});
  CHECK(s.Run(0, {"SETNX", "l", "v"}) == "(integer) 0");
  CHECK(s.Run(0, {"TYPE", "l"}) == "list");
}

TEST_CASE("GETSET (set new value)", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"GETSET", "foo", "xyz"}) == "(nil)");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"xyz\"");
}

TEST_CASE("GETSET (replace old value)", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"GETSET", "foo", "xyz"}) == "\"bar\"");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"xyz\"");
}

TEST_CASE("GETSET replaces TTL", "[kv][string][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(10, {"GETSET", "foo", "xyz"}) == "\"bar\"");
  CHECK(s.Run(10, {"TTL", "foo"}) == "(integer) -1");
  CHECK(s.Run(1000000, {"GET", "foo"}) == "\"xyz\"");
}

TEST_CASE("GETSET on an expired key returns nil and sets", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "PX", "10"});
  CHECK(s.Run(11, {"GETSET", "foo", "xyz"}) == "(nil)");
  CHECK(s.Run(11, {"GET", "foo"}) == "\"xyz\"");
}

TEST_CASE("Extended SET NX option", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "1", "nx"}) == "OK");
  CHECK(s.Run(0, {"SET", "foo", "2", "nx"}) == "(nil)");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"1\"");
}

TEST_CASE("Extended SET XX option", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "1", "xx"}) == "(nil)");
  CHECK(s.Run(0, {"GET", "foo"}) == "(nil)");
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"SET", "foo", "2", "xx"}) == "OK");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"2\"");
}

TEST_CASE("Extended SET GET option", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"SET", "foo", "bar2", "GET"}) == "\"bar\"");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar2\"");
}

TEST_CASE("Extended SET GET option with no previous value", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "bar", "GET"}) == "(nil)");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar\"");
}

TEST_CASE("Extended SET GET option with XX", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"SET", "foo", "baz", "GET", "XX"}) == "\"bar\"");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"baz\"");
}

TEST_CASE("Extended SET GET option with XX and no previous value", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "bar", "GET", "XX"}) == "(nil)");
  CHECK(s.Run(0, {"GET", "foo"}) == "(nil)");
}

TEST_CASE("Extended SET GET option with NX", "[kv][string]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "bar", "GET", "NX"}) == "(nil)");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar\"");
}

TEST_CASE("Extended SET GET option with NX and previous value", "[kv][string]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"SET", "foo", "baz", "GET", "NX"}) == "\"bar\"");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar\"");
}

TEST_CASE(
    "Extended SET GET with incorrect type should result in wrong type "
    "error",
    "[kv][string]") {
  Server s;
  s.Run(0, {"RPUSH", "foo", "waffle"});
  CHECK(s.Run(0, {"SET", "foo", "bar", "GET"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of "
        "value");
  CHECK(s.Run(0, {"LLEN", "foo"}) == "(integer) 1");
  CHECK_FALSE(s.last_effect.wrote);
}

TEST_CASE("SET without GET overwrites a list with a string", "[kv][string]") {
  Server s;
  s.Run(0, {"RPUSH", "foo", "waffle"});
  CHECK(s.Run(0, {"SET", "foo", "bar"}) == "OK");
  CHECK(s.Run(0, {"TYPE", "foo"}) == "string");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar\"");
}

TEST_CASE("Extended SET EX option", "[kv][string][expire]") {
  Server s;
  CHECK(s.Run(1000, {"SET", "foo", "bar", "ex", "10"}) == "OK");
  CHECK(s.Run(1000, {"TTL", "foo"}) == "(integer) 10");
  CHECK(s.Run(1000, {"PTTL", "foo"}) == "(integer) 10000");
}

TEST_CASE("Extended SET PX option", "[kv][string][expire]") {
  Server s;
  CHECK(s.Run(1000, {"SET", "foo", "bar", "px", "10000"}) == "OK");
  CHECK(s.Run(1000, {"PTTL", "foo"}) == "(integer) 10000");
}

TEST_CASE("Extended SET EXAT option", "[kv][string][expire]") {
  Server s;
  // EXAT is absolute unix seconds; here unix time is the virtual clock.
  CHECK(s.Run(5000, {"SET", "foo", "bar", "exat", "15"}) == "OK");
  CHECK(s.Run(5000, {"TTL", "foo"}) == "(integer) 10");
  CHECK(s.Run(5000, {"PTTL", "foo"}) == "(integer) 10000");
}

TEST_CASE("Extended SET PXAT option", "[kv][string][expire]") {
  Server s;
  CHECK(s.Run(5000, {"SET", "foo", "bar", "pxat", "15000"}) == "OK");
  CHECK(s.Run(5000, {"PTTL", "foo"}) == "(integer) 10000");
}

TEST_CASE("Extended SET using multiple options at once", "[kv][string][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "val"});
  CHECK(s.Run(0, {"SET", "foo", "bar", "xx", "px", "10000"}) == "OK");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 10");
}

TEST_CASE("SET EX repeated takes the last value", "[kv][string][expire]") {
  Server s;
  CHECK(s.Run(0, {"SET", "k", "v", "EX", "10", "EX", "20"}) == "OK");
  CHECK(s.Run(0, {"TTL", "k"}) == "(integer) 20");
}

TEST_CASE("SET with EXAT or PXAT in the past leaves no key", "[kv][string][expire]") {
  Server s;
  CHECK(s.Run(5000, {"SET", "foo", "bar", "EXAT", "1"}) == "OK");
  CHECK(s.Run(5000, {"EXISTS", "foo"}) == "(integer) 0");
  CHECK(s.Run(5000, {"SET", "foo", "bar", "PXAT", "4999"}) == "OK");
  CHECK(s.Run(5000, {"GET", "foo"}) == "(nil)");
}

TEST_CASE("SET command will remove expire", "[kv][string][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("SET - use KEEPTTL option, TTL should not be removed", "[kv][string][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar", "EX", "100"});
  CHECK(s.Run(0, {"SET", "foo", "bar", "KEEPTTL"}) == "OK");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) 100");
  CHECK(s.Run(0, {"GET", "foo"}) == "\"bar\"");
}

TEST_CASE("SET KEEPTTL on a key without TTL keeps it persistent", "[kv][string][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "a"});
  CHECK(s.Run(0, {"SET", "foo", "b", "keepttl"}) == "OK");
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("SET GET on an expired key answers nil", "[kv][string][expire]") {
  Server s;
  s.Run(0, {"SET", "foo", "old", "PX", "100"});
  CHECK(s.Run(101, {"SET", "foo", "new", "GET"}) == "(nil)");
  CHECK(s.last_effect.saw_expired);
  CHECK(s.Run(101, {"GET", "foo"}) == "\"new\"");
}

TEST_CASE("INCR against non existing key", "[kv][incr]") {
  Server s;
  CHECK(s.Run(0, {"INCR", "novar"}) == "(integer) 1");
  CHECK(s.Run(0, {"GET", "novar"}) == "\"1\"");
}

TEST_CASE("INCR against key created by incr itself", "[kv][incr]") {
  Server s;
  s.Run(0, {"INCR", "novar"});
  CHECK(s.Run(0, {"INCR", "novar"}) == "(integer) 2");
}

TEST_CASE("INCR against key originally set with SET", "[kv][incr]") {
  Server s;
  s.Run(0, {"SET", "novar", "100"});
  CHECK(s.Run(0, {"INCR", "novar"}) == "(integer) 101");
}

TEST_CASE("INCR over 32bit value", "[kv][incr]") {
  Server s;
  s.Run(0, {"SET", "novar", "17179869184"});
  CHECK(s.Run(0, {"INCR", "novar"}) == "(integer) 17179869185");
}

TEST_CASE("INCRBY over 32bit value with over 32bit increment", "[kv][incr]") {
  Server s;
  s.Run(0, {"SET", "novar", "17179869184"});
  CHECK(s.Run(0, {"INCRBY", "novar", "17179869184"}) == "(integer) 34359738368");
}

TEST_CASE("DECRBY over 32bit value with over 32bit increment, negative res", "[kv][incr]") {
  Server s;
  s.Run(0, {"SET", "novar", "17179869184"});
  CHECK(s.Run(0, {"DECRBY", "novar", "17179869185"}) == "(integer) -1");
}

TEST_CASE("DECR and DECRBY count down from a missing key", "[kv][incr]") {
  Server s;
  CHECK(s.Run(0, {"DECR", "n"}) == "(integer) -1");
  CHECK(s.Run(0, {"DECRBY", "n", "10"}) == "(integer) -11");
  CHECK(s.Run(0, {"INCRBY", "n", "-4"}) == "(integer) -15");
  CHECK(s.Run(0, {"GET", "n"}) == "\"-15\"");
}

TEST_CASE("INCR reaches the int64 limits exactly", "[kv][incr]") {
  Server s;
  s.Run(0, {"SET", "n", "9223372036854775806"});
  CHECK(s.Run(0, {"INCR", "n"}) == "(integer) 9223372036854775807");
  s.Run(0, {"SET", "m", "-9223372036854775807"});
  CHECK(s.Run(0, {"DECR", "m"}) == "(integer) -9223372036854775808");
}

TEST_CASE("INCR keeps TTL", "[kv][incr][expire]") {
  Server s;
  s.Run(0, {"SET", "n", "1", "EX", "100"});
  CHECK(s.Run(0, {"INCR", "n"}) == "(integer) 2");
  CHECK(s.Run(0, {"TTL", "n"}) == "(integer) 100");
  CHECK(s.Run(0, {"INCRBY", "n", "5"}) == "(integer) 7");
  CHECK(s.Run(0, {"PTTL", "n"}) == "(integer) 100000");
}

TEST_CASE("INCR on an expired key starts from 0 without TTL", "[kv][incr][expire]") {
  Server s;
  s.Run(0, {"SET", "n", "41", "PX", "50"});
  CHECK(s.Run(51, {"INCR", "n"}) == "(integer) 1");
  CHECK(s.Run(51, {"TTL", "n"}) == "(integer) -1");
}

TEST_CASE("DEL against a single item", "[kv][keys]") {
  Server s;
  s.Run(0, {"SET", "x", "foo"});
  CHECK(s.Run(0, {"GET", "x"}) == "\"foo\"");
  CHECK(s.Run(0, {"DEL", "x"}) == "(integer) 1");
  CHECK(s.Run(0, {"GET", "x"}) == "(nil)");
}

TEST_CASE("Vararg DEL", "[kv][keys]") {
  Server s;
  s.Run(0, {"SET", "foo1", "a"});
  s.Run(0, {"SET", "foo2", "b"});
  s.Run(0, {"SET", "foo3", "c"});
  CHECK(s.Run(0, {"DEL", "foo1", "foo2", "foo3", "foo4"}) == "(integer) 3");
  CHECK(s.ks.size() == 0);
}

TEST_CASE("DEL counts a repeated key once", "[kv][keys]") {
  Server s;
  s.Run(0, {"SET", "k", "v"});
  CHECK(s.Run(0, {"DEL", "k", "k"}) == "(integer) 1");
}

TEST_CASE("DEL against expired key", "[kv][keys][expire]") {
  Server s;
  s.Run(0, {"SET", "keyExpire", "valExpire", "EX", "1"});
  CHECK(s.Run(1100, {"DEL", "keyExpire"}) == "(integer) 0");
  CHECK(s.last_effect.saw_expired);
  CHECK_FALSE(s.last_effect.wrote);
  CHECK(s.ks.size() == 0);
}

TEST_CASE("EXISTS", "[kv][keys]") {
  Server s;
  s.Run(0, {"SET", "newkey", "test"});
  CHECK(s.Run(0, {"EXISTS", "newkey"}) == "(integer) 1");
  s.Run(0, {"DEL", "newkey"});
  CHECK(s.Run(0, {"EXISTS", "newkey"}) == "(integer) 0");
}

TEST_CASE("EXISTS counts repeated keys each time", "[kv][keys]") {
  Server s;
  s.Run(0, {"SET", "a", "1"});
  s.Run(0, {"RPUSH", "l", "x"});
  CHECK(s.Run(0, {"EXISTS", "a", "a", "missing", "l"}) == "(integer) 3");
}

TEST_CASE("TYPE reports string, list and none", "[kv][keys]") {
  Server s;
  s.Run(0, {"SET", "s", "v"});
  s.Run(0, {"RPUSH", "l", "v"});
  CHECK(s.Run(0, {"TYPE", "s"}) == "string");
  CHECK(s.Run(0, {"TYPE", "l"}) == "list");
  CHECK(s.Run(0, {"TYPE", "nokey"}) == "none");
}

TEST_CASE("RPUSH appends and LLEN counts", "[kv][list]") {
  Server s;
  CHECK(s.Run(0, {"LLEN", "l"}) == "(integer) 0");
  CHECK(s.Run(0, {"RPUSH", "l", "a", "b"}) == "(integer) 2");
  CHECK(s.Run(0, {"RPUSH", "l", "c"}) == "(integer) 3");
  CHECK(s.Run(0, {"LLEN", "l"}) == "(integer) 3");
  const Entry* e = s.ks.Find("l", 0);
  REQUIRE(e != nullptr);
  CHECK(e->items == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("EXPIRE - write on expire should work", "[kv][list][expire]") {
  Server s;
  s.Run(0, {"RPUSH", "x", "foo"});
  CHECK(s.Run(0, {"EXPIRE", "x", "1000"}) == "(integer) 1");
  CHECK(s.Run(0, {"RPUSH", "x", "bar"}) == "(integer) 2");
  CHECK(s.Run(0, {"TTL", "x"}) == "(integer) 1000");
}

TEST_CASE("Effect marks writes and not reads", "[kv][effect]") {
  Server s;
  s.Run(0, {"SET", "k", "v"});
  CHECK(s.last_effect.wrote);
  s.Run(0, {"GET", "k"});
  CHECK_FALSE(s.last_effect.wrote);
  CHECK_FALSE(s.last_effect.saw_expired);
  s.Run(0, {"SETNX", "k", "w"});
  CHECK_FALSE(s.last_effect.wrote);
  s.Run(0, {"SET", "k", "w", "XX"});
  CHECK(s.last_effect.wrote);
}

TEST_CASE("TIME is the server's clock in Unix seconds and microseconds", "[kv][keys]") {
  Server s;
  CHECK(s.Run(1500, {"TIME"}) == R"(["1", "500000"])");
  CHECK(s.Run(0, {"TIME"}) == R"(["0", "0"])");
  CHECK(s.Run(-1, {"TIME"}) == R"(["-1", "999000"])");  // a clock skewed before 1970
  CHECK(s.Run(0, {"TIME", "x"}) == "(error) ERR wrong number of arguments for 'time' command");
}

TEST_CASE("SELECT keeps database 0 and refuses another, unvouched where Redis has it",
          "[kv][keys]") {
  Server s;
  CHECK(s.Run(0, {"SELECT", "0"}) == "OK");
  CHECK(s.last_effect.unvouched == nullptr);
  CHECK(s.Run(0, {"SELECT", "16"}) == "(error) ERR DB index is out of range");
  CHECK(s.Run(0, {"SELECT", "-1"}) == "(error) ERR DB index is out of range");
  CHECK(s.Run(0, {"SELECT", "00"}) == "(error) ERR value is not an integer or out of range");
  CHECK(s.Run(0, {"SELECT", "4294967296"}) ==
        "(error) ERR value is out of range, value must between -2147483648 and 2147483647");
  CHECK(s.last_effect.unvouched == nullptr);
  // A real server would switch to database 3: the model cannot vouch.
  CHECK(s.Run(0, {"SELECT", "3"}) ==
        "(error) ERR DB index is out of range (lockstep models database 0)");
  CHECK(s.last_effect.unvouched != nullptr);
  // As @sesamecare-oss/redlock's scripts begin.
  CHECK(s.Run(0, {"EVAL", "return redis.pcall('SELECT', tonumber(ARGV[1]))", "0", "0"}) == "OK");
  CHECK(s.last_effect.unvouched == nullptr);
}

}  // namespace
}  // namespace lockstep::kv
