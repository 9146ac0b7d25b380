// The conformance sequences' hash and sorted-set commands: few fields and
// members so that commands meet each other's, scores at the edges of what
// strtod reads (infinities, signed zeros, over- and underflow, hex, spaces),
// and every option of ZADD and ZRANGE, conflicting ones included.
#include "tests/redis/conformance_collections.h"

namespace lockstep::conformance {
namespace {

Arg Field(Gen& g) {
  static const std::vector<std::string> fields = {"f", "g", "h", "", "f\0x"s};
  return Gen::Lit(g.Pick(fields));
}

Arg Member(Gen& g) {
  static const std::vector<std::string> members = {"a", "b", "c", "ab", "", "B"};
  return Gen::Lit(g.Pick(members));
}

Arg Score(Gen& g, Command* c) {
  static const std::vector<std::string> plain = {"0",  "1", "2",   "1.5", "-1",
                                                 "10", "3", "inf", "-inf"};
  static const std::vector<std::string> edges = {
      "inf", "-inf",  "+inf",   "Infinity", "-0",
      "0.1", "1e400", "1e-400", "0x10",     "1e300",
      " 1",  "1 ",    "",       "nan",      "abc",
      "+5",  ".5",    "5.",     "1e",       "-0.0",
      "(1",  "1\0z"s, "3.14",   "1e-320",   "9007199254740993"};
  if (g.Chance(70)) return Gen::Lit(g.Pick(plain));
  c->features.push_back("score:edge");
  return Gen::Lit(g.Pick(edges));
}

// A ZCOUNT, ZRANGEBYSCORE or BYSCORE end: open or closed, infinite, junk.
Arg ScoreEnd(Gen& g, Command* c) {
  static const std::vector<std::string> ends = {
      "-inf",  "+inf", "inf", "(1",   "1",     "(1.5", "0",  "(-inf", "2",
      "(2",    "10",   "3",   "(3",   "abc",   "(",    "",   " 1",    "1 ",
      "1\0z"s, "((1",  "nan", "(nan", "1e400", "-1",   "(0", "0x1",   "1.5"};
  Arg a = Gen::Lit(g.Pick(ends));
  if (a.text.rfind('(', 0) == 0) c->features.push_back("range:open");
  return a;
}

// A BYLEX end: "-", "+", "[x", "(x", or junk.
Arg LexEnd(Gen& g, Command* c) {
  static const std::vector<std::string> ends = {"-", "+", "[a", "(a", "[b",    "(b", "[ab", "[",
                                                "(", "a", "",   "+x", "-\0x"s, "[c", "(B",  "[\0"s};
  c->features.push_back("range:lex");
  return Gen::Lit(g.Pick(ends));
}

Arg Index(Gen& g) {
  static const std::vector<std::string> v = {"0", "1", "-1", "2", "-2", "5", "-5", "x", "1.5"};
  return Gen::Lit(g.Pick(v));
}

// LIMIT offset count, now and then with a count missing or not a number.
void Limit(Gen& g, Command* c) {
  static const std::vector<std::string> offsets = {"0", "1", "2", "-1", "5"};
  static const std::vector<std::string> counts = {"1", "2", "-1", "0", "3", "x"};
  c->args.push_back(g.Keyword("LIMIT", c));
  c->args.push_back(Gen::Lit(g.Pick(offsets)));
  if (!g.Chance(5)) c->args.push_back(Gen::Lit(g.Pick(counts)));
  c->features.push_back("ZRANGE:LIMIT");
}

void KeyField(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  c->args.push_back(Field(g));
}

void KeyMember(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  c->args.push_back(Member(g));
}

}  // namespace

void Hset(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  const uint64_t pairs = 1 + g.Below(3);
  for (uint64_t i = 0; i < pairs; ++i) {
    c->args.push_back(Field(g));
    c->args.push_back(g.Value());
  }
  if (g.Chance(8)) {
    c->args.push_back(Field(g));
    c->features.push_back("HSET:odd");
  }
}

void Hdel(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  const uint64_t n = 1 + g.Below(3);
  for (uint64_t i = 0; i < n; ++i) c->args.push_back(Field(g));
}

void Hincrby(Gen& g, Command* c) {
  KeyField(g, c);
  c->args.push_back(g.Increment());
}

void HashField(Gen& g, Command* c) { KeyField(g, c); }

// ZADD key [NX|XX|GT|LT|CH|INCR]... score member ..., now and then odd.
void Zadd(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  static const char* kOptions[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};
  const uint64_t options = g.Chance(50) ? 0 : 1 + g.Below(2);
  bool incr = false;
  for (uint64_t i = 0; i < options; ++i) {
    const char* o = kOptions[g.Below(6)];
    incr |= std::string_view(o) == "INCR";
    c->args.push_back(g.Keyword(o, c));
    c->features.push_back("ZADD:"s + o);
  }
  const uint64_t pairs = incr && g.Chance(80) ? 1 : 1 + g.Below(3);
  for (uint64_t i = 0; i < pairs; ++i) {
    c->args.push_back(Score(g, c));
    c->args.push_back(Member(g));
  }
  if (g.Chance(5)) {
    c->args.push_back(Score(g, c));
    c->features.push_back("ZADD:odd");
  }
}

// Now and then an infinite increment of the first member, which an earlier
// infinite score of the other sign makes NaN.
void Zincrby(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  if (g.Chance(30)) {
    c->args.push_back(Gen::Lit(g.Chance(50) ? "inf" : "-inf"));
    c->args.push_back(Gen::Lit("a"));
    return;
  }
  c->args.push_back(Score(g, c));
  c->args.push_back(Member(g));
}

void Zrem(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  const uint64_t n = 1 + g.Below(3);
  for (uint64_t i = 0; i < n; ++i) c->args.push_back(Member(g));
}

void ZsetMember(Gen& g, Command* c) { KeyMember(g, c); }

// ZCOUNT and ZREMRANGEBYSCORE: key min max.
void ScoreRangeOnly(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  c->args.push_back(ScoreEnd(g, c));
  c->args.push_back(ScoreEnd(g, c));
}

// ZRANGEBYSCORE, ZREVRANGEBYSCORE: key min max [WITHSCORES] [LIMIT o c].
void RangeByScore(Gen& g, Command* c) {
  ScoreRangeOnly(g, c);
  if (g.Chance(40)) {
    c->args.push_back(g.Keyword("WITHSCORES", c));
    c->features.push_back("ZRANGE:WITHSCORES");
  }
  if (g.Chance(35)) Limit(g, c);
  if (g.Chance(4)) c->args.push_back(g.Keyword(g.Chance(50) ? "REV" : "BYSCORE", c));
}

// ZREVRANGE key start stop [WITHSCORES].
void RevRange(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  c->args.push_back(Index(g));
  c->args.push_back(Index(g));
  if (g.Chance(40)) {
    c->args.push_back(g.Keyword("WITHSCORES", c));
    c->features.push_back("ZRANGE:WITHSCORES");
  }
  if (g.Chance(5)) Limit(g, c);
}

// ZRANGE key min max [BYSCORE|BYLEX] [REV] [LIMIT o c] [WITHSCORES], the
// words in any order, now and then twice or conflicting.
void Zrange(Gen& g, Command* c) {
  c->args.push_back(g.Key());
  const uint64_t kind = g.Below(3);  // rank, score, lex
  auto end = [&]() {
    if (kind == 1) return ScoreEnd(g, c);
    if (kind == 2) return LexEnd(g, c);
    return Index(g);
  };
  c->args.push_back(end());
  c->args.push_back(end());
  std::vector<std::vector<Arg>> words;
  if (kind == 1) words.push_back({g.Keyword("BYSCORE", c)});
  if (kind == 2) words.push_back({g.Keyword("BYLEX", c)});
  if (g.Chance(40)) {
    words.push_back({g.Keyword("REV", c)});
    c->features.push_back("ZRANGE:REV");
  }
  if (g.Chance(40)) {
    words.push_back({g.Keyword("WITHSCORES", c)});
    c->features.push_back("ZRANGE:WITHSCORES");
  }
  if (g.Chance(kind == 0 ? 5 : 40)) {
    Command limit;
    Limit(g, &limit);
    words.push_back(limit.args);
    c->features.push_back("ZRANGE:LIMIT");
  }
  if (g.Chance(5)) words.push_back({g.Keyword(g.Chance(50) ? "BYLEX" : "BYSCORE", c)});
  for (size_t i = words.size(); i > 1; --i) std::swap(words[i - 1], words[g.Below(i)]);
  for (const auto& w : words) c->args.insert(c->args.end(), w.begin(), w.end());
  if (kind == 1) c->features.push_back("ZRANGE:BYSCORE");
  if (kind == 2) c->features.push_back("ZRANGE:BYLEX");
}

}  // namespace lockstep::conformance
