// Every error class the model can answer, with Redis 7.0's exact text, and
// which check wins when several apply. The texts were checked against a real
// redis-server 7.0.15.
#include <string>

#include <catch2/catch.hpp>

#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"
#include "tests/kv/kv_test_util.h"

namespace lockstep::kv {
namespace {

using testing::Server;

const std::string kWrongTypeReply =
    "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
const std::string kNotIntReply = "(error) ERR value is not an integer or out of range";
const std::string kSyntaxReply = "(error) ERR syntax error";

TEST_CASE("Unknown command echoes name and args in Redis 7.0's format", "[kv][errors]") {
  Server s;
  CHECK(s.Run(0, {"foo", "a", "b"}) ==
        "(error) ERR unknown command 'foo', with args beginning with: 'a' "
        "'b' ");
  CHECK(s.Run(0, {"foobaredcommand"}) ==
        "(error) ERR unknown command 'foobaredcommand', with args beginning "
        "with: ");
  CHECK_FALSE(s.last_effect.wrote);
}

TEST_CASE("Unknown command maps CR and LF in args to spaces", "[kv][errors]") {
  CHECK(UnknownCommandError({"foo", "a\nb", "c\r"}) ==
        "ERR unknown command 'foo', with args beginning with: 'a b' 'c ' ");
}

TEST_CASE("Unknown command args stop after 128 bytes", "[kv][errors]") {
  const std::string a(123, 'a');
  // The first arg takes 126 bytes with its quotes and space; the second is
  // cut to the 128 - 126 = 2 bytes left, and nothing follows (checked
  // against redis-server 7.0.15).
  CHECK(UnknownCommandError({"foo", a, "bbbbbbb", "ccc"}) ==
        "ERR unknown command 'foo', with args beginning with: '" + a + "' 'bb' ");
  const std::string name(200, 'n');
  CHECK(UnknownCommandError({name}) ==
        "ERR unknown command '" + std::string(128, 'n') + "', with args beginning with: ");
}

TEST_CASE("Wrong arity names the command in lower case", "[kv][errors]") {
  Server s;
  CHECK(s.Run(0, {"GET"}) == "(error) ERR wrong number of arguments for 'get' command");
  CHECK(s.Run(0, {"Get", "a", "b"}) == "(error) ERR wrong number of arguments for 'get' command");
  CHECK(s.Run(0, {"set", "k"}) == "(error) ERR wrong number of arguments for 'set' command");
  CHECK(s.Run(0, {"INCR"}) == "(error) ERR wrong number of arguments for 'incr' command");
  CHECK(s.Run(0, {"DEL"}) == "(error) ERR wrong number of arguments for 'del' command");
  CHECK(s.Run(0, {"EXPIRE", "k"}) == "(error) ERR wrong number of arguments for 'expire' command");
  CHECK(s.Run(0, {"SETNX", "k", "v", "x"}) ==
        "(error) ERR wrong number of arguments for 'setnx' command");
}

TEST_CASE("Extended SET can detect syntax errors", "[kv][errors]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "bar", "non-existing-option"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "NX", "XX"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "XX", "NX"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "EX", "10", "PX", "10"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "EXAT", "10", "EX", "10"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "KEEPTTL", "EX", "1"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "PXAT", "1", "KEEPTTL"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "k", "v", "EX"}) == kSyntaxReply);
  CHECK(s.ks.size() == 0);
}

TEST_CASE("SET option parsing comes before the expire value and the type", "[kv][errors]") {
  Server s;
  s.Run(0, {"RPUSH", "l", "a"});
  CHECK(s.Run(0, {"SET", "l", "x", "GET", "foo"}) == kSyntaxReply);
  CHECK(s.Run(0, {"SET", "l", "x", "GET", "EX", "0"}) ==
        "(error) ERR invalid expire time in 'set' command");
  CHECK(s.Run(0, {"SET", "l", "x", "GET", "EX", "abc"}) == kNotIntReply);
  CHECK(s.Run(0, {"SET", "l", "x", "GET"}) == kWrongTypeReply);
}

TEST_CASE("SET with invalid expire times", "[kv][errors]") {
  Server s;
  const std::string err = "(error) ERR invalid expire time in 'set' command";
  CHECK(s.Run(0, {"SET", "k", "v", "EX", "0"}) == err);
  CHECK(s.Run(0, {"SET", "k", "v", "EX", "-1"}) == err);
  CHECK(s.Run(0, {"SET", "k", "v", "PXAT", "0"}) == err);
  CHECK(s.Run(0, {"SET", "k", "v", "EXAT", "-5"}) == err);
  CHECK(s.Run(1, {"SET", "k", "v", "PX", "9223372036854775807"}) == err);
  CHECK(s.Run(0, {"SET", "k", "v", "EX", "1.5"}) == kNotIntReply);
  CHECK(s.ks.size() == 0);
}

TEST_CASE("SET with EX with big integer should report an error", "[kv][errors]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "bar", "EX", "10000000000000000"}) ==
        "(error) ERR invalid expire time in 'set' command");
}

TEST_CASE("SET with EX with smallest integer should report an error", "[kv][errors]") {
  Server s;
  CHECK(s.Run(0, {"SET", "foo", "bar", "EX", "-9999999999999999"}) ==
        "(error) ERR invalid expire time in 'set' command");
}

TEST_CASE("WRONGTYPE from GET, GETSET, INCR, DECRBY, RPUSH and LLEN", "[kv][errors]") {
  Server s;
  s.Run(0, {"RPUSH", "mylist", "1"});
  s.Run(0, {"SET", "str", "v"});
  CHECK(s.Run(0, {"GET", "mylist"}) == kWrongTypeReply);
  CHECK(s.Run(0, {"GETSET", "mylist", "v"}) == kWrongTypeReply);
  CHECK(s.Run(0, {"INCR", "mylist"}) == kWrongTypeReply);
  CHECK(s.Run(0, {"DECRBY", "mylist", "2"}) == kWrongTypeReply);
  CHECK(s.Run(0, {"RPUSH", "str", "x"}) == kWrongTypeReply);
  CHECK(s.Run(0, {"LLEN", "str"}) == kWrongTypeReply);
  CHECK(s.Run(0, {"LLEN", "mylist"}) == "(integer) 1");
  CHECK(s.Run(0, {"GET", "str"}) == "\"v\"");
}

TEST_CASE("INCR fails against key with spaces", "[kv][errors]") {
  Server s;
  for (const char* v : {"    11", "11    ", "    11    "}) {
    s.Run(0, {"SET", "novar", v});
    CHECK(s.Run(0, {"INCR", "novar"}) == kNotIntReply);
  }
}

TEST_CASE("INCRBY and DECRBY reject a non-integer increment", "[kv][errors]") {
  Server s;
  CHECK(s.Run(0, {"INCRBY", "mykeyincr", "v"}) == kNotIntReply);
  CHECK(s.Run(0, {"DECRBY", "mykeyincr", "v"}) == kNotIntReply);
  CHECK(s.Run(0, {"INCRBY", "mykeyincr", "+1"}) == kNotIntReply);
  CHECK(s.Run(0, {"INCRBY", "mykeyincr", "01"}) == kNotIntReply);
  CHECK(s.Run(0, {"INCRBY", "mykeyincr", "9223372036854775808"}) == kNotIntReply);
  CHECK(s.ks.size() == 0);
}

TEST_CASE("The increment is parsed before the key's type is checked", "[kv][errors]") {
  Server s;
  s.Run(0, {"RPUSH", "l", "a"});
  CHECK(s.Run(0, {"INCRBY", "l", "x"}) == kNotIntReply);
}

TEST_CASE("INCR over the int64 range reports overflow", "[kv][errors]") {
  Server s;
  s.Run(0, {"SET", "n", "9223372036854775807"});
  CHECK(s.Run(0, {"INCR", "n"}) == "(error) ERR increment or decrement would overflow");
  CHECK_FALSE(s.last_effect.wrote);
  s.Run(0, {"SET", "m", "-9223372036854775808"});
  CHECK(s.Run(0, {"DECR", "m"}) == "(error) ERR increment or decrement would overflow");
  CHECK(s.Run(0, {"INCRBY", "m", "-1"}) == "(error) ERR increment or decrement would overflow");
  CHECK(s.Run(0, {"GET", "n"}) == "\"9223372036854775807\"");
}

TEST_CASE("DECRBY negation overflow", "[kv][errors]") {
  Server s;
  s.Run(0, {"SET", "x", "0"});
  CHECK(s.Run(0, {"DECRBY", "x", "-9223372036854775808"}) ==
        "(error) ERR decrement would overflow");
  CHECK(s.Run(0, {"GET", "x"}) == "\"0\"");
}

TEST_CASE("EXPIRE with conflicting options", "[kv][errors]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  const std::string nx =
      "(error) ERR NX and XX, GT or LT options at the same time are not "
      "compatible";
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "LT", "GT"}) ==
        "(error) ERR GT and LT options at the same time are not compatible");
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "NX", "GT"}) == nx);
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "NX", "LT"}) == nx);
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "NX", "XX"}) == nx);
  // The NX rule is checked before the GT/LT one.
  CHECK(s.Run(0, {"PEXPIRE", "foo", "200", "GT", "LT", "NX"}) == nx);
  CHECK(s.Run(0, {"TTL", "foo"}) == "(integer) -1");
}

TEST_CASE("EXPIRE with unsupported options", "[kv][errors]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "AB"}) == "(error) ERR Unsupported option AB");
  CHECK(s.Run(0, {"EXPIRE", "foo", "200", "XX", "AB"}) == "(error) ERR Unsupported option AB");
  // Options are parsed before the time.
  CHECK(s.Run(0, {"EXPIRE", "foo", "abc", "AB"}) == "(error) ERR Unsupported option AB");
  // A trailing newline is trimmed; an inner one becomes a space.
  CHECK(UnsupportedOptionError("foo\n") == "ERR Unsupported option foo");
  CHECK(UnsupportedOptionError("\nfoo") == "ERR Unsupported option  foo");
}

TEST_CASE("EXPIRE with a non-integer time", "[kv][errors]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIRE", "foo", "abc"}) == kNotIntReply);
  CHECK(s.Run(0, {"PEXPIREAT", "foo", "1.5"}) == kNotIntReply);
}

TEST_CASE("Invalid expire time names each expire command", "[kv][errors]") {
  Server s;
  s.Run(0, {"SET", "foo", "bar"});
  CHECK(s.Run(0, {"EXPIREAT", "foo", "9223372036854775807"}) ==
        "(error) ERR invalid expire time in 'expireat' command");
  CHECK(s.Run(1, {"PEXPIRE", "foo", "9223372036854775807"}) ==
        "(error) ERR invalid expire time in 'pexpire' command");
  CHECK(InvalidExpireTimeError("PEXPIREAT") == "ERR invalid expire time in 'pexpireat' command");
}

TEST_CASE("ParseInt64 follows string2ll", "[kv][errors]") {
  int64_t v = 7;
  CHECK(ParseInt64("0", &v));
  CHECK(v == 0);
  CHECK(ParseInt64("-9223372036854775808", &v));
  CHECK(v == INT64_MIN);
  CHECK(ParseInt64("9223372036854775807", &v));
  CHECK(v == INT64_MAX);
  for (const char* bad : {"", "-", "-0", "+1", " 1", "1 ", "01", "00", "1a", "9223372036854775808",
                          "-9223372036854775809", "99999999999999999999", "1.0"}) {
    INFO(bad);
    CHECK_FALSE(ParseInt64(bad, &v));
  }
  CHECK_FALSE(ParseInt64(std::string("1\0", 2), &v));
}

}  // namespace
}  // namespace lockstep::kv
