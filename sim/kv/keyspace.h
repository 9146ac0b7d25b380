// The model Redis server's data: a keyspace of string, hash and sorted-set
// values (and, so that WRONGTYPE can happen, lists) with deadlines on
// virtual time. Plain
// data at the bottom of sim/kv: commands run on it through the dispatcher
// (sim/kv/dispatch.h), which this header knows nothing of.
//
// Time is an argument to every operation: the keyspace has no clock of its
// own. Expiry follows Redis 7: a key with deadline d is expired at time now
// iff now > d, and an expired key is absent for every command.
//
// Contents are kept in key order, so dumps, hashes and comparisons are
// deterministic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/text.h"

namespace lockstep::kv {

using Millis = int64_t;  // one virtual tick is one millisecond

struct Entry {
  enum class Kind { kString, kList, kHash, kZset };
  Text key;
  Kind kind = Kind::kString;
  Text value;  // kString
  // Every other kind, flat, so that what copies, hashes, packs and renames
  // a list's items covers them all:
  //  - kList: the items, head first;
  //  - kHash: field, value, field, value, ... in the order the fields were
  //    added (Redis's listpack order, which HGETALL answers in);
  //  - kZset: member, score, ... by score, then member bytes (Redis's order
  //    in both encodings), each score as Redis 7.0 prints it (%.17g).
  std::vector<std::string> items;
  std::optional<Millis> deadline;  // absolute, on the server's clock
  // Provenance, not Redis: the value is a time a client wrote (a clock
  // argument), which an all-time search keeps relative to the clock.
  bool timestamp = false;
  // Ghost state, not Redis (world/ghost_state.h): who wrote the value and
  // whose acquisition it belongs to, as indices of the model's writers; -1
  // for none. Kept beside the value so that copying, replicating and
  // removing an entry carry them with it. Commands never read them.
  int writer = -1;
  int owner = -1;

  // Redis 7's rule: expired at `now` iff now > deadline.
  bool ExpiredAt(Millis now) const { return deadline.has_value() && now > *deadline; }

  friend bool operator==(const Entry&, const Entry&) = default;
};

// The first of `entries` (sorted by key) whose key is not less than `key`.
template <typename Entries>
auto LowerBound(Entries& entries, std::string_view key) {
  return std::lower_bound(
      entries.begin(), entries.end(), key,
      [](const Entry& e, std::string_view k) { return std::string_view(e.key) < k; });
}

// The entry of `entries` (sorted by key) whose key is `key`, or end(). A
// lock's keyspace holds a key or two: a scan, where a size compare rejects
// most entries, costs less than a binary search's ordered compares. A kept
// key (Text) is compared by its address, any other by its bytes.
template <typename Entries, typename Key>
auto FindKey(Entries& entries, const Key& key) {
  constexpr size_t kScanned = 8;
  if (entries.size() <= kScanned) {
    auto it = entries.begin();
    while (it != entries.end() && it->key != key) ++it;
    return it;
  }
  auto it = LowerBound(entries, key);
  return it != entries.end() && it->key == key ? it : entries.end();
}

// "string", "list", "hash" or "zset", as TYPE answers.
const char* KindName(Entry::Kind kind);

// What a picture or a line of text shows for a list, hash or sorted set:
// "(list of 3)", "{f=v, g=w}", "{m:1.5, n:2, o:3, +4 more}"; raw bytes, for
// the caller to show as printable.
std::string ItemsSummary(const Entry& e);

// Why e's items cannot be what its kind keeps, or "": a hash's or sorted
// set's odd count of words, a field or member twice, a score that is not
// one Redis keeps as written (%.17g) or out of order. For entries read from
// a file, which a model's state must never hold.
std::string ItemsProblem(const Entry& e);

// The one command that gives an absent key e's value on a real server,
// without its deadline: SET, RPUSH, HSET or ZADD.
std::vector<std::string> WriteCommand(const Entry& e);

class Keyspace {
 public:
  // Sets up state directly (scenario initial keyspaces); not a Redis command.
  void PutString(const std::string& key, const std::string& value, std::optional<Millis> deadline);
  // PutString for many entries at once (a scenario's initial keyspace):
  // one sort, not a sorted insert per entry. Of equal keys the last wins.
  void PutAll(std::vector<Entry> entries);

  // Replaces key's entry by `e` (a replica applying its master's write), or
  // removes key if `e` is nullopt; not a Redis command.
  void Replace(std::string_view key, const std::optional<Entry>& e);

  // The entry for key if it is live at `now`, else nullptr. Does not purge.
  const Entry* Find(std::string_view key, Millis now) const;

  // The entries that are live at `now`, in key order.
  std::vector<Entry> Live(Millis now) const;

  // Removes every entry expired at `now`, so that two keyspaces with the same
  // live contents compare and hash equal. Execute calls this for the keys it
  // touches; the explorer calls it before hashing.
  void PurgeExpired(Millis now);

  // Stable 64-bit hash of every stored entry (call PurgeExpired first for a
  // canonical value). Equal contents give equal hashes on every machine.
  uint64_t Hash() const;

  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  // For the command dispatcher, which edits entries in place and keeps them
  // sorted by key.
  std::vector<Entry>& mutable_entries() { return entries_; }

  friend bool operator==(const Keyspace&, const Keyspace&) = default;

 private:
  std::vector<Entry> entries_;  // sorted by key
};

}  // namespace lockstep::kv
