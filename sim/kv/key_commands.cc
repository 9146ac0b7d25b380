// DEL, EXISTS, TYPE, SELECT (src/db.c), TIME (src/server.c) and RPUSH, LLEN
// (src/t_list.c). Lists exist only so that WRONGTYPE can arise; they never
// become empty, since the model has no pops.
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"

namespace lockstep::kv::internal {

// delGenericCommand: an expired key is purged first and then not counted.
Reply DelCommand(Db& db, const Argv& argv) {
  int64_t deleted = 0;
  for (size_t j = 1; j < argv.size(); ++j) {
    if (const Entry* entry = db.Lookup(argv[j])) {
      db.Remove(*entry);
      db.MarkWrote();
      ++deleted;
    }
  }
  return Reply::Integer(deleted);
}

// Repeated keys count each time, as in Redis.
Reply ExistsCommand(Db& db, const Argv& argv) {
  int64_t count = 0;
  for (size_t j = 1; j < argv.size(); ++j) {
    if (db.Lookup(argv[j]) != nullptr) ++count;
  }
  return Reply::Integer(count);
}

Reply TypeCommand(Db& db, const Argv& argv) {
  const Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr) return Reply::Status("none");
  switch (entry->kind) {
    case Entry::Kind::kString:
      return Reply::Status("string");
    case Entry::Kind::kList:
      return Reply::Status("list");
    case Entry::Kind::kHash:
      return Reply::Status("hash");
    case Entry::Kind::kZset:
      return Reply::Status("zset");
  }
  return Reply::Status("none");
}

// selectCommand, as a script sends it.
Reply SelectCommand(Db& db, const Argv& argv) {
  bool other = false;
  Reply reply = SelectReply(argv[1], &other);
  if (other) db.MarkUnvouched("a SELECT of a database other than 0, which the model does not keep");
  return reply;
}

// timeCommand: the server's clock as Unix seconds and microseconds. A
// virtual tick is a millisecond, so the microseconds are whole thousands.
Reply TimeCommand(Db& db, const Argv&) {
  const Millis now = db.now();
  const Millis seconds = now >= 0 ? now / 1000 : -((999 - now) / 1000);
  const Millis micros = (now - seconds * 1000) * 1000;
  return Reply::Array({Reply::Bulk(FormatInt64(seconds)), Reply::Bulk(FormatInt64(micros))});
}

// pushGenericCommand (tail). Keeps the key's TTL.
Reply RpushCommand(Db& db, const Argv& argv) {
  Entry* entry = db.Lookup(argv[1]);
  if (entry != nullptr && entry->kind != Entry::Kind::kList) {
    return Reply::Error(std::string(kWrongType));
  }
  if (entry == nullptr) {
    entry = &db.Add(argv[1]);
    entry->kind = Entry::Kind::kList;
  }
  entry->items.insert(entry->items.end(), argv.begin() + 2, argv.end());
  db.MarkWrote();
  return Reply::Integer(static_cast<int64_t>(entry->items.size()));
}

Reply LlenCommand(Db& db, const Argv& argv) {
  const Entry* entry = db.Lookup(argv[1]);
  if (entry == nullptr) return Reply::Integer(0);
  if (entry->kind != Entry::Kind::kList) {
    return Reply::Error(std::string(kWrongType));
  }
  return Reply::Integer(static_cast<int64_t>(entry->items.size()));
}

}  // namespace lockstep::kv::internal

namespace lockstep::kv {

Reply SelectReply(std::string_view index, bool* other) {
  constexpr int64_t kRedisDatabases = 16;  // redis.conf's default `databases`
  int64_t id = 0;
  if (!ParseInt64(index, &id)) return Reply::Error(std::string(kNotAnInteger));
  if (id < INT32_MIN || id > INT32_MAX) {  // getIntFromObjectOrReply's words
    return Reply::Error("ERR value is out of range, value must between -2147483648 and 2147483647");
  }
  if (id < 0 || id >= kRedisDatabases) return Reply::Error("ERR DB index is out of range");
  if (id == 0) return Reply::Ok();
  if (other != nullptr) *other = true;
  return Reply::Error("ERR DB index is out of range (lockstep models database 0)");
}

}  // namespace lockstep::kv
