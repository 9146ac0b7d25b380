#include "tests/redis/conformance.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string_view>

#include "sim/kv/command_table.h"
#include "sim/kv/dispatch.h"
#include "sim/kv/int_parse.h"
#include "tests/redis/known_departures.h"

namespace lockstep::conformance {
namespace {

using std::string_literals::operator""s;

// Deadlines are at least this far from the server's clock: no sequence runs
// long enough for one to cross it.
constexpr int64_t kFarSeconds = 1'000'000;
constexpr int64_t kFarMs = kFarSeconds * 1000;

// Integers at and around the int64 limits, and around the limits of the
// seconds-to-milliseconds conversion.
const std::vector<std::string> kLimits = {
    "9223372036854775807", "9223372036854775806",  "-9223372036854775808", "-9223372036854775807",
    "9223372036854775",    "9223372036854776",     "-9223372036854775",    "-9223372036854776",
    "9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999"};
const std::vector<std::string> kNotIntegers = {"abc", "1.5", "",    "+5", " 5",
                                               "05",  "-0",  "10s", "-",  "1e3"};

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  uint64_t Below(uint64_t n) { return rng_() % n; }
  bool Chance(uint64_t percent) { return Below(100) < percent; }
  const std::string& Pick(const std::vector<std::string>& v) { return v[Below(v.size())]; }

  void set_keys(uint64_t n) { keys_ = n; }
  void set_timed() { timed_ = true; }
  bool timed() const { return timed_; }

  // Command names and keywords in any case: Redis compares them without.
  std::string Cased(std::string_view upper) {
    std::string s(upper);
    const uint64_t how = Below(8);
    for (char& c : s) {
      const bool lower = how == 0 || (how == 1 && Chance(50));
      if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
  }

  // A keyword, now and then with a NUL and junk after it: Redis compares
  // options as C strings, so it still counts.
  Arg Keyword(std::string_view upper, Command* c) {
    std::string s = Cased(upper);
    if (Chance(3)) {
      s += "\0junk"s;
      c->features.push_back("option-with-nul");
    }
    return Lit(s);
  }

  static Arg Lit(std::string s) { return Arg{std::move(s), Arg::Base::kNone, 0}; }

  Arg Key() {
    if (Chance(4)) {
      static const std::vector<std::string> odd = {"", "k\r\n1", "k\0z"s, "lock.foo"};
      return Lit(Pick(odd));
    }
    return Lit("k" + std::to_string(1 + Below(keys_)));
  }

  Arg Value() {
    static const std::vector<std::string> values = {"0",
                                                    "1",
                                                    "-1",
                                                    "10",
                                                    "41",
                                                    "9223372036854775807",
                                                    "-9223372036854775808",
                                                    "9223372036854775806",
                                                    "-9223372036854775807",
                                                    "abc",
                                                    "",
                                                    "01",
                                                    "-0",
                                                    "1.5",
                                                    "+5",
                                                    " 7",
                                                    "18446744073709551616",
                                                    "x\r\ny",
                                                    "\0"s,
                                                    "v"};
    if (Chance(10)) return Lit(std::to_string(static_cast<int64_t>(Below(2001)) - 1000));
    return Lit(Pick(values));
  }

  Arg Increment() {
    static const std::vector<std::string> small = {"1", "-1", "0", "5", "100", "-100"};
    const uint64_t r = Below(100);
    if (r < 60) return Lit(Pick(small));
    if (r < 85) return Lit(Pick(kLimits));
    return Lit(Pick(kNotIntegers));
  }

  // A duration for EX, PX, EXPIRE, PEXPIRE: far in the future, or one whose
  // outcome does not depend on the clock (non-positive, overflowing, not a
  // number). Far-future durations differ by whole seconds within a sequence,
  // so GT and LT never compare two that could land within a millisecond.
  Arg Duration(bool seconds, Command* c) {
    if (timed_ && Chance(75)) return NearDuration(seconds, c);
    const uint64_t r = Below(100);
    if (r < 65) {
      ++relative_;
      c->features.push_back("duration:future");
      return Lit(std::to_string(seconds ? kFarSeconds + 1000 * relative_
                                        : kFarMs + 1'000'000 * relative_));
    }
    if (r < 78) {
      c->features.push_back("duration:non-positive");
      static const std::vector<std::string> v = {"0", "-1", "-1000000"};
      return Lit(Pick(v));
    }
    if (r < 92) {
      c->features.push_back("time:limits");
      return Lit(Pick(kLimits));
    }
    c->features.push_back("time:not-integer");
    return Lit(Pick(kNotIntegers));
  }

  // A Unix time for EXAT, PXAT, EXPIREAT, PEXPIREAT: far past, far future,
  // near the epoch, at the limits, or not a number.
  Arg UnixTime(bool seconds, Command* c) {
    if (timed_ && Chance(75)) return NearUnixTime(seconds, c);
    const uint64_t r = Below(100);
    const Arg::Base base = seconds ? Arg::Base::kNowSeconds : Arg::Base::kNowMs;
    const int64_t far = seconds ? kFarSeconds : kFarMs;
    if (r < 35) {
      c->features.push_back("unix-time:past");
      return Arg{"", base, -far - static_cast<int64_t>(Below(1000))};
    }
    if (r < 75) {
      c->features.push_back("unix-time:future");
      return Arg{"", base, 3 * far + static_cast<int64_t>(Below(1000))};
    }
    if (r < 85) {
      c->features.push_back("unix-time:epoch");
      static const std::vector<std::string> v = {"1", "0", "-1", "-1000"};
      return Lit(Pick(v));
    }
    if (r < 95) {
      c->features.push_back("time:limits");
      return Lit(Pick(kLimits));
    }
    c->features.push_back("time:not-integer");
    return Lit(Pick(kNotIntegers));
  }

  // Timed: a duration that can run out within the sequence, from a few
  // values so that GT and LT meet equal deadlines, and around the 500 ms
  // at which TTL rounds.
  Arg NearDuration(bool seconds, Command* c) {
    c->features.push_back("duration:near");
    if (seconds) return Lit(std::to_string(1 + Below(3)));
    static const std::vector<std::string> v = {"1",    "2",    "499",  "500",  "501", "999",
                                               "1000", "1001", "1499", "1500", "2000"};
    return Chance(80) ? Lit(Pick(v)) : Lit(std::to_string(1 + Below(3000)));
  }

  // Timed: an instant near the clock, just past, now, or soon.
  Arg NearUnixTime(bool seconds, Command* c) {
    c->features.push_back("unix-time:near");
    if (seconds) return Arg{"", Arg::Base::kNowSeconds, static_cast<int64_t>(Below(5)) - 1};
    static const int64_t v[] = {-1, 0, 1, 500, 1000, 1500, 2000};
    return Arg{"", Arg::Base::kNowMs,
               Chance(80) ? v[Below(7)] : static_cast<int64_t>(Below(3000)) - 500};
  }

  // Timed: how far the clock moves before a command; now and then across a
  // TTL's rounding point or a whole TTL.
  int64_t Advance() {
    const uint64_t r = Below(100);
    if (r < 45) return 0;
    if (r < 75) return 1 + static_cast<int64_t>(Below(3));
    if (r < 90) {
      static const int64_t v[] = {499, 500, 501, 999, 1000, 1001};
      return v[Below(6)];
    }
    return static_cast<int64_t>(Below(2500));
  }

 private:
  std::mt19937_64 rng_;
  uint64_t keys_ = 3;
  int64_t relative_ = 0;
  bool timed_ = false;
};

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
    while (spec->name == "EVAL") spec = &table[g.Below(table.size())];
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

bool Printable(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char ch) { return ch > ' ' && ch < 0x7f && ch != '"'; });
}

kv::Entry Normalized(kv::Entry e) {
  if (e.kind == kv::Entry::Kind::kList) {
    e.value.clear();
  } else {
    e.list.clear();
  }
  return e;
}

std::vector<kv::Entry> Normalized(std::vector<kv::Entry> v) {
  for (auto& e : v) e = Normalized(std::move(e));
  return v;
}

std::string Describe(const std::vector<kv::Entry>& v) {
  if (v.empty()) return "(empty)";
  std::string s;
  for (const kv::Entry& e : v) {
    if (!s.empty()) s += "  ";
    s += kv::Reply::Bulk(e.key).ToString() + "=";
    if (e.kind == kv::Entry::Kind::kList) {
      std::vector<kv::Reply> items;
      for (const auto& x : e.list) items.push_back(kv::Reply::Bulk(x));
      s += kv::Reply::Array(items).ToString();
    } else {
      s += kv::Reply::Bulk(e.value).ToString();
    }
    s += e.deadline ? " until " + kv::FormatInt64(*e.deadline) : "";
  }
  return s;
}

int64_t TimeMs(const kv::Reply& r) {
  int64_t s = 0, us = 0;
  if (r.type != kv::Reply::Type::kArray || r.elements.size() != 2 ||
      !kv::ParseInt64(r.elements[0].text, &s) || !kv::ParseInt64(r.elements[1].text, &us)) {
    throw std::runtime_error("TIME answered " + r.ToString());
  }
  return s * 1000 + us / 1000;
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
      const kv::CommandSpec& spec = table[g.Below(table.size())];
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

Argv Materialize(const Command& c, int64_t now_ms) {
  Argv argv;
  for (const Arg& a : c.args) {
    switch (a.base) {
      case Arg::Base::kNone:
        argv.push_back(a.text);
        break;
      case Arg::Base::kNowMs:
        argv.push_back(kv::FormatInt64(now_ms + a.offset));
        break;
      case Arg::Base::kNowSeconds:
        argv.push_back(kv::FormatInt64(now_ms / 1000 + a.offset));
        break;
    }
  }
  return argv;
}

std::string Render(const Command& c) {
  if (c.args.empty()) return "(empty command)";
  std::string s = c.advance_ms > 0 ? "(+" + std::to_string(c.advance_ms) + " ms) " : "";
  for (const Arg& a : c.args) {
    if (!s.empty() && s.back() != ' ') s += ' ';
    const std::string sign = a.offset < 0 ? "-" : "+";
    const std::string magnitude = std::to_string(a.offset < 0 ? -a.offset : a.offset);
    switch (a.base) {
      case Arg::Base::kNone:
        s += Printable(a.text) ? a.text : kv::Reply::Bulk(a.text).ToString();
        break;
      case Arg::Base::kNowMs:
        s += "<now" + sign + magnitude + "ms>";
        break;
      case Arg::Base::kNowSeconds:
        s += "<now" + sign + magnitude + "s>";
        break;
    }
  }
  return s;
}

std::vector<kv::Reply> Runner::Send(const std::vector<Argv>& commands) {
  std::string error;
  auto replies = redis_.Pipeline(commands, &error);
  if (!replies) throw std::runtime_error("redis-server connection failed: " + error);
  return *std::move(replies);
}

std::vector<kv::Entry> Runner::RealKeyspace() {
  kv::Reply keys = Send({{"KEYS", "*"}}).front();
  std::vector<std::string> names;
  for (const auto& k : keys.elements) names.push_back(k.text);
  std::sort(names.begin(), names.end());
  std::vector<Argv> reads;
  for (const auto& k : names) {
    reads.push_back({"TYPE", k});
    reads.push_back({"GET", k});
    reads.push_back({"LRANGE", k, "0", "-1"});
    reads.push_back({"PEXPIRETIME", k});
  }
  std::vector<kv::Reply> r = reads.empty() ? std::vector<kv::Reply>() : Send(reads);
  std::vector<kv::Entry> out;
  for (size_t i = 0; i < names.size(); ++i) {
    kv::Entry e;
    e.key = names[i];
    const kv::Reply& type = r[4 * i];
    if (type.text == "list") {
      e.kind = kv::Entry::Kind::kList;
      for (const auto& x : r[4 * i + 2].elements) e.list.push_back(x.text);
    } else if (type.text == "string") {
      e.value = r[4 * i + 1].text;
    } else {
      e.value = "(unexpected type " + type.ToString() + ")";
    }
    const kv::Reply& when = r[4 * i + 3];
    if (when.integer >= 0) e.deadline = when.integer;
    out.push_back(e);
  }
  return out;
}

namespace {

// A command under a known departure is sent to neither side: counted, and
// recorded as not run.
bool SkippedAsDeparture(const Argv& argv, Outcome& o) {
  const std::string_view departure = DepartureFor(argv);
  if (departure.empty()) return false;
  ++o.departures[std::string(departure)];
  o.model.emplace_back();
  o.real.emplace_back();
  return true;
}

}  // namespace

Outcome Runner::RunTimed(const Sequence& s) {
  Outcome o;
  kv::Keyspace model;
  int64_t now = 0;
  clock_->SetClock(now);
  const kv::Reply flushed = Send({{"FLUSHALL"}}).front();
  if (flushed != kv::Reply::Ok())
    throw std::runtime_error("FLUSHALL answered " + flushed.ToString());
  for (size_t i = 0; i < s.size(); ++i) {
    now += s[i].advance_ms;
    clock_->SetClock(now);
    const Argv argv = Materialize(s[i], now);
    if (SkippedAsDeparture(argv, o)) continue;
    const kv::Reply real = Send({argv}).front();
    kv::Reply mine = kv::Execute(model, argv, now);
    if (hook_) hook_(argv, &mine);
    o.model.push_back(mine);
    o.real.push_back(real);
    if (real.is_error()) o.real_errors.push_back(real);
    if (mine != real) {
      o.ok = false;
      o.at = i;
      o.what = "replies differ at command " + std::to_string(i + 1) + " (clock " +
               std::to_string(now) + " ms)";
      return o;
    }
    const std::vector<kv::Entry> want = Normalized(model.Live(now));
    const std::vector<kv::Entry> got = Normalized(RealKeyspace());
    if (want != got) {
      o.ok = false;
      o.at = i;
      o.what = "keyspaces differ after command " + std::to_string(i + 1) + " (clock " +
               std::to_string(now) + " ms):\n    model: " + Describe(want) +
               "\n    redis: " + Describe(got);
      return o;
    }
  }
  return o;
}

Outcome Runner::Run(const Sequence& s) {
  ++runs_;
  if (clock_ != nullptr) return RunTimed(s);
  Outcome o;
  kv::Keyspace model;
  std::vector<kv::Reply> start = Send({{"FLUSHALL"}, {"TIME"}});
  if (start[0] != kv::Reply::Ok()) {
    throw std::runtime_error("FLUSHALL answered " + start[0].ToString());
  }
  const int64_t now = TimeMs(start[1]);
  int64_t last = now;
  for (size_t i = 0; i < s.size(); ++i) {
    const Argv argv = Materialize(s[i], now);
    if (SkippedAsDeparture(argv, o)) continue;
    std::vector<kv::Reply> r = Send({{"TIME"}, argv, {"TIME"}});
    const kv::Reply& real = r[1];
    const int64_t t0 = TimeMs(r[0]);
    const int64_t t1 = std::max(t0, TimeMs(r[2]));
    last = t1;
    // The server ran the command at some instant in [t0, t1]; usually the
    // two are the same millisecond.
    struct Candidate {
      kv::Reply reply;
      kv::Keyspace after;
    };
    std::vector<Candidate> candidates;
    for (int64_t t = t0; t <= t1 && candidates.size() < 100; ++t) {
      Candidate c{kv::Reply(), model};
      c.reply = kv::Execute(c.after, argv, t);
      if (hook_) hook_(argv, &c.reply);
      candidates.push_back(std::move(c));
    }
    size_t chosen = 0;
    const bool same = std::all_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return c.reply == candidates[0].reply && c.after.Live(t1) == candidates[0].after.Live(t1);
    });
    if (!same) {
      // The instant whose reply and keyspace are the server's; failing
      // that, the first whose reply is (the keyspace check will tell).
      std::optional<std::vector<kv::Entry>> real_keys;
      std::optional<size_t> reply_match;
      for (size_t j = 0; j < candidates.size(); ++j) {
        if (candidates[j].reply != real) continue;
        if (!reply_match) reply_match = j;
        if (!real_keys) real_keys = Normalized(RealKeyspace());
        if (Normalized(candidates[j].after.Live(t1)) == *real_keys) {
          reply_match = j;
          break;
        }
      }
      chosen = reply_match.value_or(0);
    }
    model = std::move(candidates[chosen].after);
    o.model.push_back(candidates[chosen].reply);
    o.real.push_back(real);
    if (real.is_error()) o.real_errors.push_back(real);
    if (candidates[chosen].reply != real) {
      o.ok = false;
      o.at = i;
      o.what = "replies differ at command " + std::to_string(i + 1);
      return o;
    }
  }
  const std::vector<kv::Entry> want = Normalized(model.Live(last));
  const std::vector<kv::Entry> got = Normalized(RealKeyspace());
  if (want != got) {
    o.ok = false;
    o.at = s.size();
    o.what =
        "final keyspaces differ:\n    model: " + Describe(want) + "\n    redis: " + Describe(got);
  }
  return o;
}

Sequence Shrink(Runner& runner, Sequence s, int max_runs) {
  const int budget_end = runner.runs() + max_runs;
  auto fails = [&](const Sequence& c) { return !runner.Run(c).ok; };
  // ddmin over complements: drop one of n chunks at a time; n doubles when
  // no chunk can go, up to single commands.
  size_t n = 2;
  while (s.size() >= 2 && runner.runs() < budget_end) {
    const size_t chunk = (s.size() + n - 1) / n;
    bool reduced = false;
    for (size_t begin = 0; begin < s.size() && runner.runs() < budget_end; begin += chunk) {
      Sequence candidate;
      for (size_t i = 0; i < s.size(); ++i) {
        if (i < begin || i >= begin + chunk) candidate.push_back(s[i]);
      }
      if (!candidate.empty() && fails(candidate)) {
        s = std::move(candidate);
        n = std::max<size_t>(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (chunk == 1) break;  // no single command can go: 1-minimal
      n = std::min(s.size(), n * 2);
    }
  }
  return s;
}

std::string Explain(const Sequence& s, const Outcome& o) {
  std::vector<std::string> commands;
  size_t width = 0;
  for (const Command& c : s) {
    commands.push_back(Render(c));
    width = std::max(width, commands.back().size());
  }
  std::string out = std::to_string(s.size()) +
                    " commands (<now...> is the server's clock when the sequence started; "
                    "in a timed sequence, at the command, after the clock moved by (+N ms)):\n";
  for (size_t i = 0; i < s.size(); ++i) {
    std::string line = "  " + std::to_string(i + 1) + ". " + commands[i] +
                       std::string(width - commands[i].size(), ' ');
    if (i < o.model.size()) {
      const auto& m = o.model[i];
      const auto& r = o.real[i];
      line += "   model: " + (m ? m->ToString() : "(not sent)") +
              "   redis: " + (r ? r->ToString() : "(not sent)");
      if (!o.ok && o.at == i) line += "   <-- differs";
    } else {
      out += "  (" + std::to_string(s.size() - i) + " more commands not run)\n";
      break;
    }
    out += line + "\n";
  }
  if (!o.ok) out += o.what + "\n";
  return out;
}

}  // namespace lockstep::conformance
