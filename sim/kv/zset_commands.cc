// ZADD, ZINCRBY, ZREM, ZSCORE, ZCARD, ZCOUNT, ZREMRANGEBYSCORE, ZRANK,
// ZREVRANK in the shape of Redis 7.0's src/t_zset.c; the ZRANGE family is
// in zset_range_commands.cc.
#include <cmath>

#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"
#include "sim/kv/zset.h"

namespace lockstep::kv::internal {
namespace {

// ZADD_IN_* of t_zset.c.
struct ZaddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};

// zsetAdd's outcome for one member.
enum class Added { kAdded, kUpdated, kUnchanged, kNop, kNan };

Added ZsetAdd(Zset& z, double score, std::string_view member, const ZaddFlags& f,
              double* newscore) {
  const std::optional<size_t> at = z.Find(member);
  if (!at) {
    if (f.xx) return Added::kNop;
    z.Insert(member, score);
    *newscore = score;
    return Added::kAdded;
  }
  if (f.nx) return Added::kNop;
  const double current = z.score(*at);
  if (f.incr) {
    score += current;
    if (std::isnan(score)) return Added::kNan;
  }
  if ((f.lt && score >= current) || (f.gt && score <= current)) return Added::kNop;
  *newscore = score;
  if (score == current) return Added::kUnchanged;  // -0 and 0 alike: the old stays
  z.Erase(*at);
  z.Insert(member, score);
  return Added::kUpdated;
}

// zaddGenericCommand: options, then score-member pairs, every score parsed
// before the set is touched, so that a bad one changes nothing.
Reply ZaddGeneric(Db& db, const Argv& argv, bool incr_command) {
  ZaddFlags f;
  f.incr = incr_command;
  size_t at = 2;
  for (; at < argv.size(); ++at) {
    const std::string_view opt = AsCString(argv[at]);
    if (EqualsUpper(opt, "NX")) {
      f.nx = true;
    } else if (EqualsUpper(opt, "XX")) {
      f.xx = true;
    } else if (EqualsUpper(opt, "CH")) {
      f.ch = true;
    } else if (EqualsUpper(opt, "INCR")) {
      f.incr = true;
    } else if (EqualsUpper(opt, "GT")) {
      f.gt = true;
    } else if (EqualsUpper(opt, "LT")) {
      f.lt = true;
    } else {
      break;
    }
  }
  const size_t words = argv.size() - at;
  if (words % 2 != 0 || words == 0) return Reply::Error(std::string(kSyntaxError));
  if (f.nx && f.xx)
    return Reply::Error("ERR XX and NX options at the same time are not compatible");
  if ((f.gt && f.nx) || (f.lt && f.nx) || (f.gt && f.lt)) {
    return Reply::Error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (f.incr && words > 2) {
    return Reply::Error("ERR INCR option supports a single increment-element pair");
  }
  std::vector<double> scores;
  for (size_t j = at; j < argv.size(); j += 2) {
    const std::optional<double> s = ParseScore(argv[j]);
    if (!s) return Reply::Error("ERR value is not a valid float");
    scores.push_back(*s);
  }
  Entry* entry = db.Lookup(argv[1]);
  if (entry != nullptr && entry->kind != Entry::Kind::kZset) {
    return Reply::Error(std::string(kWrongType));
  }
  int64_t added = 0, updated = 0, processed = 0;
  double score = 0;
  if (entry == nullptr && !f.xx) {
    entry = &db.Add(argv[1]);
    entry->kind = Entry::Kind::kZset;
  }
  if (entry != nullptr) {
    Zset z(*entry);
    for (size_t k = 0; k < scores.size(); ++k) {
      const Added a = ZsetAdd(z, scores[k], argv[at + 2 * k + 1], f, &score);
      // Only INCR's one member can make one: nothing was written.
      if (a == Added::kNan) return Reply::Error("ERR resulting score is not a number (NaN)");
      added += a == Added::kAdded;
      updated += a == Added::kUpdated;
      processed += a != Added::kNop;
    }
  }
  if (added + updated > 0) db.MarkWrote();
  if (entry != nullptr && Zset(*entry).PastListpack()) {
    db.MarkUnvouched("a sorted set past Redis's listpack limits, which keeps a score of -0");
  }
  if (f.incr) return processed > 0 ? Reply::Bulk(FormatScore(score)) : Reply::Nil();
  return Reply::Integer(f.ch ? added + updated : added);
}

// A score range command's set: the range parsed first, then the key.
struct RangeTarget {
  ScoreRange range;
  Entry* entry = nullptr;
  std::optional<Reply> reply;  // an error, or the answer for no key
};

RangeTarget ScoreRangeTarget(Db& db, const Argv& argv) {
  RangeTarget t;
  const std::optional<ScoreRange> r = ParseScoreRange(argv[2], argv[3]);
  if (!r) {
    t.reply = Reply::Error(std::string(kRangeNotFloat));
    return t;
  }
  t.range = *r;
  Reply error;
  t.entry = db.LookupKind(argv[1], Entry::Kind::kZset, &error);
  if (error.is_error()) {
    t.reply = error;
  } else if (t.entry == nullptr) {
    t.reply = Reply::Integer(0);
  }
  return t;
}

// ZSCORE's and ZRANK's lookup: the set at argv[1] and the index of member
// argv[2] in it, or nullopt and the reply (WRONGTYPE, or nil).
std::optional<size_t> MemberOf(Db& db, const Argv& argv, Entry** entry, Reply* reply) {
  *reply = Reply::Nil();
  *entry = db.LookupKind(argv[1], Entry::Kind::kZset, reply);
  if (*entry == nullptr) return std::nullopt;
  return Zset(**entry).Find(argv[2]);
}

Reply RankGeneric(Db& db, const Argv& argv, bool reverse) {
  Entry* entry = nullptr;
  Reply reply;
  const std::optional<size_t> at = MemberOf(db, argv, &entry, &reply);
  if (!at) return reply;
  const size_t last = Zset(*entry).size() - 1;
  return Reply::Integer(static_cast<int64_t>(reverse ? last - *at : *at));
}

}  // namespace

Reply ZaddCommand(Db& db, const Argv& argv) { return ZaddGeneric(db, argv, false); }
Reply ZincrbyCommand(Db& db, const Argv& argv) { return ZaddGeneric(db, argv, true); }

Reply ZremCommand(Db& db, const Argv& argv) { return RemovePairs(db, argv, Entry::Kind::kZset); }

Reply ZscoreCommand(Db& db, const Argv& argv) {
  Entry* entry = nullptr;
  Reply reply;
  const std::optional<size_t> at = MemberOf(db, argv, &entry, &reply);
  return at ? Reply::Bulk(Zset(*entry).score_text(*at)) : reply;
}

Reply ZcardCommand(Db& db, const Argv& argv) {
  Reply error;
  Entry* entry = db.LookupKind(argv[1], Entry::Kind::kZset, &error);
  if (error.is_error()) return error;
  return Reply::Integer(entry != nullptr ? static_cast<int64_t>(entry->items.size() / 2) : 0);
}

Reply ZcountCommand(Db& db, const Argv& argv) {
  RangeTarget t = ScoreRangeTarget(db, argv);
  if (t.reply) return *t.reply;
  const Zset z(*t.entry);
  return Reply::Integer(static_cast<int64_t>(InScoreRange(z, t.range).size()));
}

// zremrangeGenericCommand by score: an emptied set is deleted.
Reply ZremrangebyscoreCommand(Db& db, const Argv& argv) {
  RangeTarget t = ScoreRangeTarget(db, argv);
  if (t.reply) return *t.reply;
  Zset z(*t.entry);
  const std::vector<size_t> gone = InScoreRange(z, t.range);
  for (auto it = gone.rbegin(); it != gone.rend(); ++it) z.Erase(*it);
  if (z.size() == 0) db.Remove(*t.entry);
  if (!gone.empty()) db.MarkWrote();
  return Reply::Integer(static_cast<int64_t>(gone.size()));
}

Reply ZrankCommand(Db& db, const Argv& argv) { return RankGeneric(db, argv, false); }
Reply ZrevrankCommand(Db& db, const Argv& argv) { return RankGeneric(db, argv, true); }

}  // namespace lockstep::kv::internal
