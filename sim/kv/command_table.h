// Command metadata as data, in the shape of Redis's src/commands/*.json:
// name, arity, whether the command writes, and where its keys are.
//
// The explorer's dependence relation (which steps commute) is decided here,
// next to the command table, from these fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/text.h"

namespace lockstep::kv {

enum class Access { kRead, kWrite };

// How a command's arguments and reply involve the server's clock, so that a
// replay on a real server, whose clock is not the model's, knows when the
// clock decides a reply and which arguments are instants to move.
enum class Timing {
  kNone,
  kReadsDeadline,  // TTL, PTTL: the reply is a deadline minus the clock
  kDuration,       // EXPIRE, PEXPIRE: argv[2] is a time from now
  kInstant,        // EXPIREAT, PEXPIREAT: argv[2] is an instant on the clock
  kSetOptions,     // SET: EX/PX durations, EXAT/PXAT instants among its options
  kReadsClock,     // TIME: the reply is the clock itself
};

struct CommandSpec {
  std::string_view name;  // upper case, e.g. "SETNX"
  // Redis's convention: arity counts the command name; a negative arity -n
  // means "at least n".
  int arity;
  Access access;
  // Key positions in argv (argv[0] is the name). last_key == -1 means "up to
  // the last argument"; key_step is the distance between keys. first_key == 0
  // means the command takes no keys.
  int first_key;
  int last_key;
  int key_step;
  // For commands whose keys are counted by an argument (EVAL script numkeys
  // key ...): the index of that argument, else 0. The keys then start at
  // first_key and last_key is ignored.
  int numkeys_at = 0;
  Timing timing = Timing::kNone;
  // kDuration, kInstant: milliseconds per unit of the time argument.
  int64_t time_unit_ms = 1;
};

// Every command the model implements, in a fixed order.
std::span<const CommandSpec> CommandTable();

// Case-insensitive lookup. Returns nullptr iff the model has no such command.
const CommandSpec* FindCommand(std::string_view name);

// Returns true iff argv's length satisfies spec's arity.
bool ArityOk(const CommandSpec& spec, size_t argc);

// The command `name` names if its arity accepts `argc` arguments (the name
// included), else nullptr: what a server runs, or replies an error for.
const CommandSpec* FindRunnable(std::string_view name, size_t argc);

// Where argv's keys are: argv[first], argv[first + step], ... before
// argv[end]. Empty (first == end) when it names none.
struct KeyPositions {
  size_t first = 0, end = 0, step = 1;
  size_t count() const { return first < end ? (end - first + step - 1) / step : 0; }
};

// The positions of the keys argv names, per spec's key positions. A command
// whose key count is not a valid count for argv (EVAL 'x' -1, or more keys
// than arguments) fails before touching any key, so it names none.
// REQUIRES: ArityOk(spec, argv.size())
// argv is of strings or of kept texts.
KeyPositions CommandKeyPositions(const CommandSpec& spec, const std::vector<std::string>& argv);
KeyPositions CommandKeyPositions(const CommandSpec& spec, std::span<const Text> argv);

// The keys themselves, copied (CommandKeyPositions allocates nothing).
std::vector<std::string> CommandKeys(const CommandSpec& spec, const std::vector<std::string>& argv);

// One argument of a command that is a time (see Timing).
struct TimeArgument {
  size_t index;     // in argv
  bool instant;     // an instant on the server's clock; else a duration
  int64_t unit_ms;  // 1000 for seconds, 1 for milliseconds
};

// The arguments of argv that are times, per spec.timing. Options without a
// value after them name none.
std::vector<TimeArgument> TimeArguments(const CommandSpec& spec,
                                        const std::vector<std::string>& argv);

// Whether the server's clock can decide argv's reply or effect: it reads a
// deadline, or sets one (SET with any time option, even a malformed one).
bool DependsOnClock(const CommandSpec& spec, const std::vector<std::string>& argv);

}  // namespace lockstep::kv
