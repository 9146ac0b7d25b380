#include "sim/kv/keyspace.h"

#include <algorithm>

#include "sim/base/hash.h"
#include "sim/kv/command_table.h"
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"

namespace lockstep::kv {
namespace {

bool ExpiredAt(const Entry& e, Millis now) {
  return e.deadline.has_value() && now > *e.deadline;
}

auto LowerBound(std::vector<Entry>& entries, std::string_view key) {
  return std::lower_bound(
      entries.begin(), entries.end(), key,
      [](const Entry& e, std::string_view k) { return e.key < k; });
}

auto LowerBound(const std::vector<Entry>& entries, std::string_view key) {
  return std::lower_bound(
      entries.begin(), entries.end(), key,
      [](const Entry& e, std::string_view k) { return e.key < k; });
}

}  // namespace

namespace internal {

Entry* Db::Lookup(std::string_view key) {
  auto it = LowerBound(entries_, key);
  if (it == entries_.end() || it->key != key) return nullptr;
  if (ExpiredAt(*it, now_)) {
    entries_.erase(it);
    effect_.saw_expired = true;
    return nullptr;
  }
  return &*it;
}

Entry& Db::Add(const std::string& key) {
  auto it = LowerBound(entries_, key);
  it = entries_.insert(it, Entry{});
  it->key = key;
  return *it;
}

void Db::Remove(const Entry& e) {
  entries_.erase(entries_.begin() + (&e - entries_.data()));
}

}  // namespace internal

Reply Keyspace::Execute(const std::vector<std::string>& argv, Millis now,
                        Effect* effect) {
  Effect local;
  Effect& eff = effect != nullptr ? *effect : local;
  eff = Effect{};
  if (argv.empty()) return Reply::Error(UnknownCommandError(argv));
  const CommandSpec* spec = FindCommand(argv[0]);
  if (spec == nullptr) return Reply::Error(UnknownCommandError(argv));
  if (!ArityOk(*spec, argv.size())) {
    return Reply::Error(WrongArityError(spec->name));
  }
  internal::Db db(entries_, now, eff);
  const auto index = static_cast<size_t>(spec - CommandTable().data());
  return internal::HandlerAt(index)(db, argv);
}

void Keyspace::PutString(const std::string& key, const std::string& value,
                         std::optional<Millis> deadline) {
  auto it = LowerBound(entries_, key);
  if (it == entries_.end() || it->key != key) {
    it = entries_.insert(it, Entry{});
    it->key = key;
  }
  it->kind = Entry::Kind::kString;
  it->value = value;
  it->list.clear();
  it->deadline = deadline;
}

void Keyspace::PutAll(std::vector<Entry> entries) {
  for (Entry& e : entries) {
    e.kind = Entry::Kind::kString;
    e.list.clear();
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

void Keyspace::Replace(const std::string& key, const std::optional<Entry>& e) {
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
  auto it = LowerBound(entries_, key);
  if (it == entries_.end() || it->key != key || ExpiredAt(*it, now)) {
    return nullptr;
  }
  return &*it;
}

std::vector<Entry> Keyspace::Live(Millis now) const {
  std::vector<Entry> live;
  live.reserve(entries_.size());
  for (const Entry& e : entries_) {
    if (!ExpiredAt(e, now)) live.push_back(e);
  }
  return live;
}

void Keyspace::PurgeExpired(Millis now) {
  std::erase_if(entries_, [now](const Entry& e) { return ExpiredAt(e, now); });
}

uint64_t Keyspace::Hash() const {
  base::Fnv1a h;
  h.U64(entries_.size());
  for (const Entry& e : entries_) {
    h.Str(e.key);
    h.U64(e.kind == Entry::Kind::kString ? 0 : 1);
    h.Str(e.value);
    h.U64(e.list.size());
    for (const std::string& item : e.list) h.Str(item);
    h.U64(e.deadline.has_value() ? 1 : 0);
    h.U64(static_cast<uint64_t>(e.deadline.value_or(0)));
  }
  return h.value();
}

}  // namespace lockstep::kv
