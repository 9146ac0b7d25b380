// EVAL: Lua scripts run atomically at one instant, with Redis 7.0's reply
// conversions and error texts (tests/redis/ holds the model to a real
// server on the same scripts).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/kv/command_table.h"
#include "sim/kv/conflicts.h"
#include "sim/kv/script.h"
#include "sim/kv/sha1.h"
#include "tests/kv/kv_test_util.h"

namespace lockstep::kv {
namespace {

using testing::Server;

// Verbatim from the Redis distributed-locks page.
const std::string kRelease =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
    "    return redis.call(\"del\",KEYS[1])\n"
    "else\n"
    "    return 0\n"
    "end";

const std::string kFencing =
    "local t = redis.call('incr', KEYS[2])\n"
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n"
    "  return t\n"
    "else\n"
    "  return nil\n"
    "end";

// The " script: <sha>, on @user_script:<line>." Redis appends to a runtime
// error.
std::string Where(const std::string& script, int line = 1) {
  return " script: " + Sha1Hex(script) + ", on @user_script:" + std::to_string(line) + ".";
}

std::string Eval(Server& s, const std::string& script, std::vector<std::string> keys = {},
                 std::vector<std::string> args = {}, Millis now = 0) {
  std::vector<std::string> argv = {"EVAL", script, std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return s.Run(now, argv);
}

TEST_CASE("The release script deletes the lock only for its own token", "[kv][eval]") {
  Server s;
  s.Run(0, {"SET", "lock", "tok1"});
  CHECK(Eval(s, kRelease, {"lock"}, {"tok2"}) == "(integer) 0");
  CHECK_FALSE(s.last_effect.wrote);
  CHECK(s.Run(0, {"GET", "lock"}) == "\"tok1\"");
  CHECK(Eval(s, kRelease, {"lock"}, {"tok1"}) == "(integer) 1");
  CHECK(s.last_effect.wrote);
  CHECK(s.Run(0, {"EXISTS", "lock"}) == "(integer) 0");
  CHECK(Eval(s, kRelease, {"lock"}, {"tok1"}) == "(integer) 0");
}

TEST_CASE("The release script sees a lock expire at the script's own instant", "[kv][eval]") {
  Server s;
  s.Run(0, {"SET", "lock", "tok", "PX", "100"});
  // Live in its deadline's millisecond, gone the next one.
  Server at_deadline = s;
  CHECK(Eval(at_deadline, kRelease, {"lock"}, {"tok"}, 100) == "(integer) 1");
  CHECK(Eval(s, kRelease, {"lock"}, {"tok"}, 101) == "(integer) 0");
  CHECK(s.last_effect.saw_expired);
  CHECK_FALSE(s.last_effect.wrote);
}

TEST_CASE("Time stands still for the whole script", "[kv][eval]") {
  Server s;
  CHECK(Eval(s,
             "redis.call('set', KEYS[1], 'v', 'PX', 10)\n"
             "local t = {}\n"
             "for i = 1, 1000 do t[#t + 1] = redis.call('pttl', KEYS[1]) end\n"
             "for i = 1, 1000 do if t[i] ~= 10 then return i end end\n"
             "return redis.call('pttl', KEYS[1])",
             {"k"}, {}, 5000) == "(integer) 10");
  CHECK(s.Run(5010, {"PTTL", "k"}) == "(integer) 0");
}

TEST_CASE("The fencing-token script hands out increasing tokens with the lock", "[kv][eval]") {
  Server s;
  CHECK(Eval(s, kFencing, {"lock", "fence"}, {"c1", "100"}, 0) == "(integer) 1");
  CHECK(Eval(s, kFencing, {"lock", "fence"}, {"c2", "100"}, 50) == "(nil)");
  CHECK(s.last_effect.wrote);  // the counter moved even though SET NX failed
  CHECK(Eval(s, kFencing, {"lock", "fence"}, {"c2", "100"}, 101) == "(integer) 3");
  CHECK(s.Run(101, {"GET", "lock"}) == "\"c2\"");
}

TEST_CASE("Replies become Lua values as Redis converts them", "[kv][eval]") {
  Server s;
  s.Run(0, {"SET", "str", "abc"});
  s.Run(0, {"RPUSH", "list", "x"});
  CHECK(Eval(s, "return type(redis.call('incr', 'n'))") == "\"number\"");
  CHECK(Eval(s, "return type(redis.call('get', 'str'))") == "\"string\"");
  CHECK(Eval(s, "return redis.call('get', 'missing') == false") == "(integer) 1");
  CHECK(Eval(s, "return redis.call('set', 'a', 'b').ok") == "\"OK\"");
  CHECK(Eval(s, "return redis.call('type', 'list').ok") == "\"list\"");
  CHECK(Eval(s, "return redis.pcall('incr', 'str').err") ==
        "\"ERR value is not an integer or out of range\"");
  CHECK(Eval(s, "return redis.pcall('get', 'list').err") ==
        "\"WRONGTYPE Operation against a key holding the wrong kind of value\"");
  // Numbers go to commands as %.17g.
  CHECK(Eval(s, "return redis.call('set', 'f', 0.1)") == "OK");
  CHECK(s.Run(0, {"GET", "f"}) == "\"0.10000000000000001\"");
  // Integer replies become Lua 5.1 numbers (doubles): 2^53 + 1 comes back
  // as 2^53, as it does from Redis.
  CHECK(Eval(s, "return redis.call('incrby', 'n', 2^53)") == "(integer) 9007199254740992");
  CHECK(s.Run(0, {"GET", "n"}) == "\"9007199254740993\"");
}

TEST_CASE("Lua values become replies as Redis converts them", "[kv][eval]") {
  Server s;
  CHECK(Eval(s, "return 3.99") == "(integer) 3");
  CHECK(Eval(s, "return -3.99") == "(integer) -3");
  CHECK(Eval(s, "return 1e300") == "(integer) -9223372036854775808");
  CHECK(Eval(s, "return 0/0") == "(integer) -9223372036854775808");
  CHECK(Eval(s, "return 'x'") == "\"x\"");
  CHECK(Eval(s, "return true") == "(integer) 1");
  CHECK(Eval(s, "return false") == "(nil)");
  CHECK(Eval(s, "return nil") == "(nil)");
  CHECK(Eval(s, "return") == "(nil)");
  CHECK(Eval(s, "return {ok='FINE'}") == "FINE");
  CHECK(Eval(s, "return {ok='a\\r\\nb'}") == "a  b");
  CHECK(Eval(s, "return {err='MYERR bad'}") == "(error) MYERR bad");
  CHECK(Eval(s, "return {err='bad'}") == "(error) bad");
  CHECK(Eval(s, "return redis.error_reply('bad')") == "(error) ERR bad");
  CHECK(Eval(s, "return redis.status_reply('fine')") == "fine");
  CHECK(Eval(s, "return {1, 2, nil, 4}") == "[(integer) 1, (integer) 2]");
  CHECK(Eval(s, "return {1, 'a', {2, {ok='x'}}, false, true}") ==
        "[(integer) 1, \"a\", [(integer) 2, x], (nil), (integer) 1]");
  CHECK(Eval(s, "return {double=0.1}") == "\"0.10000000000000001\"");
  CHECK(Eval(s, "return {KEYS[1], ARGV[1], #KEYS, #ARGV}", {"k"}, {"a", "b"}) ==
        "[\"k\", \"a\", (integer) 1, (integer) 2]");
  CHECK(Eval(s, "return {redis.call('get', 'missing'), 1}") == "[(nil), (integer) 1]");
}

TEST_CASE("EVAL checks numkeys with Redis's texts", "[kv][eval]") {
  Server s;
  CHECK(s.Run(0, {"EVAL", "return 1", "1"}) ==
        "(error) ERR Number of keys can't be greater than number of args");
  CHECK(s.Run(0, {"EVAL", "return 1", "-1"}) == "(error) ERR Number of keys can't be negative");
  CHECK(s.Run(0, {"EVAL", "return 1", "1.5"}) ==
        "(error) ERR value is not an integer or out of range");
  CHECK(s.Run(0, {"EVAL", "return 1", "00"}) ==
        "(error) ERR value is not an integer or out of range");
  CHECK(s.Run(0, {"EVAL", "return 1"}) ==
        "(error) ERR wrong number of arguments for 'eval' command");
  CHECK(s.Run(0, {"eval", "return 1", "0"}) == "(integer) 1");
}

TEST_CASE("Script errors are error replies with Redis's texts", "[kv][eval]") {
  Server s;
  s.Run(0, {"SET", "str", "abc"});
  CHECK(Eval(s, "return 1 +") ==
        "(error) ERR Error compiling script (new function): user_script:1: "
        "unexpected symbol "
        "near '<eof>'");
  std::string script = "return redis.call('incr', 'str')";
  CHECK(Eval(s, script) == "(error) ERR value is not an integer or out of range" + Where(script));
  script = "return redis.pcall('incr', 'str')";
  CHECK(Eval(s, script) == "(error) ERR value is not an integer or out of range");
  script = "return redis.call('nosuch')";
  CHECK(Eval(s, script) == "(error) ERR Unknown Redis command called from script" + Where(script));
  script = "return redis.call('get')";
  CHECK(Eval(s, script) ==
        "(error) ERR Wrong number of args calling Redis command from script" + Where(script));
  CHECK(Eval(s, "return redis.pcall('get')") ==
        "(error) ERR Wrong number of args calling Redis command from script");
  script = "return redis.call()";
  CHECK(Eval(s, script) ==
        "(error) ERR Please specify at least one argument for this redis lib "
        "call" +
            Where(script));
  script = "return redis.call('get', {})";
  CHECK(Eval(s, script) ==
        "(error) ERR Lua redis lib command arguments must be strings or "
        "integers" +
            Where(script));
  script = "return redis.call('eval', 'return 1', 0)";
  CHECK(Eval(s, script) ==
        "(error) ERR This Redis command is not allowed from script" + Where(script));
  script = "\nerror('boom')";
  CHECK(Eval(s, script) == "(error) ERR user_script:2: boom" + Where(script, 2));
  script = "error({err='X boom'})";
  CHECK(Eval(s, script) == "(error) X boom" + Where(script));
  script = "local a = nil return a.b";
  CHECK(Eval(s, script) ==
        "(error) ERR user_script:1: attempt to index local 'a' (a nil value)" + Where(script));
  // Global pcall hands back the err string of an error table.
  CHECK(Eval(s, "local ok, e = pcall(redis.call, 'get') return e") ==
        "\"ERR Wrong number of args calling Redis command from script\"");
}

TEST_CASE("Scripts cannot create or read undefined globals or reach the host", "[kv][eval]") {
  Server s;
  std::string script = "x = 5";
  CHECK(Eval(s, script) ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" + Where(script));
  script = "return y";
  CHECK(Eval(s, script) ==
        "(error) ERR user_script:1: Script attempted to access nonexistent "
        "global variable 'y'" +
            Where(script));
  for (const char* name : {"os", "io", "loadfile", "dofile", "require", "print", "debug", "package",
                           "setfenv", "getfenv"}) {
    INFO(name);
    script = std::string("return ") + name;
    CHECK(Eval(s, script) == std::string("(error) ERR user_script:1: Script attempted to access "
                                         "nonexistent global variable '") +
                                 name + "'" + Where(script));
  }
  script = "string.x = 1";
  CHECK(Eval(s, script) ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" + Where(script));
  script = "rawset(_G, 'x', 1)";
  CHECK(Eval(s, script) == "(error) ERR Attempt to modify a readonly table" + Where(script));
  // A binary chunk is parsed as text, as Redis's Lua does.
  CHECK(Eval(s,
             "local f, e = loadstring(string.dump(function() return 1 end)) "
             "return e")
            .find("unexpected symbol near 'char(27)'") != std::string::npos);
}

TEST_CASE("Nothing a script does to the interpreter reaches the next script", "[kv][eval]") {
  Server s;
  CHECK(Eval(s,
             "table.insert(string, 'junk') collectgarbage('stop') return "
             "string[1]") == "\"junk\"");
  CHECK(Eval(s, "return string[1]") == "(nil)");
  CHECK(Eval(s, "return #KEYS", {"a", "b"}) == "(integer) 2");
  CHECK(Eval(s, "return #KEYS") == "(integer) 0");
  // Every script draws the sequence of a freshly started redis-server.
  CHECK(Eval(s, "return {math.random(100), math.random(100)}") == "[(integer) 40, (integer) 85]");
  CHECK(Eval(s, "return math.random(100)") == "(integer) 40");
  CHECK(Eval(s,
             "math.randomseed(7) local a = math.random() math.randomseed(7) "
             "return a == math.random()") == "(integer) 1");
}

TEST_CASE("Scripts have Redis 7.0's cjson and bit, read-only, cjson's settings reset",
          "[kv][eval]") {
  Server s;
  CHECK(Eval(s, "return {type(rawget(_G, 'cjson')), type(rawget(_G, 'bit'))}") ==
        "[\"table\", \"table\"]");
  CHECK(Eval(s, "return cjson.encode({1, 'a', {true}})") == "\"[1,\\\"a\\\",[true]]\"");
  CHECK(Eval(s, "return cjson.decode('{\"k\": [7]}').k[1]") == "(integer) 7");
  CHECK(Eval(s, "return {bit.band(0xff, 0x0f), bit.tohex(65535)}") ==
        "[(integer) 15, \"0000ffff\"]");
  std::string script = "cjson.x = 1";
  CHECK(Eval(s, script) ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" + Where(script));
  // A setting one script makes is gone for the next.
  script = "cjson.encode_max_depth(1) return cjson.encode({{1}})";
  CHECK(Eval(s, script).find("Cannot serialise, excessive nesting (2)") != std::string::npos);
  CHECK(Eval(s, "return cjson.encode({{1}})") == "\"[[1]]\"");
}

TEST_CASE("Writes before a runtime error stay, as Redis does not roll back", "[kv][eval]") {
  Server s;
  s.Run(0, {"SET", "str", "abc"});
  const std::string script =
      "redis.call('set', 'a', '1') redis.call('incr', 'str') redis.call('set', "
      "'b', '2')";
  CHECK(Eval(s, script) == "(error) ERR value is not an integer or out of range" + Where(script));
  CHECK(s.last_effect.wrote);
  CHECK(s.Run(0, {"GET", "a"}) == "\"1\"");
  CHECK(s.Run(0, {"EXISTS", "b"}) == "(integer) 0");
}

TEST_CASE("A runaway script is stopped by the instruction limit", "[kv][eval]") {
  Server s;
  const std::string prefix = "(error) " + std::string(kScriptInstructionLimitError);
  CHECK(Eval(s, "while true do end").rfind(prefix, 0) == 0);
  // Catching the error does not keep it running.
  CHECK(Eval(s, "while true do pcall(function() while true do end end) end").rfind(prefix, 0) == 0);
  CHECK(Eval(s, "local co = coroutine.wrap(function() while true do end end) co()")
            .rfind(prefix, 0) == 0);
  // Just under the limit is fine.
  CHECK(Eval(s, "local x = 0 for i = 1, 1000000 do x = x + 1 end return x") == "(integer) 1000000");
  // A command counts as kScriptCommandCost instructions: an endless loop of
  // commands stops after 10,000 of them, not 10,000,000 / its few
  // instructions, and 9,000 run.
  s.Run(0, {"DEL", "n"});
  CHECK(Eval(s, "while true do redis.call('incr', 'n') end").rfind(prefix, 0) == 0);
  // A little under 10,000: the loop's own instructions count too.
  const std::string ran = s.Run(0, {"GET", "n"});
  const int64_t commands = std::stoll(ran.substr(1, ran.size() - 2));
  CHECK(commands > 9'000);
  CHECK(commands <= kScriptInstructionLimit / kScriptCommandCost);
  CHECK(Eval(s, "for i = 1, 9000 do redis.call('incr', 'm') end return redis.call('get', 'm')") ==
        "\"9000\"");
  // Memory is capped too.
  CHECK(Eval(s, "return string.rep('x', 2^30)").find("not enough memory") != std::string::npos);
  CHECK(Eval(s, "return 1") == "(integer) 1");
}

TEST_CASE("EVAL's keys are the ones numkeys declares", "[kv][eval][table]") {
  const CommandSpec& eval = *FindCommand("eval");
  CHECK(eval.access == Access::kWrite);
  CHECK(CommandKeys(eval, {"EVAL", "s", "2", "a", "b", "c"}) == std::vector<std::string>{"a", "b"});
  CHECK(CommandKeys(eval, {"EVAL", "s", "0", "a"}).empty());
  CHECK(CommandKeys(eval, {"EVAL", "s", "3", "a"}).empty());
  CHECK(CommandKeys(eval, {"EVAL", "s", "-1", "a"}).empty());
  CHECK(CommandKeys(eval, {"EVAL", "s", "x", "a"}).empty());
  // A script may touch keys it did not declare: it conflicts with everything.
  CHECK_FALSE(CommandsCommute({"EVAL", kRelease, "1", "a", "t"}, {"GET", "b"}));
  CHECK_FALSE(CommandsCommute({"EVAL", kRelease, "1", "a", "t"}, {"GET", "a"}));
}

TEST_CASE("Sha1Hex matches the standard vectors", "[kv][eval]") {
  CHECK(Sha1Hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(Sha1Hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(Sha1Hex(std::string(1000, 'a')) == "291e9a6c66994949b57ba5e650361e98fc36b1ba");
  Server s;
  CHECK(Eval(s, "return redis.sha1hex('abc')") == "\"a9993e364706816aba3e25717850c26c9cd0d89d\"");
}

TEST_CASE("A copied keyspace runs scripts independently", "[kv][eval]") {
  Server a;
  a.Run(0, {"SET", "lock", "t"});
  Server b = a;
  CHECK(Eval(b, kRelease, {"lock"}, {"t"}) == "(integer) 1");
  CHECK(a.Run(0, {"GET", "lock"}) == "\"t\"");
  CHECK(b.Run(0, {"GET", "lock"}) == "(nil)");
}

}  // namespace
}  // namespace lockstep::kv

namespace lockstep::kv {
namespace {

// redis-server 7.0.15's replies, found by sending these to it (issue text of
// the conformance work): the shebang is read as C reads it.
TEST_CASE("A shebang's flags are split on commas as Redis splits them", "[kv][eval]") {
  testing::Server s;
  const std::string empty_flag = "(error) ERR Unexpected flag in script shebang: ";
  for (const char* flags : {"no-writes,", ",no-writes", "a,,b", ","}) {
    INFO(flags);
    const std::string script = std::string("#!lua flags=") + flags + "\nreturn 5";
    CHECK(s.Run(0, {"EVAL", script, "0"}) ==
          (std::string(flags) == "a,,b" ? empty_flag + "a" : empty_flag));
  }
  CHECK(s.Run(0, {"EVAL", "#!lua flags=\nreturn 5", "0"}) == "(integer) 5");
  CHECK(s.Run(0, {"EVAL", "#!lua flags=no-writes,allow-oom\nreturn 5", "0"}) == "(integer) 5");
}

// redis.call keeps (kv::Text) the arguments of a command the model runs,
// for the whole process: a script's refused command keeps nothing, so a
// script cannot fill memory with names made up at every run.
TEST_CASE("A script's refused command keeps none of its arguments", "[kv][eval]") {
  testing::Server s;
  const uint64_t before = Text::KeptBytes();
  CHECK(s.Run(0, {"EVAL",
                  "for i = 1, 20 do redis.pcall(string.rep('q', 5000) .. i, string.rep('a', "
                  "5000) .. i) end\nreturn redis.pcall('set', KEYS[1], string.rep('b', 5000))",
                  "1", "k"}) == "OK");
  // The SET's key and value are kept; the 40 refused texts of 5,000 bytes are not.
  CHECK(Text::KeptBytes() - before < 20'000);
}

TEST_CASE("A NUL before the shebang's line feed hides the line feed", "[kv][eval]") {
  testing::Server s;
  const std::string invalid = "(error) ERR Invalid script shebang";
  CHECK(s.Run(0, {"EVAL", std::string("#!lua\0\nreturn 5", 15), "0"}) == invalid);
  CHECK(s.Run(0, {"EVAL", std::string("#!\0lua\nreturn 5", 15), "0"}) == invalid);
}

}  // namespace
}  // namespace lockstep::kv
