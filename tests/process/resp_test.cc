// The Redis protocol a process client is served in: requests parsed as
// they arrive (whole, split, inline, broken), replies in RESP2 and RESP3,
// and the connection set-up answered without a step as Redis 7 answers it.
#include "sim/process/resp.h"

#include <catch2/catch.hpp>

#include "sim/kv/sha1.h"
#include "sim/process/connection_commands.h"

namespace lockstep::process {
namespace {

using Argv = std::vector<std::string>;

TEST_CASE("a request is taken only once whole, and pipelined ones one at a time", "[process]") {
  std::string in = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv";
  CHECK_FALSE(TakeCommand(in).has_value());
  in += "1\r\n*1\r\n$4\r\nPING\r\n";
  std::optional<ParsedCommand> first = TakeCommand(in);
  REQUIRE(first.has_value());
  CHECK(first->argv == Argv{"SET", "k", "v1"});
  std::optional<ParsedCommand> second = TakeCommand(in);
  REQUIRE(second.has_value());
  CHECK(second->argv == Argv{"PING"});
  CHECK(in.empty());
  CHECK_FALSE(TakeCommand(in).has_value());
}

TEST_CASE("a bulk string carries any bytes, CRLF and NUL included", "[process]") {
  std::string in = std::string("*2\r\n$4\r\nECHO\r\n$4\r\na\r\n\0\r\n", 25);
  std::optional<ParsedCommand> c = TakeCommand(in);
  REQUIRE(c.has_value());
  CHECK(c->argv[1] == std::string("a\r\n\0", 4));
}

TEST_CASE("an inline command is split at spaces, an empty line is nothing", "[process]") {
  std::string in = "PING\r\n\r\nGET  lock.foo\r\n";
  CHECK(TakeCommand(in)->argv == Argv{"PING"});
  CHECK(TakeCommand(in)->argv.empty());
  CHECK(TakeCommand(in)->argv == Argv{"GET", "lock.foo"});
}

TEST_CASE("a broken request is Redis's protocol error, and the rest is dropped", "[process]") {
  std::string in = "*1\r\n+PING\r\n";
  std::optional<ParsedCommand> c = TakeCommand(in);
  REQUIRE(c.has_value());
  CHECK(c->error == "ERR Protocol error: expected '$', got '+'");
  CHECK(in.empty());
  std::string bad_length = "*x\r\n";
  CHECK(TakeCommand(bad_length)->error == "ERR Protocol error: invalid multibulk length");
  std::string negative = "*1\r\n$-5\r\n";
  CHECK(TakeCommand(negative)->error == "ERR Protocol error: invalid bulk length");
}

TEST_CASE("replies are RESP2, nil is RESP3's null once HELLO 3 was said", "[process]") {
  using kv::Reply;
  const Reply r = Reply::Array(
      {Reply::Integer(-1), Reply::Bulk("v"), Reply::Nil(), Reply::Ok(), Reply::Error("ERR x")});
  std::string resp2, resp3;
  EncodeReply(r, false, resp2);
  EncodeReply(r, true, resp3);
  CHECK(resp2 == "*5\r\n:-1\r\n$1\r\nv\r\n$-1\r\n+OK\r\n-ERR x\r\n");
  CHECK(resp3 == "*5\r\n:-1\r\n$1\r\nv\r\n_\r\n+OK\r\n-ERR x\r\n");
}

TEST_CASE("connection set-up is answered as Redis 7 answers it, without a step", "[process]") {
  ConnectionState conn;
  conn.id = 7;
  ScriptCache scripts;
  auto answer = [&](Argv argv) { return AnswerLocally(argv, conn, scripts); };
  CHECK(answer({"ping"}) == "+PONG\r\n");
  CHECK(answer({"CLIENT", "SETNAME", "worker"}) == "+OK\r\n");
  CHECK(answer({"client", "getname"}) == "$6\r\nworker\r\n");
  CHECK(answer({"SELECT", "0"}) == "+OK\r\n");
  CHECK(answer({"SELECT", "1"})->starts_with("-ERR DB index is out of range"));
  CHECK(answer({"HELLO", "4"}) == "-NOPROTO unsupported protocol version\r\n");
  CHECK(answer({"HELLO", "3"})->starts_with("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n"));
  CHECK(conn.resp3);
  CHECK(answer({"INFO", "persistence"})->find("loading:0\r\n") != std::string::npos);
  CHECK_FALSE(answer({"SET", "k", "v"}).has_value());  // a step: the model's
}

TEST_CASE(
    "EVALSHA of a loaded script runs as the EVAL it stands for, and an unknown one is NOSCRIPT",
    "[process]") {
  ConnectionState conn;
  ScriptCache scripts;
  const std::string script = "return redis.call('get', KEYS[1])";
  const std::string sha = kv::Sha1Hex(script);
  Argv unknown = {"EVALSHA", sha, "1", "k"};
  CHECK(AnswerLocally(unknown, conn, scripts) ==
        "-NOSCRIPT No matching script. Please use EVAL.\r\n");
  Argv load = {"SCRIPT", "LOAD", script};
  CHECK(AnswerLocally(load, conn, scripts) == "$40\r\n" + sha + "\r\n");
  Argv exists = {"SCRIPT", "EXISTS", sha, "0000"};
  CHECK(AnswerLocally(exists, conn, scripts) == "*2\r\n:1\r\n:0\r\n");
  Argv run = {"evalsha", sha, "1", "k"};
  CHECK_FALSE(AnswerLocally(run, conn, scripts).has_value());
  CHECK(run == Argv{"EVAL", script, "1", "k"});
}

TEST_CASE("in RESP3 a hash is a map, a score a double and a range WITHSCORES pairs", "[process]") {
  using kv::Reply;
  const auto encode = [](std::vector<std::string> argv, const Reply& r, bool resp3) {
    std::string out;
    EncodeCommandReply(argv, r, resp3, out);
    return out;
  };
  const Reply fields = Reply::Array({Reply::Bulk("f"), Reply::Bulk("v")});
  CHECK(encode({"hgetall", "h"}, fields, true) == "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
  CHECK(encode({"HGETALL", "h"}, fields, false) == "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  CHECK(encode({"ZSCORE", "z", "m"}, Reply::Bulk("0.5"), true) == ",0.5\r\n");
  CHECK(encode({"ZADD", "z", "INCR", "1", "m"}, Reply::Bulk("-inf"), true) == ",-inf\r\n");
  CHECK(encode({"ZADD", "z", "XX", "INCR", "1", "m"}, Reply::Nil(), true) == "_\r\n");
  CHECK(encode({"ZSCORE", "z", "m"}, Reply::Bulk("0.5"), false) == "$3\r\n0.5\r\n");
  const Reply scored = Reply::Array({Reply::Bulk("m"), Reply::Bulk("2")});
  CHECK(encode({"ZRANGE", "z", "0", "-1", "withscores"}, scored, true) ==
        "*1\r\n*2\r\n$1\r\nm\r\n,2\r\n");
  CHECK(encode({"ZRANGE", "z", "0", "-1"}, scored, true) == "*2\r\n$1\r\nm\r\n$1\r\n2\r\n");
  CHECK(encode({"HGETALL", "s"}, Reply::Error("WRONGTYPE x"), true) == "-WRONGTYPE x\r\n");
}

}  // namespace
}  // namespace lockstep::process
