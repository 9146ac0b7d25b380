#include "sim/kv/keyspace.h"

#include <algorithm>
#include <iterator>

#include "sim/base/hash.h"

namespace lockstep::kv {

void Keyspace::PutString(const std::string& key, const std::string& value,
                         std::optional<Millis> deadline) {
  auto it = LowerBound(entries_, key);
  if (it == entries_.end() || it->key != key) {
    it = entries_.insert(it, Entry{});
    it->key = Text(key);
  }
  it->kind = Entry::Kind::kString;
  it->value = Text(value);
  it->items.clear();
  it->deadline = deadline;
}

void Keyspace::PutAll(std::vector<Entry> entries) {
  for (Entry& e : entries) {
    e.kind = Entry::Kind::kString;
    e.items.clear();
  }
  // The present entries first, so that a new entry replaces its key's.
  entries.insert(entries.begin(), std::make_move_iterator(entries_.begin()),
                 std::make_move_iterator(entries_.end()));
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.key < b.key; });
  entries_.clear();
  for (Entry& e : entries) {
    if (!entries_.empty() && entries_.back().key == e.key) {
      entries_.back() = std::move(e);
    } else {
      entries_.push_back(std::move(e));
    }
  }
}

void Keyspace::Replace(std::string_view key, const std::optional<Entry>& e) {
  auto it = LowerBound(entries_, key);
  const bool present = it != entries_.end() && it->key == key;
  if (!e) {
    if (present) entries_.erase(it);
  } else if (present) {
    *it = *e;
  } else {
    entries_.insert(it, *e);
  }
}

const Entry* Keyspace::Find(std::string_view key, Millis now) const {
  auto it = FindKey(entries_, key);
  if (it == entries_.end() || it->ExpiredAt(now)) return nullptr;
  return &*it;
}

std::vector<Entry> Keyspace::Live(Millis now) const {
  std::vector<Entry> live;
  live.reserve(entries_.size());
  for (const Entry& e : entries_) {
    if (!e.ExpiredAt(now)) live.push_back(e);
  }
  return live;
}

void Keyspace::PurgeExpired(Millis now) {
  std::erase_if(entries_, [now](const Entry& e) { return e.ExpiredAt(now); });
}

uint64_t Keyspace::Hash() const {
  base::Fnv1a h;
  h.U64(entries_.size());
  for (const Entry& e : entries_) {
    h.Str(e.key);
    h.U64(static_cast<uint64_t>(e.kind));
    h.Str(e.value);
    h.U64(e.items.size());
    for (const std::string& item : e.items) h.Str(item);
    h.U64(e.deadline.has_value() ? 1 : 0);
    h.U64(static_cast<uint64_t>(e.deadline.value_or(0)));
  }
  return h.value();
}

}  // namespace lockstep::kv
