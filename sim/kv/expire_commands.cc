// EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, PERSIST, TTL, PTTL in the shape of
// Redis 7.0's src/expire.c: the four setters share ExpireGeneric, the two
// getters TtlGeneric. "Unix time" is the virtual clock.
#include <cstdint>
#include <limits>
#include <optional>

#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"

namespace lockstep::kv::internal {
namespace {

enum ExpireFlag : unsigned {
  kExpireNx = 1u << 0,
  kExpireXx = 1u << 1,
  kExpireGt = 1u << 2,
  kExpireLt = 1u << 3,
};

// parseExtendedExpireArgumentsOrReply. Runs before the time is parsed, so an
// unknown option wins over a bad number.
std::optional<Reply> ParseExpireOptions(const Argv& argv, unsigned* flags) {
  for (size_t j = 3; j < argv.size(); ++j) {
    const std::string_view opt = AsCString(argv[j]);
    if (EqualsUpper(opt, "NX")) {
      *flags |= kExpireNx;
    } else if (EqualsUpper(opt, "XX")) {
      *flags |= kExpireXx;
    } else if (EqualsUpper(opt, "GT")) {
      *flags |= kExpireGt;
    } else if (EqualsUpper(opt, "LT")) {
      *flags |= kExpireLt;
    } else {
      return Reply::Error(UnsupportedOptionError(argv[j]));
    }
  }
  if ((*flags & kExpireNx) && (*flags & (kExpireXx | kExpireGt | kExpireLt))) {
    return Reply::Error(std::string(kExpireNxConflict));
  }
  if ((*flags & kExpireGt) && (*flags & kExpireLt)) {
    return Reply::Error(std::string(kExpireGtLtConflict));
  }
  return std::nullopt;
}

// expireGenericCommand. basetime is now for relative forms and 0 for the *AT
// forms; the result is an absolute deadline in milliseconds.
Reply ExpireGeneric(Db& db, const Argv& argv, Millis basetime, TimeUnit unit,
                    std::string_view name) {
  unsigned flags = 0;
  if (auto err = ParseExpireOptions(argv, &flags)) return *std::move(err);

  int64_t when = 0;
  if (!ParseInt64(argv[2], &when)) {
    return Reply::Error(std::string(kNotAnInteger));
  }
  // Negative times are allowed; only overflow is refused.
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (unit == TimeUnit::kSeconds) {
    if (when > kMax / 1000 || when < kMin / 1000) {
      return Reply::Error(InvalidExpireTimeError(name));
    }
    when *= 1000;
  }
  if (__builtin_add_overflow(when, basetime, &when)) {
    return Reply::Error(InvalidExpireTimeError(name));
  }

  Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr) return Reply::Integer(0);

  // A key without a deadline counts as an infinite TTL for GT and LT.
  const std::optional<Millis>& current = entry->deadline;
  if ((flags & kExpireNx) && current.has_value()) return Reply::Integer(0);
  if ((flags & kExpireXx) && !current.has_value()) return Reply::Integer(0);
  if ((flags & kExpireGt) && (!current.has_value() || when <= *current)) {
    return Reply::Integer(0);
  }
  if ((flags & kExpireLt) && current.has_value() && when >= *current) {
    return Reply::Integer(0);
  }

  db.MarkWrote();
  if (when <= db.now()) {
    // checkAlreadyExpired: a deadline not in the future deletes at once.
    db.Remove(*entry);
  } else {
    entry->deadline = when;
  }
  return Reply::Integer(1);
}

// ttlGenericCommand: -2 no key, -1 no deadline; TTL rounds to the nearest
// second.
Reply TtlGeneric(Db& db, const Argv& argv, bool output_ms) {
  const Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr) return Reply::Integer(-2);
  if (!entry->deadline.has_value()) return Reply::Integer(-1);
  int64_t ttl = *entry->deadline - db.now();
  if (ttl < 0) ttl = 0;
  // Redis computes (ttl+500)/1000 in C, where the sum overflows for a
  // deadline near INT64_MAX; redis-server 7.0 (Debian's build) answers as if
  // it did not (PXAT 9223372036854775807 at clock 10 ms: TTL
  // 9223372036854776), which unsigned arithmetic gives, defined.
  return Reply::Integer(
      output_ms ? ttl : static_cast<int64_t>((static_cast<uint64_t>(ttl) + 500) / 1000));
}

}  // namespace

Reply ExpireCommand(Db& db, const Argv& argv) {
  return ExpireGeneric(db, argv, db.now(), TimeUnit::kSeconds, "expire");
}

Reply PexpireCommand(Db& db, const Argv& argv) {
  return ExpireGeneric(db, argv, db.now(), TimeUnit::kMilliseconds, "pexpire");
}

Reply ExpireatCommand(Db& db, const Argv& argv) {
  return ExpireGeneric(db, argv, 0, TimeUnit::kSeconds, "expireat");
}

Reply PexpireatCommand(Db& db, const Argv& argv) {
  return ExpireGeneric(db, argv, 0, TimeUnit::kMilliseconds, "pexpireat");
}

// persistCommand: 1 when a live key's deadline was removed; 0, writing
// nothing, when there is no key or no deadline.
Reply PersistCommand(Db& db, const Argv& argv) {
  Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr || !entry->deadline.has_value()) return Reply::Integer(0);
  db.MarkWrote();
  entry->deadline.reset();
  return Reply::Integer(1);
}

Reply TtlCommand(Db& db, const Argv& argv) { return TtlGeneric(db, argv, false); }

Reply PttlCommand(Db& db, const Argv& argv) { return TtlGeneric(db, argv, true); }

}  // namespace lockstep::kv::internal
