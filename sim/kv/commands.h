// Internal to sim/kv: the command implementations and the per-call context
// they run in. Other layers use kv::Execute (sim/kv/dispatch.h), never these.
//
// Each handler is called only after the command was found and its arity
// checked, so it may index argv up to the arity without further checks.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/dispatch.h"
#include "sim/kv/keyspace.h"
#include "sim/kv/reply.h"

namespace lockstep::kv::internal {

// One command's view of the keyspace at one instant: Redis's lookupKey* and
// dbAdd/dbDelete, with lazy expiry and effect bookkeeping.
class Db {
 public:
  Db(std::vector<Entry>& entries, Millis now, Effect& effect)
      : entries_(entries), now_(now), effect_(effect) {}

  Millis now() const { return now_; }

  // The live entry for key, or nullptr. An entry expired at now is removed
  // here (Redis's expireIfNeeded) and noted in Effect::saw_expired.
  Entry* Lookup(Text key);

  // Adds an entry for key. REQUIRES: Lookup(key) == nullptr just before.
  // Invalidates other Entry pointers.
  Entry& Add(Text key);

  // Removes e. Invalidates Entry pointers.
  void Remove(const Entry& e);

  // Lookup, for a command on one kind of value: the live entry of `kind`,
  // or nullptr; for one of another kind, nullptr and *error is WRONGTYPE.
  Entry* LookupKind(Text key, Entry::Kind kind, Reply* error);

  // Records that the command wrote (Redis's server.dirty++).
  void MarkWrote() { effect_.wrote = true; }
  // Records why the model cannot vouch for the command's effect on a real
  // server (Effect::unvouched); the first reason stays.
  void MarkUnvouched(const char* why) {
    if (effect_.unvouched == nullptr) effect_.unvouched = why;
  }

 private:
  std::vector<Entry>& entries_;
  Millis now_;
  Effect& effect_;
};

using Argv = std::span<const Text>;

// The unit of a command's time argument (Redis's UNIT_SECONDS and
// UNIT_MILLISECONDS).
enum class TimeUnit { kSeconds, kMilliseconds };

using CommandFn = Reply (*)(Db& db, const Argv& argv);

// string_commands.cc
Reply GetCommand(Db& db, const Argv& argv);
Reply SetCommand(Db& db, const Argv& argv);
Reply SetnxCommand(Db& db, const Argv& argv);
Reply GetsetCommand(Db& db, const Argv& argv);
Reply IncrCommand(Db& db, const Argv& argv);
Reply IncrbyCommand(Db& db, const Argv& argv);
Reply DecrCommand(Db& db, const Argv& argv);
Reply DecrbyCommand(Db& db, const Argv& argv);

// key_commands.cc
Reply DelCommand(Db& db, const Argv& argv);
Reply ExistsCommand(Db& db, const Argv& argv);
Reply TypeCommand(Db& db, const Argv& argv);
Reply TimeCommand(Db& db, const Argv& argv);
Reply SelectCommand(Db& db, const Argv& argv);
Reply RpushCommand(Db& db, const Argv& argv);
Reply LlenCommand(Db& db, const Argv& argv);

// expire_commands.cc
Reply ExpireCommand(Db& db, const Argv& argv);
Reply PexpireCommand(Db& db, const Argv& argv);
Reply ExpireatCommand(Db& db, const Argv& argv);
Reply PexpireatCommand(Db& db, const Argv& argv);
Reply PersistCommand(Db& db, const Argv& argv);
Reply TtlCommand(Db& db, const Argv& argv);
Reply PttlCommand(Db& db, const Argv& argv);

// pairs.cc: a hash's fields and a sorted set's members, each the first of
// a pair in the entry's items.
// The index of the pair whose first word is `name` (items[2 * index]).
std::optional<size_t> FindPair(const Entry& e, std::string_view name);
// HDEL and ZREM: removes the pairs argv[2...] name from the `kind` at
// argv[1], and the key once it has none; the count removed.
Reply RemovePairs(Db& db, const Argv& argv, Entry::Kind kind);

// hash_commands.cc
Reply HsetCommand(Db& db, const Argv& argv);
Reply HgetCommand(Db& db, const Argv& argv);
Reply HdelCommand(Db& db, const Argv& argv);
Reply HexistsCommand(Db& db, const Argv& argv);
Reply HincrbyCommand(Db& db, const Argv& argv);
Reply HlenCommand(Db& db, const Argv& argv);
Reply HgetallCommand(Db& db, const Argv& argv);

// zset_commands.cc
Reply ZaddCommand(Db& db, const Argv& argv);
Reply ZincrbyCommand(Db& db, const Argv& argv);
Reply ZremCommand(Db& db, const Argv& argv);
Reply ZscoreCommand(Db& db, const Argv& argv);
Reply ZcardCommand(Db& db, const Argv& argv);
Reply ZcountCommand(Db& db, const Argv& argv);
Reply ZremrangebyscoreCommand(Db& db, const Argv& argv);
Reply ZrankCommand(Db& db, const Argv& argv);
Reply ZrevrankCommand(Db& db, const Argv& argv);

// zset_range_commands.cc
Reply ZrangeCommand(Db& db, const Argv& argv);
Reply ZrangebyscoreCommand(Db& db, const Argv& argv);
Reply ZrevrangeCommand(Db& db, const Argv& argv);
Reply ZrevrangebyscoreCommand(Db& db, const Argv& argv);

// eval_command.cc
Reply EvalCommand(Db& db, const Argv& argv);

// The handler for CommandTable()[index].
CommandFn HandlerAt(size_t index);

}  // namespace lockstep::kv::internal
