// ZRANGE (by rank, BYSCORE or BYLEX, REV, LIMIT, WITHSCORES) and the older
// ZRANGEBYSCORE, ZREVRANGE and ZREVRANGEBYSCORE, which Redis 7.0 runs
// through the same zrangeGenericCommand with the range's kind or the
// direction fixed.
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"
#include "sim/kv/zset.h"

namespace lockstep::kv::internal {
namespace {

enum class RangeKind { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

struct RangeOptions {
  RangeKind kind;
  Direction direction;
  bool withscores = false;
  int64_t offset = 0, limit = -1;
};

// Step 1 of zrangeGenericCommand: the words after the key and the two ends.
std::optional<Reply> ParseOptions(const Argv& argv, RangeOptions& o) {
  for (size_t j = 4; j < argv.size(); ++j) {
    const std::string_view word = AsCString(argv[j]);
    const size_t left = argv.size() - j - 1;
    if (EqualsUpper(word, "WITHSCORES")) {
      o.withscores = true;
    } else if (EqualsUpper(word, "LIMIT") && left >= 2) {
      if (!ParseInt64(argv[j + 1], &o.offset) || !ParseInt64(argv[j + 2], &o.limit)) {
        return Reply::Error(std::string(kNotAnInteger));
      }
      j += 2;
    } else if (o.direction == Direction::kAuto && EqualsUpper(word, "REV")) {
      o.direction = Direction::kReverse;
    } else if (o.kind == RangeKind::kAuto && EqualsUpper(word, "BYLEX")) {
      o.kind = RangeKind::kLex;
    } else if (o.kind == RangeKind::kAuto && EqualsUpper(word, "BYSCORE")) {
      o.kind = RangeKind::kScore;
    } else {
      return Reply::Error(std::string(kSyntaxError));
    }
  }
  if (o.direction == Direction::kAuto) o.direction = Direction::kForward;
  if (o.kind == RangeKind::kAuto) o.kind = RangeKind::kRank;
  if (o.limit != -1 && o.kind == RangeKind::kRank) {
    return Reply::Error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (o.withscores && o.kind == RangeKind::kLex) {
    return Reply::Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  return std::nullopt;
}

// genericZrangebyrankCommand's indexes.
std::vector<size_t> ByRank(const Zset& z, int64_t start, int64_t end, bool reverse) {
  const auto n = static_cast<int64_t>(z.size());
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  std::vector<size_t> out;
  if (start > end || start >= n) return out;
  if (end >= n) end = n - 1;
  for (int64_t r = start; r <= end; ++r) {
    out.push_back(static_cast<size_t>(reverse ? n - 1 - r : r));
  }
  return out;
}

Reply RangeGeneric(Db& db, const Argv& argv, RangeOptions o) {
  if (std::optional<Reply> bad = ParseOptions(argv, o)) return *bad;
  const bool reverse = o.direction == Direction::kReverse;
  // A reversed range by score or lex is given as max, min.
  const bool swapped = reverse && o.kind != RangeKind::kRank;
  const Text& min_arg = swapped ? argv[3] : argv[2];
  const Text& max_arg = swapped ? argv[2] : argv[3];
  int64_t start = 0, end = 0;
  std::optional<ScoreRange> scores;
  std::optional<LexRange> lex;
  switch (o.kind) {
    case RangeKind::kAuto:
    case RangeKind::kRank:
      if (!ParseInt64(min_arg, &start) || !ParseInt64(max_arg, &end)) {
        return Reply::Error(std::string(kNotAnInteger));
      }
      break;
    case RangeKind::kScore:
      scores = ParseScoreRange(min_arg, max_arg);
      if (!scores) return Reply::Error(std::string(kRangeNotFloat));
      break;
    case RangeKind::kLex:
      lex = ParseLexRange(min_arg, max_arg);
      if (!lex) return Reply::Error(std::string(kRangeNotLex));
      break;
  }
  Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr) return Reply::Array({});
  if (entry->kind != Entry::Kind::kZset) return Reply::Error(std::string(kWrongType));
  const Zset z(*entry);
  std::vector<size_t> picked;
  // "For invalid offset, return directly."
  const bool past_end = o.offset > 0 && o.offset >= static_cast<int64_t>(z.size());
  if (o.kind == RangeKind::kRank) {
    picked = ByRank(z, start, end, reverse);
  } else if (past_end) {
    // none
  } else if (scores) {
    const ScoreRange& r = *scores;
    const bool empty = r.min > r.max || (r.min == r.max && (r.min_open || r.max_open));
    picked = WalkRange(
        z, empty, [&](size_t i) { return r.AboveMin(z.score(i)); },
        [&](size_t i) { return r.BelowMax(z.score(i)); }, reverse, o.offset, o.limit);
  } else {
    const LexRange& r = *lex;
    picked = WalkRange(
        z, r.Empty(), [&](size_t i) { return r.AboveMin(z.member(i)); },
        [&](size_t i) { return r.BelowMax(z.member(i)); }, reverse, o.offset, o.limit);
  }
  std::vector<Reply> out;
  out.reserve(picked.size() * (o.withscores ? 2 : 1));
  for (size_t i : picked) {
    out.push_back(Reply::Bulk(z.member(i)));
    if (o.withscores) out.push_back(Reply::Bulk(z.score_text(i)));
  }
  return Reply::Array(std::move(out));
}

}  // namespace

Reply ZrangeCommand(Db& db, const Argv& argv) {
  return RangeGeneric(db, argv, {RangeKind::kAuto, Direction::kAuto});
}

Reply ZrangebyscoreCommand(Db& db, const Argv& argv) {
  return RangeGeneric(db, argv, {RangeKind::kScore, Direction::kForward});
}

Reply ZrevrangeCommand(Db& db, const Argv& argv) {
  return RangeGeneric(db, argv, {RangeKind::kRank, Direction::kReverse});
}

Reply ZrevrangebyscoreCommand(Db& db, const Argv& argv) {
  return RangeGeneric(db, argv, {RangeKind::kScore, Direction::kReverse});
}

}  // namespace lockstep::kv::internal
