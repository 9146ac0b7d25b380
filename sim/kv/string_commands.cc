// GET, SET, SETNX, GETSET, INCR, INCRBY, DECR, DECRBY in the shape of Redis
// 7.0's src/t_string.c: every setter goes through SetGeneric, and the
// counters through IncrDecr.
#include <cstdint>
#include <limits>
#include <optional>

#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"

namespace lockstep::kv::internal {
namespace {

// OBJ_SET_* / OBJ_EX... flags of t_string.c.
enum SetFlag : unsigned {
  kSetNx = 1u << 0,
  kSetXx = 1u << 1,
  kSetGet = 1u << 2,
  kKeepTtl = 1u << 3,
  kEx = 1u << 4,
  kPx = 1u << 5,
  kExAt = 1u << 6,
  kPxAt = 1u << 7,
};

// parseExtendedStringArgumentsOrReply for COMMAND_SET. Each option excludes
// only the options it conflicts with, exactly as Redis's conditions do, so
// e.g. "EX 1 EX 2" is accepted (the last wins) but "EX 1 PX 2" is not.
std::optional<Reply> ParseSetOptions(const Argv& argv, unsigned* flags, TimeUnit* unit,
                                     const Text** expire) {
  for (size_t j = 3; j < argv.size(); ++j) {
    const std::string_view opt = AsCString(argv[j]);
    const bool has_next = j + 1 < argv.size();
    const unsigned f = *flags;
    if (EqualsUpper(opt, "NX") && !(f & kSetXx)) {
      *flags |= kSetNx;
    } else if (EqualsUpper(opt, "XX") && !(f & kSetNx)) {
      *flags |= kSetXx;
    } else if (EqualsUpper(opt, "GET")) {
      *flags |= kSetGet;
    } else if (EqualsUpper(opt, "KEEPTTL") && !(f & (kEx | kExAt | kPx | kPxAt))) {
      *flags |= kKeepTtl;
    } else if (EqualsUpper(opt, "EX") && !(f & (kKeepTtl | kExAt | kPx | kPxAt)) && has_next) {
      *flags |= kEx;
      *expire = &argv[++j];
    } else if (EqualsUpper(opt, "PX") && !(f & (kKeepTtl | kEx | kExAt | kPxAt)) && has_next) {
      *flags |= kPx;
      *unit = TimeUnit::kMilliseconds;
      *expire = &argv[++j];
    } else if (EqualsUpper(opt, "EXAT") && !(f & (kKeepTtl | kEx | kPx | kPxAt)) && has_next) {
      *flags |= kExAt;
      *expire = &argv[++j];
    } else if (EqualsUpper(opt, "PXAT") && !(f & (kKeepTtl | kEx | kExAt | kPx)) && has_next) {
      *flags |= kPxAt;
      *unit = TimeUnit::kMilliseconds;
      *expire = &argv[++j];
    } else {
      return Reply::Error(std::string(kSyntaxError));
    }
  }
  return std::nullopt;
}

// getExpireMillisecondsOrReply: the absolute deadline, or an error. Relative
// times (EX/PX) are added to the server clock; overflow anywhere is an
// invalid expire time, as is a non-positive input.
std::optional<Reply> ExpireMilliseconds(const Db& db, const std::string& arg, unsigned flags,
                                        TimeUnit unit, std::string_view name, Millis* out) {
  int64_t ms = 0;
  if (!ParseInt64(arg, &ms)) return Reply::Error(std::string(kNotAnInteger));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (ms <= 0 || (unit == TimeUnit::kSeconds && ms > kMax / 1000)) {
    return Reply::Error(InvalidExpireTimeError(name));
  }
  if (unit == TimeUnit::kSeconds) ms *= 1000;
  if (flags & (kEx | kPx)) {
    // Redis adds mstime() and relies on wraparound going non-positive.
    if (__builtin_add_overflow(ms, db.now(), &ms)) ms = -1;
  }
  if (ms <= 0) return Reply::Error(InvalidExpireTimeError(name));
  *out = ms;
  return std::nullopt;
}

// setGenericCommand. `expire` is null when no EX/PX/EXAT/PXAT was given.
// ok_reply and abort_reply are what SET and SETNX answer on success and on an
// NX/XX refusal; with GET the old value is the answer in both cases.
Reply SetGeneric(Db& db, unsigned flags, Text key, Text value, const Text* expire, TimeUnit unit,
                 std::string_view name, Reply ok_reply, Reply abort_reply) {
  Millis deadline = 0;
  if (expire != nullptr) {
    if (auto err = ExpireMilliseconds(db, *expire, flags, unit, name, &deadline)) {
      return *std::move(err);
    }
  }

  Entry* entry = db.Lookup(key);
  Reply get_reply;  // nil
  if (flags & kSetGet) {
    // getGenericCommand: the type check comes after option parsing and
    // before anything is written.
    if (entry != nullptr) {
      if (entry->kind != Entry::Kind::kString) {
        return Reply::Error(std::string(kWrongType));
      }
      get_reply = Reply::Bulk(entry->value);
    }
  }

  const bool found = entry != nullptr;
  if (((flags & kSetNx) && found) || ((flags & kSetXx) && !found)) {
    return (flags & kSetGet) ? get_reply : abort_reply;
  }

  // setKey: overwrites any type; drops the TTL unless KEEPTTL.
  if (entry == nullptr) {
    entry = &db.Add(key);
  } else {
    entry->kind = Entry::Kind::kString;
    entry->items.clear();
    if (!(flags & kKeepTtl)) entry->deadline.reset();
  }
  entry->value = value;
  if (expire != nullptr) entry->deadline = deadline;
  db.MarkWrote();
  return (flags & kSetGet) ? get_reply : ok_reply;
}

// incrDecrCommand. Keeps the key's TTL: Redis overwrites the value in place.
Reply IncrDecr(Db& db, Text key, int64_t incr) {
  Entry* entry = db.Lookup(key);
  if (entry != nullptr && entry->kind != Entry::Kind::kString) {
    return Reply::Error(std::string(kWrongType));
  }
  int64_t value = 0;
  if (entry != nullptr && !ParseInt64(entry->value, &value)) {
    return Reply::Error(std::string(kNotAnInteger));
  }
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if ((incr < 0 && value < 0 && incr < kMin - value) ||
      (incr > 0 && value > 0 && incr > kMax - value)) {
    return Reply::Error(std::string(kIncrOverflow));
  }
  value += incr;
  if (entry == nullptr) entry = &db.Add(key);
  entry->value = Text(FormatInt64(value));
  db.MarkWrote();
  return Reply::Integer(value);
}

}  // namespace

Reply GetCommand(Db& db, const Argv& argv) {
  const Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr) return Reply::Nil();
  if (entry->kind != Entry::Kind::kString) {
    return Reply::Error(std::string(kWrongType));
  }
  return Reply::Bulk(entry->value);
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT unix-s|PXAT unix-ms|KEEPTTL]
Reply SetCommand(Db& db, const Argv& argv) {
  unsigned flags = 0;
  TimeUnit unit = TimeUnit::kSeconds;
  const Text* expire = nullptr;
  if (auto err = ParseSetOptions(argv, &flags, &unit, &expire)) {
    return *std::move(err);
  }
  return SetGeneric(db, flags, argv[1], argv[2], expire, unit, "set", Reply::Ok(), Reply::Nil());
}

Reply SetnxCommand(Db& db, const Argv& argv) {
  return SetGeneric(db, kSetNx, argv[1], argv[2], nullptr, TimeUnit::kSeconds, "setnx",
                    Reply::Integer(1), Reply::Integer(0));
}

// GETSET is SET key value GET (Redis 7.0 propagates it as SET).
Reply GetsetCommand(Db& db, const Argv& argv) {
  return SetGeneric(db, kSetGet, argv[1], argv[2], nullptr, TimeUnit::kSeconds, "getset",
                    Reply::Ok(), Reply::Nil());
}

Reply IncrCommand(Db& db, const Argv& argv) { return IncrDecr(db, argv[1], 1); }

Reply DecrCommand(Db& db, const Argv& argv) { return IncrDecr(db, argv[1], -1); }

Reply IncrbyCommand(Db& db, const Argv& argv) {
  int64_t incr = 0;
  if (!ParseInt64(argv[2], &incr)) {
    return Reply::Error(std::string(kNotAnInteger));
  }
  return IncrDecr(db, argv[1], incr);
}

Reply DecrbyCommand(Db& db, const Argv& argv) {
  int64_t incr = 0;
  if (!ParseInt64(argv[2], &incr)) {
    return Reply::Error(std::string(kNotAnInteger));
  }
  if (incr == std::numeric_limits<int64_t>::min()) {
    return Reply::Error(std::string(kDecrementOverflow));
  }
  return IncrDecr(db, argv[1], -incr);
}

}  // namespace lockstep::kv::internal
