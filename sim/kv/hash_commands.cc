// HSET, HGET, HDEL, HEXISTS, HINCRBY, HLEN, HGETALL in the shape of Redis
// 7.0's src/t_hash.c. A hash is kept as Redis keeps a small one (a
// listpack): its fields in the order they were added, a field set again
// keeping its place, so HGETALL answers in Redis's order.
#include <cstdint>
#include <limits>

#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"

namespace lockstep::kv::internal {
namespace {

// redis.conf's hash-max-listpack-entries and hash-max-listpack-value: past
// either, Redis keeps the hash in a hash table, whose order is its own.
constexpr size_t kListpackEntries = 128;
constexpr size_t kListpackValue = 64;

// The place of field's value in e.items, or npos.
size_t ValueAt(const Entry& e, std::string_view field) {
  const std::optional<size_t> pair = FindPair(e, field);
  return pair ? 2 * *pair + 1 : std::string::npos;
}

// hashTypeLookupWriteOrCreate: the hash at key, created empty if there is
// none, or nullptr for a key of another type.
Entry* WriteOrCreate(Db& db, Text key) {
  Entry* entry = db.Lookup(key);
  if (entry != nullptr) return entry->kind == Entry::Kind::kHash ? entry : nullptr;
  entry = &db.Add(key);
  entry->kind = Entry::Kind::kHash;
  return entry;
}

// hashTypeSet: true iff the field is new.
bool SetField(Db& db, Entry& e, std::string_view field, std::string_view value) {
  if (field.size() > kListpackValue || value.size() > kListpackValue) {
    db.MarkUnvouched("a hash past Redis's listpack limits, whose field order is its hash table's");
  }
  const size_t at = ValueAt(e, field);
  if (at != std::string::npos) {
    e.items[at] = value;
    return false;
  }
  e.items.emplace_back(field);
  e.items.emplace_back(value);
  if (e.items.size() / 2 > kListpackEntries) {
    db.MarkUnvouched("a hash past Redis's listpack limits, whose field order is its hash table's");
  }
  return true;
}

}  // namespace

// hsetCommand: an odd count of field-value words is an arity error.
Reply HsetCommand(Db& db, const Argv& argv) {
  if (argv.size() % 2 == 1) return Reply::Error(WrongArityError("hset"));
  Entry* entry = WriteOrCreate(db, argv[1]);
  if (entry == nullptr) return Reply::Error(std::string(kWrongType));
  int64_t created = 0;
  for (size_t j = 2; j + 1 < argv.size(); j += 2) {
    created += SetField(db, *entry, argv[j], argv[j + 1]) ? 1 : 0;
  }
  db.MarkWrote();
  return Reply::Integer(created);
}

Reply HgetCommand(Db& db, const Argv& argv) {
  Reply error;
  Entry* entry = db.LookupKind(argv[1], Entry::Kind::kHash, &error);
  if (error.is_error()) return error;
  const size_t at = entry != nullptr ? ValueAt(*entry, argv[2]) : std::string::npos;
  return at == std::string::npos ? Reply::Nil() : Reply::Bulk(entry->items[at]);
}

Reply HdelCommand(Db& db, const Argv& argv) { return RemovePairs(db, argv, Entry::Kind::kHash); }

Reply HexistsCommand(Db& db, const Argv& argv) {
  Reply error;
  Entry* entry = db.LookupKind(argv[1], Entry::Kind::kHash, &error);
  if (error.is_error()) return error;
  return Reply::Integer(entry != nullptr && ValueAt(*entry, argv[2]) != std::string::npos);
}

// hincrbyCommand: the increment is parsed first, then the key is made a
// hash (it cannot stay empty: a new field starts at 0, which cannot
// overflow), then the field's value.
Reply HincrbyCommand(Db& db, const Argv& argv) {
  int64_t increment = 0;
  if (!ParseInt64(argv[3], &increment)) return Reply::Error(std::string(kNotAnInteger));
  Entry* entry = WriteOrCreate(db, argv[1]);
  if (entry == nullptr) return Reply::Error(std::string(kWrongType));
  int64_t value = 0;
  const size_t at = ValueAt(*entry, argv[2]);
  if (at != std::string::npos && !ParseInt64(entry->items[at], &value)) {
    return Reply::Error("ERR hash value is not an integer");
  }
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if ((increment < 0 && value < 0 && increment < kMin - value) ||
      (increment > 0 && value > 0 && increment > kMax - value)) {
    return Reply::Error(std::string(kIncrOverflow));
  }
  value += increment;
  SetField(db, *entry, argv[2], FormatInt64(value));
  db.MarkWrote();
  return Reply::Integer(value);
}

Reply HlenCommand(Db& db, const Argv& argv) {
  Reply error;
  Entry* entry = db.LookupKind(argv[1], Entry::Kind::kHash, &error);
  if (error.is_error()) return error;
  return Reply::Integer(entry != nullptr ? static_cast<int64_t>(entry->items.size() / 2) : 0);
}

// Fields and values alternating, in the hash's order.
Reply HgetallCommand(Db& db, const Argv& argv) {
  Reply error;
  Entry* entry = db.LookupKind(argv[1], Entry::Kind::kHash, &error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  if (entry != nullptr) {
    if (entry->items.size() / 2 > kListpackEntries) {
      db.MarkUnvouched(
          "a hash past Redis's listpack limits, whose field order is its hash table's");
    }
    out.reserve(entry->items.size());
    for (const std::string& item : entry->items) out.push_back(Reply::Bulk(item));
  }
  return Reply::Array(std::move(out));
}

}  // namespace lockstep::kv::internal
