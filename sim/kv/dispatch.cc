#include "sim/kv/dispatch.h"

#include "sim/kv/command_table.h"
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"

namespace lockstep::kv {

namespace internal {

Entry* Db::Lookup(Text key) {
  auto it = FindKey(entries_, key);
  if (it == entries_.end()) return nullptr;
  if (it->ExpiredAt(now_)) {
    entries_.erase(it);
    effect_.saw_expired = true;
    return nullptr;
  }
  return &*it;
}

Entry& Db::Add(Text key) {
  auto it = LowerBound(entries_, key);
  it = entries_.insert(it, Entry{});
  it->key = key;
  return *it;
}

void Db::Remove(const Entry& e) { entries_.erase(entries_.begin() + (&e - entries_.data())); }

}  // namespace internal

Reply Execute(Keyspace& keyspace, const std::vector<std::string>& argv, Millis now,
              Effect* effect) {
  return Execute(keyspace, Args(argv.begin(), argv.end()), now, effect);
}

Reply Execute(Keyspace& keyspace, std::span<const Text> argv, Millis now, Effect* effect) {
  const CommandSpec* spec = argv.empty() ? nullptr : FindCommand(argv[0]);
  if (spec != nullptr && ArityOk(*spec, argv.size())) {
    return Execute(keyspace, *spec, argv, now, effect);
  }
  if (effect != nullptr) *effect = Effect{};  // refused: nothing touched
  if (spec == nullptr) {
    if (effect != nullptr) effect->unvouched = "a command the model does not implement";
    return Reply::Error(UnknownCommandError(std::vector<std::string>(argv.begin(), argv.end())));
  }
  return Reply::Error(WrongArityError(spec->name));
}

Reply Execute(Keyspace& keyspace, const CommandSpec& spec, std::span<const Text> argv, Millis now,
              Effect* effect) {
  Effect local;
  Effect& eff = effect != nullptr ? *effect : local;
  eff = Effect{};
  internal::Db db(keyspace.mutable_entries(), now, eff);
  const auto index = static_cast<size_t>(&spec - CommandTable().data());
  return internal::HandlerAt(index)(db, argv);
}

}  // namespace lockstep::kv
