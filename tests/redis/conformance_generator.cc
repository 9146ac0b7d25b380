#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "sim/kv/command_table.h"
#include "sim/kv/dispatch.h"
#include "sim/kv/int_parse.h"
#include "tests/redis/conformance.h"
#include "tests/redis/conformance_collections.h"
#include "tests/redis/conformance_gen.h"
#include "tests/redis/known_departures.h"

namespace lockstep::conformance {
namespace {

using Builder = void (*)(Gen& g, Command* c);

void OneKey(Gen& g, Command* c) { c->args.push_back(g.Key()); }

void KeyValue(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  c->args.push_back(g.Value());
}

void SomeKeys(Gen& g, Command* c) {
  const uint64_t n = 1 + g.Below(4);
  for (uint64_t i = 0; i < n; ++i) c->args.push_back(g.Key());
  if (n > 1) c->features.push_back("several-keys");
}

void KeyIncrement(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  c->args.push_back(g.Increment());
}

void Rpush(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  const uint64_t n = 1 + g.Below(3);
  for (uint64_t i = 0; i < n; ++i) c->args.push_back(g.Value());
}

// SET key value [NX|XX] [GET] [EX|PX|EXAT|PXAT t|KEEPTTL], in any order and
// combination, conflicting ones included.
void Set(Gen& g, Command* c) {
  KeyValue(g, c);
  const uint64_t n = g.Below(4);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = g.Below(100);
    struct Timed {
      const char* word;
      bool seconds;
      bool absolute;
    };
    static const Timed kTimed[] = {
        {"EX", true, false}, {"PX", false, false}, {"EXAT", true, true}, {"PXAT", false, true}};
    if (r < 14) {
      c->args.push_back(g.Keyword("NX", c));
      c->features.push_back("SET:NX");
    } else if (r < 28) {
      c->args.push_back(g.Keyword("XX", c));
      c->features.push_back("SET:XX");
    } else if (r < 40) {
      c->args.push_back(g.Keyword("GET", c));
      c->features.push_back("SET:GET");
    } else if (r < 48) {
      c->args.push_back(g.Keyword("KEEPTTL", c));
      c->features.push_back("SET:KEEPTTL");
    } else if (r < 94) {
      const Timed& t = kTimed[g.Below(4)];
      c->args.push_back(g.Keyword(t.word, c));
      c->args.push_back(t.absolute ? g.UnixTime(t.seconds, c) : g.Duration(t.seconds, c));
      c->features.push_back("SET:"s + t.word);
    } else if (r < 97) {
      static const std::vector<std::string> bogus = {"NXX", "EXP", "XXNX", "PXATT", "GETT"};
      c->args.push_back(Gen::Lit(g.Pick(bogus)));
      c->features.push_back("SET:unknown-option");
    } else {
      // A time option with its value missing.
      c->args.push_back(g.Keyword(kTimed[g.Below(4)].word, c));
      c->features.push_back("SET:missing-time");
      return;
    }
  }
}

// (P)EXPIRE(AT) key time [NX|XX|GT|LT]...
void Expire(Gen& g, Command* c, bool seconds, bool absolute) {
  c->args.push_back(g.Key());
  c->args.push_back(absolute ? g.UnixTime(seconds, c) : g.Duration(seconds, c));
  const uint64_t n = g.Below(100) < 45 ? 0 : 1 + g.Below(2);
  static const char* kOptions[] = {"NX", "XX", "GT", "LT"};
  for (uint64_t i = 0; i < n; ++i) {
    if (g.Chance(5)) {
      c->args.push_back(Gen::Lit(g.Chance(50) ? "ZZ" : "GTE"));
      c->features.push_back("EXPIRE:unknown-option");
      continue;
    }
    const char* o = kOptions[g.Below(4)];
    c->args.push_back(g.Keyword(o, c));
    c->features.push_back("EXPIRE:"s + o);
  }
}

const std::map<std::string_view, Builder>& Builders();

// Whether `spec` may come up in a sequence of g's: TIME only where the
// server's clock is lockstep's (timed), since a free-running clock's
// microseconds are no instant the model can run at.
bool ClockSet(const Gen& g, const kv::CommandSpec& spec) {
  return g.timed() || spec.timing != kv::Timing::kReadsClock;
}

// A hash's or sorted set's command (H..., Z...) or SELECT: none takes or
// sets a time.
bool TakesNoTime(const kv::CommandSpec& spec) {
  return spec.name[0] == 'H' || spec.name[0] == 'Z' || spec.name == "SELECT";
}

// Verbatim from the Redis distributed-locks page.
constexpr std::string_view kReleaseScript =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
    "    return redis.call(\"del\",KEYS[1])\n"
    "else\n"
    "    return 0\n"
    "end";

// Scripts with no keys or arguments: reply conversions, error replies and
// runtime errors, each with Redis's exact text.
const std::vector<std::string> kPlainScripts = {
    "return {1, 'a', {2, {ok='x'}}, false, true, 3.99, -3.99}",
    "return {1, 2, nil, 4}",
    "return {ok='FINE'}",
    "return {ok='a\\r\\nb'}",
    "return {err='MYERR custom'}",
    "return {err='bad'}",
    "return redis.error_reply('bad')",
    "return redis.status_reply('fine')",
    "return 1e300",
    "return nil",
    "return {double=0.1}",
    "return redis.sha1hex('abc')",
    "return redis.call('get', {})",
    "return redis.call()",
    "return redis.pcall()",
    "return redis.call('nosuch', 'k1')",
    "return redis.call('get')",
    "return redis.pcall('get')",
    "return redis.call('eval', 'return 1', 0)",
    "error('boom')",
    "error({err='X boom'})",
    "return y",
    "x = 1",
    "string.x = 1",
    "local a = nil return a.b",
    "return 1 +",
    "return redis.call('set', 'k1', 0.1)",
    "local ok, e = pcall(redis.call, 'get') return e",
    "return math.random(100)",
    "return cjson.encode({1})",
    "return cjson.encode({1, 'a', {true}, 0.1, -3, 1e20})",
    "return cjson.encode({k='v'})",
    "return cjson.decode('[1, \"x\", {\"k\": [2]}]')[3].k[1]",
    "return cjson.decode('{')",
    "return {type(rawget(_G, 'cjson')), type(rawget(_G, 'bit'))}",
    "return {bit.band(0xff, 0x0f), bit.bxor(5, 3), bit.lshift(1, 31), bit.tohex(65535)}",
    "cjson.x = 1",
    // Shebang lines, and a clock read through a read-only script.
    "#!lua\nreturn 5",
    "#!lua flags=no-writes\nreturn redis.call('pttl', 'k1')",
    "#!lua flags=no-writes\nreturn redis.call('set', 'k1', 'w')",
    "#!lua flags=no-writes,\nreturn 5",
    "#!lua flags=allow-oom,no-cluster\nreturn redis.call('ttl', 'k1')",
};

// EVAL script numkeys key... arg...: the compare-and-delete release with
// matching and other tokens on live, missing and expired locks; the locks
// it releases; every command through redis.call and redis.pcall; plain
// scripts; and numkeys errors.
void Eval(Gen& g, Command* c) {
  static const std::vector<std::string> tokens = {"t1", "t2", "v", "abc"};
  auto script = [&](std::string_view text, const char* feature) {
    c->args.push_back(Gen::Lit(std::string(text)));
    c->features.push_back(feature);
  };
  const uint64_t r = g.Below(100);
  if (r < 30) {
    script(kReleaseScript, "EVAL:release");
    c->args.push_back(Gen::Lit("1"));
    c->args.push_back(g.Key());
    c->args.push_back(Gen::Lit(g.Pick(tokens)));
  } else if (r < 40) {
    script("return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])", "EVAL:acquire");
    c->args.push_back(Gen::Lit("1"));
    c->args.push_back(g.Key());
    c->args.push_back(Gen::Lit(g.Pick(tokens)));
    c->args.push_back(g.Duration(false, c));
  } else if (r < 47) {
    // A lock whose deadline is far in the past: gone for every later command.
    script("return redis.call('set', KEYS[1], ARGV[1], 'PXAT', ARGV[2])", "EVAL:expired-lock");
    c->args.push_back(Gen::Lit("1"));
    c->args.push_back(g.Key());
    c->args.push_back(Gen::Lit(g.Pick(tokens)));
    c->args.push_back(Arg{"", Arg::Base::kNowMs, -kFarMs - static_cast<int64_t>(g.Below(1000))});
  } else if (r < 52) {
    script(
        "local t = redis.call('incr', KEYS[2])\n"
        "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n"
        "  return t\n"
        "else\n"
        "  return nil\n"
        "end",
        "EVAL:fencing");
    c->args.push_back(Gen::Lit("2"));
    c->args.push_back(g.Key());
    c->args.push_back(g.Key());
    c->args.push_back(Gen::Lit(g.Pick(tokens)));
    c->args.push_back(g.Duration(false, c));
  } else if (r < 75) {
    // Any command, as the generator builds it, through redis.call or pcall.
    const bool pcall = g.Chance(40);
    script(pcall ? "local r = redis.pcall(unpack(ARGV))\n"
                   "if type(r) == 'table' and r.err then return 'caught: ' .. r.err end\n"
                   "return r"
                 : "return redis.call(unpack(ARGV))",
           pcall ? "EVAL:pcall" : "EVAL:call");
    c->args.push_back(Gen::Lit("0"));
    const std::span<const kv::CommandSpec> table = kv::CommandTable();
    const kv::CommandSpec* spec = &table[g.Below(table.size())];
    while (spec->name == "EVAL" || !ClockSet(g, *spec)) spec = &table[g.Below(table.size())];
    c->args.push_back(Gen::Lit(g.Cased(spec->name)));
    c->features.push_back("EVAL:call:" + std::string(spec->name));
    Builders().at(spec->name)(g, c);
  } else if (r < 94) {
    script(g.Pick(kPlainScripts), "EVAL:plain");
    c->args.push_back(Gen::Lit("0"));
  } else {
    static const std::vector<std::string> bad = {"-1", "abc", "2", "1.5", "01"};
    script("return 1", "EVAL:numkeys-error");
    c->args.push_back(Gen::Lit(g.Pick(bad)));
    if (g.Chance(50)) c->args.push_back(g.Key());
  }
}

// SELECT of database 0 or of an index a real server refuses: one it has
// besides (1 to 15) is unvouched, and would switch the connection.
void Select(Gen& g, Command* c) {
  static const std::vector<std::string> indexes = {"0", "16", "-1", "abc", "00", "4294967296"};
  c->args.push_back(Gen::Lit(g.Pick(indexes)));
  c->features.push_back("SELECT");
}

const std::map<std::string_view, Builder>& Builders() {
  static const std::map<std::string_view, Builder> builders = {
      {"GET", OneKey},
      {"SET", Set},
      {"SETNX", KeyValue},
      {"GETSET", KeyValue},
      {"DEL", SomeKeys},
      {"EXISTS", SomeKeys},
      {"INCR", OneKey},
      {"INCRBY", KeyIncrement},
      {"DECR", OneKey},
      {"DECRBY", KeyIncrement},
      {"EXPIRE", [](Gen& g, Command* c) { Expire(g, c, true, false); }},
      {"PEXPIRE", [](Gen& g, Command* c) { Expire(g, c, false, false); }},
      {"EXPIREAT", [](Gen& g, Command* c) { Expire(g, c, true, true); }},
      {"PEXPIREAT", [](Gen& g, Command* c) { Expire(g, c, false, true); }},
      {"PERSIST", OneKey},
      {"TTL", OneKey},
      {"PTTL", OneKey},
      {"RPUSH", Rpush},
      {"LLEN", OneKey},
      {"TYPE", OneKey},
      {"TIME", [](Gen&, Command*) {}},
      {"SELECT", Select},
      {"HSET", Hset},
      {"HGET", HashField},
      {"HDEL", Hdel},
      {"HEXISTS", HashField},
      {"HINCRBY", Hincrby},
      {"HLEN", OneKey},
      {"HGETALL", OneKey},
      {"ZADD", Zadd},
      {"ZINCRBY", Zincrby},
      {"ZREM", Zrem},
      {"ZSCORE", ZsetMember},
      {"ZCARD", OneKey},
      {"ZCOUNT", ScoreRangeOnly},
      {"ZRANGE", Zrange},
      {"ZRANGEBYSCORE", RangeByScore},
      {"ZREVRANGE", RevRange},
      {"ZREVRANGEBYSCORE", RangeByScore},
      {"ZREMRANGEBYSCORE", ScoreRangeOnly},
      {"ZRANK", ZsetMember},
      {"ZREVRANK", ZsetMember},
      {"EVAL", Eval},
  };
  return builders;
}

// A known command with an argument count its arity refuses.
void WrongArity(Gen& g, const kv::CommandSpec& spec, Command* c) {
  size_t argc = 1;
  if (spec.arity > 0) {
    do {
      argc = 1 + g.Below(static_cast<uint64_t>(spec.arity) + 2);
    } while (argc == static_cast<size_t>(spec.arity));
  } else {
    argc = 1 + g.Below(static_cast<uint64_t>(-spec.arity) - 1);
  }
  c->args.push_back(Gen::Lit(g.Cased(spec.name)));
  for (size_t i = 1; i < argc; ++i) c->args.push_back(i == 1 ? g.Key() : g.Value());
  c->features.push_back("wrong-arity");
}

// A name no Redis knows, with arguments that test how the error quotes them
// (cut at 128 characters, at a NUL, CR and LF made spaces).
void Unknown(Gen& g, Command* c) {
  static const std::vector<std::string> names = {"FOO", "SETNXX", "gett", "Lock", "EXPIREATT"};
  c->args.push_back(Gen::Lit(g.Chance(5) ? std::string(200, 'Z') : g.Pick(names)));
  const uint64_t n = g.Below(4);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = g.Below(5);
    if (r == 0) {
      c->args.push_back(Gen::Lit(std::string(60 + g.Below(100), 'a')));
    } else if (r == 1) {
      c->args.push_back(Gen::Lit(g.Chance(50) ? "\r\na\r\nb\r\n" : "n\0ul"s));
    } else {
      c->args.push_back(r == 2 ? g.Key() : g.Value());
    }
  }
  c->features.push_back("unknown-command");
}

}  // namespace

bool HasBuilder(std::string_view name) { return Builders().count(name) != 0; }

namespace {

Sequence GenerateWith(Gen& g) {
  g.set_keys(1 + g.Below(3));  // fewer keys, more interaction
  const std::span<const kv::CommandSpec> table = kv::CommandTable();
  Sequence s(5 + g.Below(26));
  for (Command& c : s) {
    const uint64_t r = g.Below(1000);
    if (r < 5) continue;  // an empty command, under a known departure
    if (r < 50) {
      WrongArity(g, table[g.Below(table.size())], &c);
    } else if (r < 80) {
      Unknown(g, &c);
    } else {
      const kv::CommandSpec* pick = &table[g.Below(table.size())];
      while (!ClockSet(g, *pick)) pick = &table[g.Below(table.size())];
      // A timed sequence is about deadlines: a command that takes no time,
      // half the table, is kept one time in four and otherwise drawn
      // again, so that TTLs near their rounding points still come up.
      while (g.timed() && TakesNoTime(*pick) && !g.Chance(25)) {
        pick = &table[g.Below(table.size())];
      }
      const kv::CommandSpec& spec = *pick;
      c.args.push_back(Gen::Lit(g.Cased(spec.name)));
      c.features.push_back(std::string(spec.name));
      auto it = Builders().find(spec.name);
      if (it == Builders().end()) {
        // No builder yet: a key is a fair guess; HasBuilder's test fails.
        c.args.push_back(g.Key());
      } else {
        it->second(g, &c);
      }
    }
    if (g.timed()) c.advance_ms = g.Advance();
  }
  return s;
}

}  // namespace

Sequence Generate(uint64_t seed) {
  Gen g(seed);
  return GenerateWith(g);
}

Sequence GenerateTimed(uint64_t seed) {
  // Another stream than Generate's for the same seed.
  Gen g(seed ^ 0x9e3779b97f4a7c15ULL);
  g.set_timed();
  return GenerateWith(g);
}
}  // namespace lockstep::conformance
