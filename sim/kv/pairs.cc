// What HDEL and ZREM share: a hash's fields and a sorted set's members are
// the first words of the pairs of an entry's items (keyspace.h).
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"

namespace lockstep::kv::internal {

Entry* Db::LookupKind(Text key, Entry::Kind kind, Reply* error) {
  Entry* entry = Lookup(key);
  if (entry == nullptr || entry->kind == kind) return entry;
  *error = Reply::Error(std::string(kWrongType));
  return nullptr;
}

std::optional<size_t> FindPair(const Entry& e, std::string_view name) {
  for (size_t i = 0; 2 * i + 1 < e.items.size(); ++i) {
    if (e.items[2 * i] == name) return i;
  }
  return std::nullopt;
}

// hdelCommand, zremCommand: an emptied hash or set is deleted at once.
Reply RemovePairs(Db& db, const Argv& argv, Entry::Kind kind) {
  Reply error;
  Entry* entry = db.LookupKind(argv[1], kind, &error);
  if (error.is_error()) return error;
  if (entry == nullptr) return Reply::Integer(0);
  int64_t removed = 0;
  for (size_t j = 2; j < argv.size(); ++j) {
    const std::optional<size_t> at = FindPair(*entry, argv[j]);
    if (!at) continue;
    const auto first = entry->items.begin() + static_cast<std::ptrdiff_t>(2 * *at);
    entry->items.erase(first, first + 2);
    ++removed;
    if (entry->items.empty()) {
      db.Remove(*entry);
      break;
    }
  }
  if (removed > 0) db.MarkWrote();
  return Reply::Integer(removed);
}

}  // namespace lockstep::kv::internal
