// The model keyspace against a real redis-server: generated sequences must
// get the same replies and leave the same keyspace on both.
#include "tests/redis/conformance.h"

#include <chrono>
#include <cstdlib>
#include <set>

#include <catch2/catch.hpp>

#include "sim/kv/command_table.h"
#include "tests/redis/known_departures.h"
#include "tests/redis/redis_server.h"
#include "tests/test_util.h"

namespace lockstep::conformance {
namespace {

// Seeds are split across test cases so that ctest can run them in parallel.
constexpr uint64_t kSeedsPerCase = 2500;

// The error kinds the sequences must provoke, by a piece of their text.
const char* const kErrorKinds[] = {
    "WRONGTYPE",
    "ERR syntax error",
    "ERR value is not an integer or out of range",
    "would overflow",
    "invalid expire time",
    "wrong number of arguments",
    "unknown command",
    "Unsupported option",
    "are not compatible",
    // Scripts: numkeys, compile errors, runtime errors with their suffix.
    "Number of keys",
    "Error compiling script",
    "on @user_script:1.",
    // Hashes and sorted sets.
    "hash value is not an integer",
    "value is not a valid float",
    "min or max is not a float",
    "not valid string range item",
    "resulting score is not a number",
    "INCR option supports a single",
    "LIMIT is only supported",
    "WITHSCORES not supported",
};

void RunSeeds(uint64_t first, uint64_t count) {
  testing::RedisServer server;
  auto redis = server.Connect();
  Runner runner(*redis);
  std::set<std::string> features, errors;
  std::map<std::string, int> departures;
  size_t commands = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t seed = first; seed < first + count; ++seed) {
    const Sequence s = Generate(seed);
    const Outcome o = runner.Run(s);
    if (!o.ok) {
      const Sequence shrunk = Shrink(runner, s);
      const Outcome again = runner.Run(shrunk);
      FAIL("seed " << seed << ": the model and redis-server differ (shrunk from " << s.size()
                   << " commands to " << shrunk.size() << ")\n"
                   << Explain(shrunk, again.ok ? o : again));
    }
    commands += s.size();
    for (const Command& c : s) features.insert(c.features.begin(), c.features.end());
    for (const auto& [id, n] : o.departures) departures[id] += n;
    for (const kv::Reply& e : o.real_errors) {
      for (const char* kind : kErrorKinds) {
        if (e.text.str().find(kind) != std::string::npos) errors.insert(kind);
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(count << " sequences, " << commands << " commands in " << seconds << " s");

  // Coverage: every command, option and kind of trouble came up.
  // TIME comes up in the timed sequences alone (below).
  for (const kv::CommandSpec& spec : kv::CommandTable()) {
    INFO(spec.name);
    if (spec.timing == kv::Timing::kReadsClock) continue;
    CHECK(features.count(std::string(spec.name)) == 1);
  }
  for (const char* f : {"SET:NX",
                        "SET:XX",
                        "SET:GET",
                        "SET:KEEPTTL",
                        "SET:EX",
                        "SET:PX",
                        "SET:EXAT",
                        "SET:PXAT",
                        "SET:unknown-option",
                        "SET:missing-time",
                        "EXPIRE:NX",
                        "EXPIRE:XX",
                        "EXPIRE:GT",
                        "EXPIRE:LT",
                        "EXPIRE:unknown-option",
                        "option-with-nul",
                        "several-keys",
                        "wrong-arity",
                        "unknown-command",
                        "duration:future",
                        "duration:non-positive",
                        "unix-time:past",
                        "unix-time:future",
                        "unix-time:epoch",
                        "time:limits",
                        "time:not-integer",
                        "EVAL:release",
                        "EVAL:acquire",
                        "EVAL:expired-lock",
                        "EVAL:fencing",
                        "EVAL:call",
                        "EVAL:pcall",
                        "EVAL:plain",
                        "EVAL:numkeys-error",
                        "HSET:odd",
                        "ZADD:NX",
                        "ZADD:XX",
                        "ZADD:GT",
                        "ZADD:LT",
                        "ZADD:CH",
                        "ZADD:INCR",
                        "ZADD:odd",
                        "score:edge",
                        "range:open",
                        "range:lex",
                        "ZRANGE:BYSCORE",
                        "ZRANGE:BYLEX",
                        "ZRANGE:REV",
                        "ZRANGE:LIMIT",
                        "ZRANGE:WITHSCORES"}) {
    INFO(f);
    CHECK(features.count(f) == 1);
  }
  for (const char* kind : kErrorKinds) {
    INFO(kind);
    CHECK(errors.count(kind) == 1);
  }
  // Only listed departures were skipped.
  for (const auto& entry : departures) {
    const auto& id = entry.first;  // a lambda cannot capture a structured binding in clang 14
    INFO(id);
    CHECK(std::any_of(std::begin(kKnownDepartures), std::end(kKnownDepartures),
                      [&](const Departure& d) { return d.id == id; }));
  }
}

TEST_CASE("every command's arity, access and keys are redis-server's (COMMAND INFO)") {
  testing::RedisServer server;
  auto redis = server.Connect();
  for (const kv::CommandSpec& spec : kv::CommandTable()) {
    INFO(spec.name);
    // EVAL's keys are counted by its numkeys (movablekeys), and the model
    // takes it for a write, since the script may write.
    if (spec.name == "EVAL") continue;
    std::string error;
    const std::optional<kv::Reply> info =
        redis->Command({"COMMAND", "INFO", std::string(spec.name)}, &error);
    REQUIRE(info.has_value());
    REQUIRE(info->elements.size() == 1);
    const std::vector<kv::Reply>& row = info->elements[0].elements;
    REQUIRE(row.size() >= 6);
    CHECK(row[1].integer == spec.arity);
    std::set<std::string> flags;
    for (const kv::Reply& f : row[2].elements) flags.insert(f.text);
    // A write is flagged "write"; TIME, which reads no key, is not "readonly".
    CHECK((flags.count("write") == 1) == (spec.access == kv::Access::kWrite));
    CHECK(row[3].integer == spec.first_key);
    CHECK(row[4].integer == spec.last_key);
    CHECK(row[5].integer == spec.key_step);
  }
}

TEST_CASE("the generator has a builder for every command the model implements") {
  for (const kv::CommandSpec& spec : kv::CommandTable()) {
    INFO(spec.name);
    CHECK(HasBuilder(spec.name));
  }
}

TEST_CASE("the same seed generates the same sequence") {
  for (uint64_t seed : {1, 2, 99}) {
    const Sequence a = Generate(seed), b = Generate(seed);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK(Render(a[i]) == Render(b[i]));
  }
}

TEST_CASE("the model gives redis-server's replies and keyspace for seeds 1 to 2500") {
  RunSeeds(1, kSeedsPerCase);
}

TEST_CASE("the model gives redis-server's replies and keyspace for seeds 2501 to 5000") {
  RunSeeds(1 + kSeedsPerCase, kSeedsPerCase);
}

Command Plain(std::initializer_list<const char*> words) {
  Command c;
  for (const char* w : words) c.args.push_back(Arg{w, Arg::Base::kNone, 0});
  return c;
}

TEST_CASE("a planted mismatch is shrunk to the two commands that show it") {
  testing::RedisServer server;
  auto redis = server.Connect();
  // The fault: the model's INCR answers 3 where it should answer 2.
  Runner runner(*redis, [](const Argv& argv, kv::Reply* reply) {
    if (argv[0] == "INCR" && *reply == kv::Reply::Integer(2)) *reply = kv::Reply::Integer(3);
  });
  Sequence s = Generate(7);
  const Sequence tail = Generate(8);
  s.push_back(Plain({"SET", "k1", "1"}));
  s.push_back(Plain({"INCR", "k1"}));
  s.insert(s.end(), tail.begin(), tail.end());
  REQUIRE_FALSE(runner.Run(s).ok);

  const Sequence shrunk = Shrink(runner, s);
  const Outcome o = runner.Run(shrunk);
  INFO(Explain(shrunk, o));
  REQUIRE(shrunk.size() == 2);
  CHECK_FALSE(o.ok);
  CHECK(o.at == 1);
  CHECK(Render(shrunk[1]) == "INCR k1");
  CHECK(Explain(shrunk, o).find("model: (integer) 3   redis: (integer) 2   <-- differs") !=
        std::string::npos);
}

TEST_CASE("a command under a known departure is sent to neither side and counted") {
  testing::RedisServer server;
  auto redis = server.Connect();
  Runner runner(*redis);
  const Outcome o = runner.Run({Plain({"SET", "k1", "v"}), Command{}, Plain({"GET", "k1"})});
  CHECK(o.ok);
  CHECK(o.departures.at("empty-command") == 1);
  REQUIRE(o.real.size() == 3);
  CHECK_FALSE(o.real[1].has_value());
  CHECK(o.real[2] == kv::Reply::Bulk("v"));
}

TEST_CASE("far-past and far-future deadlines expire or not on both sides alike") {
  testing::RedisServer server;
  auto redis = server.Connect();
  Runner runner(*redis);
  auto at = [](const char* cmd, const char* key, int64_t offset_ms) {
    Command c = Plain({cmd, key});
    c.args.push_back(Arg{"", Arg::Base::kNowMs, offset_ms});
    return c;
  };
  Command set_past = Plain({"SET", "k1", "v", "PXAT"});
  set_past.args.push_back(Arg{"", Arg::Base::kNowMs, -1'000'000'000});
  const Sequence s = {set_past,
                      Plain({"GET", "k1"}),
                      Plain({"SETNX", "k1", "w"}),
                      at("PEXPIREAT", "k1", 3'000'000'000),
                      Plain({"PTTL", "k1"}),
                      Plain({"SET", "k2", "x"}),
                      at("PEXPIREAT", "k2", -1'000'000'000),
                      Plain({"EXISTS", "k1", "k2"})};
  const Outcome o = runner.Run(s);
  INFO(Explain(s, o));
  CHECK(o.ok);
  REQUIRE(o.real.size() == s.size());
  CHECK(o.real[1] == kv::Reply::Nil());
  CHECK(o.real[2] == kv::Reply::Integer(1));
  CHECK(o.real[7] == kv::Reply::Integer(1));
}

TEST_CASE("the release script behaves alike on both sides for every kind of lock") {
  testing::RedisServer server;
  auto redis = server.Connect();
  Runner runner(*redis);
  const std::string release =
      "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
      "    return redis.call(\"del\",KEYS[1])\n"
      "else\n"
      "    return 0\n"
      "end";
  auto eval = [&](const char* key, const char* token) {
    Command c = Plain({"EVAL"});
    c.args.push_back(Arg{release, Arg::Base::kNone, 0});
    for (const char* a : {"1", key, token}) c.args.push_back(Arg{a, Arg::Base::kNone, 0});
    return c;
  };
  Command expired = Plain({"SET", "k2", "t1", "PXAT"});
  expired.args.push_back(Arg{"", Arg::Base::kNowMs, -1'000'000'000});
  const Sequence s = {Plain({"SET", "k1", "t1"}),
                      eval("k1", "t2"),  // another client's token
                      eval("k1", "t1"),  // its own
                      eval("k1", "t1"),  // already released
                      expired,
                      eval("k2", "t1"),  // expired: gone
                      Plain({"SET", "k3", "abc"}),
                      Plain({"EVAL", "return redis.call('incr', KEYS[1])", "1", "k3"})};
  const Outcome o = runner.Run(s);
  INFO(Explain(s, o));
  CHECK(o.ok);
  REQUIRE(o.real.size() == s.size());
  CHECK(o.real[1] == kv::Reply::Integer(0));
  CHECK(o.real[2] == kv::Reply::Integer(1));
  CHECK(o.real[3] == kv::Reply::Integer(0));
  CHECK(o.real[5] == kv::Reply::Integer(0));
  CHECK(o.real[7] ==
        kv::Reply::Error("ERR value is not an integer or out of range script: "
                         "2bab3b661081db58bd2341920e0ba7cf5dc77b25, on @user_script:1."));
}

TEST_CASE("odd shebang lines get the same replies on both sides") {
  testing::RedisServer server;
  auto redis = server.Connect();
  Runner runner(*redis);
  auto eval = [](const std::string& script) {
    Command c = Plain({"EVAL"});
    c.args.push_back(Arg{script, Arg::Base::kNone, 0});
    c.args.push_back(Arg{"0", Arg::Base::kNone, 0});
    return c;
  };
  Sequence s;
  for (const char* flags : {"no-writes,", ",no-writes", "a,,b", ",", "", "no-writes,allow-oom"}) {
    s.push_back(eval(std::string("#!lua flags=") + flags + "\nreturn 5"));
  }
  s.push_back(eval(std::string("#!lua\0\nreturn 5", 15)));
  s.push_back(eval(std::string("#!\0lua\nreturn 5", 15)));
  s.push_back(eval("#!lua\nreturn 5"));
  const Outcome o = runner.Run(s);
  INFO(Explain(s, o));
  CHECK(o.ok);
  REQUIRE(o.real.size() == s.size());
  CHECK(o.real[0] == kv::Reply::Error("ERR Unexpected flag in script shebang: "));
  CHECK(o.real[4] == kv::Reply::Integer(5));
  CHECK(o.real[6] == kv::Reply::Error("ERR Invalid script shebang"));
  CHECK(o.real[8] == kv::Reply::Integer(5));
}

// The generated sequences keep deadlines far from now; this pins the instant
// itself. A key whose deadline is the server's current millisecond is still
// there (PTTL 0) and is gone a millisecond later (-2). The runner checks each
// PTTL against the model at the instant the server ran it, so the outcome is
// exact whichever millisecond each one lands in; the loop only waits until
// the deadline's own millisecond has been hit.
TEST_CASE("a key is live in its deadline's millisecond and expired after it on both sides") {
  testing::RedisServer server;
  auto redis = server.Connect();
  Runner runner(*redis);
  Command set = Plain({"SET", "k1", "v", "PXAT"});
  set.args.push_back(Arg{"", Arg::Base::kNowMs, 1});
  Sequence s = {set};
  for (int i = 0; i < 200; ++i) s.push_back(Plain({"PTTL", "k1"}));
  s.push_back(Plain({"DEL", "k1"}));  // the final keyspace must not depend on timing
  bool saw_deadline = false, saw_expired = false;
  for (int attempt = 0; attempt < 50 && !(saw_deadline && saw_expired); ++attempt) {
    const Outcome o = runner.Run(s);
    INFO(Explain(s, o));
    REQUIRE(o.ok);
    for (const auto& r : o.real) {
      saw_deadline = saw_deadline || r == kv::Reply::Integer(0);
      saw_expired = saw_expired || r == kv::Reply::Integer(-2);
    }
  }
  CHECK(saw_deadline);
  CHECK(saw_expired);
}

// A redis-server whose clock lockstep sets, for timed sequences. The tests
// run from the build tree, where the clock shim is beside lockstep.
struct TimedServer {
  TimedServer()
      : process((setenv("LOCKSTEP_CLOCK_SHIM", LOCKSTEP_CLOCK_SHIM_PATH, 1),
                 replay::RedisProcessOptions{.binary = replay::FindRedisServer(),
                                             .controlled_clock = true})),
        redis(process.Connect()),
        runner(*redis, process) {}
  replay::RedisProcess process;
  std::unique_ptr<replay::RedisConnection> redis;
  Runner runner;
};

TEST_CASE("at virtual times the model gives redis-server's replies and keyspace for 5000 seeds",
          "[scaled]") {
  TimedServer server;
  std::set<std::string> features;
  size_t commands = 0, advanced = 0, ttl_replies = 0;
  // Under ASan (several times slower) the first 1000.
  const uint64_t seeds = testing::kAddressSanitizer ? 1000 : 5000;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const Sequence s = GenerateTimed(seed);
    const Outcome o = server.runner.Run(s);
    if (!o.ok) {
      const Sequence shrunk = Shrink(server.runner, s);
      const Outcome again = server.runner.Run(shrunk);
      FAIL("timed seed " << seed << ": the model and redis-server differ (shrunk from " << s.size()
                         << " commands to " << shrunk.size() << ")\n"
                         << Explain(shrunk, again.ok ? o : again));
    }
    commands += s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      features.insert(s[i].features.begin(), s[i].features.end());
      advanced += s[i].advance_ms > 0;
      const auto& r = o.real[i];
      ttl_replies += r && r->type == kv::Reply::Type::kInteger && r->integer >= 0 &&
                     !s[i].args.empty() &&
                     (s[i].args[0].text == "TTL" || s[i].args[0].text == "PTTL");
    }
  }
  INFO(commands << " commands, " << advanced << " after the clock moved");
  CHECK(advanced > commands / 3);
  // Live keys' TTLs, near their rounding points: about one seed in fifteen
  // gives one (73 in the first 1000, 324 in 5000).
  CHECK(ttl_replies > seeds / 20);
  for (const char* f :
       {"duration:near", "unix-time:near", "EXPIRE:GT", "EXPIRE:LT", "SET:PX", "SET:EXAT",
        "EVAL:acquire", "TIME", "EVAL:call:TIME", "SELECT", "EVAL:call:SELECT"}) {
    INFO(f);
    CHECK(features.count(f) == 1);
  }
}

// Sequences whose clock moves by given amounts.
Command After(int64_t ms, std::initializer_list<const char*> words) {
  Command c = Plain(words);
  c.advance_ms = ms;
  return c;
}

TEST_CASE("at virtual times TTL rounds at 500 ms and a key lives through its deadline alike") {
  TimedServer server;
  const Sequence s = {After(10, {"SET", "k1", "v", "PX", "1000"}),  // until 1010
                      After(500, {"TTL", "k1"}),                    // 500 left: rounds up
                      After(1, {"TTL", "k1"}),                      // 499 left: rounds down
                      After(0, {"PTTL", "k1"}),
                      After(499, {"GET", "k1"}),  // at its deadline: live
                      After(1, {"GET", "k1"}),    // a millisecond later: gone
                      After(0, {"TTL", "k1"})};
  const Outcome o = server.runner.Run(s);
  INFO(Explain(s, o));
  REQUIRE(o.ok);
  CHECK(o.real[1] == kv::Reply::Integer(1));
  CHECK(o.real[2] == kv::Reply::Integer(0));
  CHECK(o.real[3] == kv::Reply::Integer(499));
  CHECK(o.real[4] == kv::Reply::Bulk("v"));
  CHECK(o.real[5] == kv::Reply::Nil());
  CHECK(o.real[6] == kv::Reply::Integer(-2));
}

TEST_CASE("at virtual times GT and LT at an equal deadline change nothing on both sides") {
  TimedServer server;
  Command at = After(0, {"PEXPIREAT", "k1"});
  at.args.push_back(Arg{"", Arg::Base::kNowMs, 1000});
  Command at_gt = at;
  at_gt.args.push_back(Arg{"GT", Arg::Base::kNone, 0});
  Command at_lt = at;
  at_lt.args.push_back(Arg{"LT", Arg::Base::kNone, 0});
  const Sequence s = {After(7, {"SET", "k1", "v", "PX", "1000"}),  // until 1007
                      After(0, {"PEXPIRE", "k1", "1000", "GT"}),
                      at_gt,
                      at_lt,
                      After(0, {"PEXPIRE", "k1", "1000", "LT"}),
                      After(0, {"PTTL", "k1"})};
  const Outcome o = server.runner.Run(s);
  INFO(Explain(s, o));
  REQUIRE(o.ok);
  for (size_t i = 1; i <= 4; ++i) CHECK(o.real[i] == kv::Reply::Integer(0));
  CHECK(o.real[5] == kv::Reply::Integer(1000));
}

TEST_CASE("at virtual times a mismatch is found and shrunk with the clock's moves") {
  TimedServer server;
  // The fault: the model's PTTL is a millisecond short at 500.
  Runner runner(*server.redis, server.process, [](const Argv& argv, kv::Reply* reply) {
    if (argv[0] == "PTTL" && *reply == kv::Reply::Integer(500)) *reply = kv::Reply::Integer(499);
  });
  const Sequence s = {After(0, {"SET", "k2", "x"}), After(0, {"SET", "k1", "v", "PX", "800"}),
                      After(5, {"INCR", "k3"}),     After(0, {"SET", "k2", "y"}),
                      After(295, {"GET", "k1"}),    After(0, {"DEL", "k2"}),
                      After(0, {"PTTL", "k1"}),     After(9, {"GET", "k3"})};
  REQUIRE_FALSE(runner.Run(s).ok);
  const Sequence shrunk = Shrink(runner, s);
  const Outcome o = runner.Run(shrunk);
  const std::string text = Explain(shrunk, o);
  INFO(text);
  // The moves that reach 500 ms left stay: 5 + 295.
  REQUIRE(shrunk.size() == 4);
  CHECK(Render(shrunk[1]) == "(+5 ms) INCR k3");
  CHECK(Render(shrunk[2]) == "(+295 ms) GET k1");
  CHECK(text.find("model: (integer) 499   redis: (integer) 500   <-- differs") !=
        std::string::npos);
}

}  // namespace
}  // namespace lockstep::conformance
