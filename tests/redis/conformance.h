// Differential conformance between the model keyspace and a real Redis:
// seeded command sequences, run on both, every reply and the final keyspace
// compared exactly, and failing sequences shrunk to the shortest that still
// fails.
//
// Two kinds of sequence:
// - Untimed (Generate), on a server with the machine's clock: every deadline
//   is either far in the past or far in the future (a million seconds or
//   more) relative to the server's clock when the sequence starts, so
//   whether a key has expired is certain on both sides. The model runs each
//   command at the server's clock (see known_departures.h for how an
//   instant is chosen).
// - Timed (GenerateTimed), on a server whose clock lockstep sets
//   (replay::RedisProcess with a controlled clock): the clock starts at 0 and
//   moves before commands, by milliseconds to seconds, so short TTLs run out
//   mid-sequence, TTLs round at +-500 ms, GT and LT meet equal deadlines, and
//   both sides run every command at the same instant. The keyspace is
//   compared after every command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/kv/keyspace.h"
#include "sim/replay/redis_process.h"
#include "sim/replay/redis_replay.h"

namespace lockstep::conformance {

using Argv = std::vector<std::string>;

// One argument: literal text, or a time the run fills in from the server's
// clock at the start of the sequence, so that a sequence means the same
// thing whenever it runs (shrinking re-runs it later).
struct Arg {
  enum class Base { kNone, kNowMs, kNowSeconds };
  std::string text;  // kNone
  Base base = Base::kNone;
  int64_t offset = 0;  // added to now, in the base's unit
};
struct Command {
  std::vector<Arg> args;
  std::vector<std::string> features;  // what this command exercises, for coverage
  int64_t advance_ms = 0;             // timed: the clock moves this much first
};
using Sequence = std::vector<Command>;

// A sequence of 5..30 commands from `seed`.
Sequence Generate(uint64_t seed);
// A timed sequence of 5..30 commands from `seed`: times near the clock.
Sequence GenerateTimed(uint64_t seed);
// Whether the generator has a dedicated builder for the model's command
// `name` (every command in kv::CommandTable() must have one).
bool HasBuilder(std::string_view name);

Argv Materialize(const Command& c, int64_t now_ms);
// Readable form: arguments quoted when needed, times as "<now+3000000123ms>".
std::string Render(const Command& c);

// Changes the model's reply to a command; tests use it to plant a mismatch.
using FaultHook = std::function<void(const Argv& argv, kv::Reply* model_reply)>;

struct Outcome {
  bool ok = true;
  // The first difference: index of the command, or the sequence's size for
  // the final keyspace; what differs, for people.
  size_t at = 0;
  std::string what;
  std::vector<std::optional<kv::Reply>> model, real;  // per command, as run
  std::map<std::string, int> departures;              // skipped, by id
  std::vector<kv::Reply> real_errors;                 // error replies seen
};

class Runner {
 public:
  explicit Runner(replay::RedisConnection& redis, FaultHook hook = nullptr)
      : redis_(redis), hook_(std::move(hook)) {}
  // Timed sequences: `clock` is the server `redis` is connected to.
  Runner(replay::RedisConnection& redis, replay::RedisProcess& clock, FaultHook hook = nullptr)
      : redis_(redis), clock_(&clock), hook_(std::move(hook)) {}
  // FLUSHALL, then the sequence on both sides, then the keyspaces (timed:
  // after every command). Throws std::runtime_error if the connection fails.
  Outcome Run(const Sequence& s);
  int runs() const { return runs_; }

 private:
  std::vector<kv::Reply> Send(const std::vector<Argv>& commands);
  std::vector<kv::Entry> RealKeyspace();
  Outcome RunTimed(const Sequence& s);

  replay::RedisConnection& redis_;
  replay::RedisProcess* clock_ = nullptr;
  FaultHook hook_;
  int runs_ = 0;
};

// Delta debugging: removes chunks, then single commands, while the sequence
// still fails; bounded by `max_runs` runs. REQUIRES: !runner.Run(s).ok
Sequence Shrink(Runner& runner, Sequence s, int max_runs = 2000);

// The sequence with both sides' replies, the differing one marked.
std::string Explain(const Sequence& s, const Outcome& o);

}  // namespace lockstep::conformance
