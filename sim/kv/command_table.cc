#include "sim/kv/command_table.h"

#include <algorithm>
#include <array>

#include "sim/kv/commands.h"
#include "sim/kv/int_parse.h"

namespace lockstep::kv {
namespace {

struct Row {
  CommandSpec spec;
  internal::CommandFn fn;
};

// Arity, flags and key specs as in Redis 7.0's src/commands/*.json.
constexpr auto kRows = std::to_array<Row>({
    {{"GET", 2, Access::kRead, 1, 1, 1}, internal::GetCommand},
    {{"SET", -3, Access::kWrite, 1, 1, 1, 0, Timing::kSetOptions}, internal::SetCommand},
    {{"SETNX", 3, Access::kWrite, 1, 1, 1}, internal::SetnxCommand},
    {{"GETSET", 3, Access::kWrite, 1, 1, 1}, internal::GetsetCommand},
    {{"DEL", -2, Access::kWrite, 1, -1, 1}, internal::DelCommand},
    {{"EXISTS", -2, Access::kRead, 1, -1, 1}, internal::ExistsCommand},
    {{"INCR", 2, Access::kWrite, 1, 1, 1}, internal::IncrCommand},
    {{"INCRBY", 3, Access::kWrite, 1, 1, 1}, internal::IncrbyCommand},
    {{"DECR", 2, Access::kWrite, 1, 1, 1}, internal::DecrCommand},
    {{"DECRBY", 3, Access::kWrite, 1, 1, 1}, internal::DecrbyCommand},
    {{"EXPIRE", -3, Access::kWrite, 1, 1, 1, 0, Timing::kDuration, 1000}, internal::ExpireCommand},
    {{"PEXPIRE", -3, Access::kWrite, 1, 1, 1, 0, Timing::kDuration, 1}, internal::PexpireCommand},
    {{"EXPIREAT", -3, Access::kWrite, 1, 1, 1, 0, Timing::kInstant, 1000},
     internal::ExpireatCommand},
    {{"PEXPIREAT", -3, Access::kWrite, 1, 1, 1, 0, Timing::kInstant, 1},
     internal::PexpireatCommand},
    {{"PERSIST", 2, Access::kWrite, 1, 1, 1}, internal::PersistCommand},
    {{"TTL", 2, Access::kRead, 1, 1, 1, 0, Timing::kReadsDeadline}, internal::TtlCommand},
    {{"PTTL", 2, Access::kRead, 1, 1, 1, 0, Timing::kReadsDeadline}, internal::PttlCommand},
    {{"RPUSH", -3, Access::kWrite, 1, 1, 1}, internal::RpushCommand},
    {{"LLEN", 2, Access::kRead, 1, 1, 1}, internal::LlenCommand},
    {{"TYPE", 2, Access::kRead, 1, 1, 1}, internal::TypeCommand},
    {{"SELECT", 2, Access::kRead, 0, 0, 0}, internal::SelectCommand},
    {{"TIME", 1, Access::kRead, 0, 0, 0, 0, Timing::kReadsClock}, internal::TimeCommand},
    {{"HSET", -4, Access::kWrite, 1, 1, 1}, internal::HsetCommand},
    {{"HGET", 3, Access::kRead, 1, 1, 1}, internal::HgetCommand},
    {{"HDEL", -3, Access::kWrite, 1, 1, 1}, internal::HdelCommand},
    {{"HEXISTS", 3, Access::kRead, 1, 1, 1}, internal::HexistsCommand},
    {{"HINCRBY", 4, Access::kWrite, 1, 1, 1}, internal::HincrbyCommand},
    {{"HLEN", 2, Access::kRead, 1, 1, 1}, internal::HlenCommand},
    {{"HGETALL", 2, Access::kRead, 1, 1, 1}, internal::HgetallCommand},
    {{"ZADD", -4, Access::kWrite, 1, 1, 1}, internal::ZaddCommand},
    {{"ZINCRBY", 4, Access::kWrite, 1, 1, 1}, internal::ZincrbyCommand},
    {{"ZREM", -3, Access::kWrite, 1, 1, 1}, internal::ZremCommand},
    {{"ZSCORE", 3, Access::kRead, 1, 1, 1}, internal::ZscoreCommand},
    {{"ZCARD", 2, Access::kRead, 1, 1, 1}, internal::ZcardCommand},
    {{"ZCOUNT", 4, Access::kRead, 1, 1, 1}, internal::ZcountCommand},
    {{"ZRANGE", -4, Access::kRead, 1, 1, 1}, internal::ZrangeCommand},
    {{"ZRANGEBYSCORE", -4, Access::kRead, 1, 1, 1}, internal::ZrangebyscoreCommand},
    {{"ZREVRANGE", -4, Access::kRead, 1, 1, 1}, internal::ZrevrangeCommand},
    {{"ZREVRANGEBYSCORE", -4, Access::kRead, 1, 1, 1}, internal::ZrevrangebyscoreCommand},
    {{"ZREMRANGEBYSCORE", 4, Access::kWrite, 1, 1, 1}, internal::ZremrangebyscoreCommand},
    {{"ZRANK", 3, Access::kRead, 1, 1, 1}, internal::ZrankCommand},
    {{"ZREVRANK", 3, Access::kRead, 1, 1, 1}, internal::ZrevrankCommand},
    // Keys as declared by numkeys; a write, since the script may write.
    {{"EVAL", -3, Access::kWrite, 3, -1, 1, 2}, internal::EvalCommand},
});

constexpr std::array<CommandSpec, kRows.size()> MakeSpecs() {
  std::array<CommandSpec, kRows.size()> specs{};
  for (size_t i = 0; i < kRows.size(); ++i) specs[i] = kRows[i].spec;
  return specs;
}

constexpr std::array<CommandSpec, kRows.size()> kSpecs = MakeSpecs();

}  // namespace

std::span<const CommandSpec> CommandTable() { return kSpecs; }

const CommandSpec* FindCommand(std::string_view name) {
  // Linear: the table is small, and comparing lengths first rejects most rows.
  for (const CommandSpec& spec : kSpecs) {
    if (EqualsUpper(name, spec.name)) return &spec;
  }
  return nullptr;
}

bool ArityOk(const CommandSpec& spec, size_t argc) {
  // server.c: (arity > 0 && arity != argc) || (argc < -arity) is an error.
  if (spec.arity > 0) return argc == static_cast<size_t>(spec.arity);
  return argc >= static_cast<size_t>(-spec.arity);
}

const CommandSpec* FindRunnable(std::string_view name, size_t argc) {
  const CommandSpec* spec = FindCommand(name);
  return spec && ArityOk(*spec, argc) ? spec : nullptr;
}

namespace {

// CommandKeyPositions for argv of strings or of kept texts.
template <typename Args>
KeyPositions KeyPositionsOf(const CommandSpec& spec, const Args& argv) {
  if (spec.first_key <= 0) return {};
  const int argc = static_cast<int>(argv.size());
  const auto first = static_cast<size_t>(spec.first_key);
  if (spec.numkeys_at > 0) {
    int64_t n = 0;
    if (!ParseInt64(argv[static_cast<size_t>(spec.numkeys_at)], &n) || n < 0 ||
        n > argc - spec.first_key) {
      return {};
    }
    return {first, first + static_cast<size_t>(n), 1};
  }
  // A negative last_key counts back from the end (-1 is the last argument).
  const int last = spec.last_key < 0 ? argc + spec.last_key : spec.last_key;
  const int end = std::min(last + 1, argc);
  if (end <= spec.first_key) return {};
  return {first, static_cast<size_t>(end),
          static_cast<size_t>(spec.key_step > 0 ? spec.key_step : 1)};
}

}  // namespace

KeyPositions CommandKeyPositions(const CommandSpec& spec, const std::vector<std::string>& argv) {
  return KeyPositionsOf(spec, argv);
}

KeyPositions CommandKeyPositions(const CommandSpec& spec, std::span<const Text> argv) {
  return KeyPositionsOf(spec, argv);
}

std::vector<std::string> CommandKeys(const CommandSpec& spec,
                                     const std::vector<std::string>& argv) {
  const KeyPositions at = CommandKeyPositions(spec, argv);
  std::vector<std::string> keys;
  keys.reserve(at.count());
  for (size_t i = at.first; i < at.end; i += at.step) keys.push_back(argv[i]);
  return keys;
}

namespace {

// SET's options that take a time: EX/PX durations, EXAT/PXAT instants.
std::optional<TimeArgument> SetTimeOption(std::string_view option, size_t value_index) {
  if (EqualsUpper(option, "EX")) return TimeArgument{value_index, false, 1000};
  if (EqualsUpper(option, "PX")) return TimeArgument{value_index, false, 1};
  if (EqualsUpper(option, "EXAT")) return TimeArgument{value_index, true, 1000};
  if (EqualsUpper(option, "PXAT")) return TimeArgument{value_index, true, 1};
  return std::nullopt;
}

}  // namespace

std::vector<TimeArgument> TimeArguments(const CommandSpec& spec,
                                        const std::vector<std::string>& argv) {
  std::vector<TimeArgument> times;
  switch (spec.timing) {
    case Timing::kNone:
    case Timing::kReadsDeadline:
    case Timing::kReadsClock:
      break;
    case Timing::kDuration:
    case Timing::kInstant:
      if (argv.size() > 2) times.push_back({2, spec.timing == Timing::kInstant, spec.time_unit_ms});
      break;
    case Timing::kSetOptions:
      for (size_t j = 3; j + 1 < argv.size(); ++j) {
        if (auto t = SetTimeOption(AsCString(argv[j]), j + 1)) {
          times.push_back(*t);
          ++j;
        }
      }
      break;
  }
  return times;
}

bool DependsOnClock(const CommandSpec& spec, const std::vector<std::string>& argv) {
  if (spec.timing != Timing::kSetOptions) return spec.timing != Timing::kNone;
  for (size_t j = 3; j < argv.size(); ++j) {
    if (SetTimeOption(AsCString(argv[j]), j + 1)) return true;
  }
  return false;
}

namespace internal {

CommandFn HandlerAt(size_t index) { return kRows[index].fn; }

}  // namespace internal
}  // namespace lockstep::kv
