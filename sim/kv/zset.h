// Internal to sim/kv: a sorted set kept in an Entry's items (member, score,
// member, score, ... by score, then member bytes), and Redis 7.0's rules for
// reading scores and ranges (src/t_zset.c, src/object.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/keyspace.h"

namespace lockstep::kv::internal {

// getDoubleFromObject: the whole argument a number strtod reads, not empty,
// no leading space, no NaN, no overflow or underflow to a huge or zero value.
std::optional<double> ParseScore(std::string_view s);

// addReplyDouble in RESP2 (and how a score is kept): "%.17g", inf as "inf".
std::string FormatScore(double score);

// A sorted set's members, by index (0 is the lowest).
class Zset {
 public:
  explicit Zset(Entry& e) : e_(e) {}

  size_t size() const { return e_.items.size() / 2; }
  const std::string& member(size_t i) const { return e_.items[2 * i]; }
  double score(size_t i) const;
  const std::string& score_text(size_t i) const { return e_.items[2 * i + 1]; }

  // The index of member, or nullopt.
  std::optional<size_t> Find(std::string_view member) const;
  // Adds member at its place, as a listpack keeps it (-0 as 0).
  // REQUIRES: !Find(member).
  void Insert(std::string_view member, double score);
  // Whether Redis would keep this set as a skip list rather than a
  // listpack (zset-max-listpack-entries 128, -value 64), where -0 stays -0.
  bool PastListpack() const;
  void Erase(size_t i);

 private:
  Entry& e_;
};

// zrangespec: a score interval, each end open or closed.
struct ScoreRange {
  double min = 0, max = 0;
  bool min_open = false, max_open = false;
  bool AboveMin(double v) const { return min_open ? v > min : v >= min; }
  bool BelowMax(double v) const { return max_open ? v < max : v <= max; }
};

// zslParseRange: "(" opens an end; the rest is read by strtod up to the
// argument's first NUL. nullopt: "min or max is not a float".
std::optional<ScoreRange> ParseScoreRange(const std::string& min, const std::string& max);
inline constexpr std::string_view kRangeNotFloat = "ERR min or max is not a float";

// zlexrangespec: "-" and "+" are the least and greatest of all strings;
// otherwise "[" closes an end and "(" opens it.
struct LexRange {
  std::string min, max;
  bool min_open = false, max_open = false;
  // "-" (Redis's shared minstring) and "+" (maxstring), at either end.
  bool min_least = false, min_greatest = false;
  bool max_least = false, max_greatest = false;
  bool AboveMin(std::string_view v) const;
  bool BelowMax(std::string_view v) const;
  bool Empty() const;  // zslIsInLexRange's test of the range alone
};

// zslParseLexRange. nullopt: "min or max not valid string range item".
std::optional<LexRange> ParseLexRange(const std::string& min, const std::string& max);
inline constexpr std::string_view kRangeNotLex = "ERR min or max not valid string range item";

// The members a range command visits, as t_zset.c walks a sorted set (the
// same in both encodings): from the first member in range (the last,
// reversed; none if the range is empty, or no member is in it at that
// end), past `offset` members (a negative offset passes them all), then at
// most `limit` (negative: no limit) while each is still in range. `above`
// and `below` say whether the member at an index is past the range's min
// and short of its max.
template <typename Above, typename Below>
std::vector<size_t> WalkRange(const Zset& z, bool empty, Above above, Below below, bool reverse,
                              int64_t offset = 0, int64_t limit = -1) {
  std::vector<size_t> out;
  const size_t n = z.size();
  if (empty || n == 0 || !above(n - 1) || !below(0)) return out;
  size_t i = 0;
  if (!reverse) {
    while (i < n && !above(i)) ++i;
    if (i == n || !below(i)) return out;
  } else {
    i = n - 1;
    while (i > 0 && !below(i)) --i;
    if (!below(i) || !above(i)) return out;
  }
  if (offset < 0) return out;
  const auto step = [&]() -> bool {  // false past either end
    if (reverse) return i-- > 0;
    return ++i < n;
  };
  for (int64_t skipped = 0; skipped < offset; ++skipped) {
    if (!step()) return out;
  }
  for (int64_t taken = 0; limit < 0 || taken < limit; ++taken) {
    if (reverse ? !above(i) : !below(i)) break;
    out.push_back(i);
    if (!step()) break;
  }
  return out;
}

// The members of a score range in order (ZCOUNT, ZREMRANGEBYSCORE).
std::vector<size_t> InScoreRange(const Zset& z, const ScoreRange& r);

}  // namespace lockstep::kv::internal
