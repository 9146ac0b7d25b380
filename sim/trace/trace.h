// The record of one execution: the scenario it ran, the schedule, every step
// with the state after it, and the violation if any. Its JSON form
// ("format": "lockstep-trace/2") is what `--trace-out` writes, what the
// viewer reads, and what `lockstep replay` checks byte for byte.
//
// Version 2 adds, per step, the source line of the acting client's command
// and the reasons the algorithms gave (Client::Because). Version 3 adds the
// lasso of a liveness counterexample (written only by traces that have
// one). Versions 1 and 2 are still read, and replayed against their own
// version.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/check/property.h"
#include "sim/lang/language.h"
#include "sim/world/world.h"

namespace lockstep::trace {

inline constexpr int kFormatVersion = 2;
inline constexpr int kLassoFormatVersion = 3;  // kFormatVersion and a lasso
// "lockstep-trace/2"
std::string FormatName(int version);

struct ClientInfo {
  std::string name;
  std::string algorithm;  // empty for a client that crashed before the run
  world::Millis skew = 0;
  bool crashed_at_start = false;
};

struct Trace {
  nlohmann::json scenario;  // the scenario, as loaded, without schedule
  uint64_t seed = 0;
  std::vector<ClientInfo> clients;
  // With several servers, their names (from the scenario); empty for one.
  std::vector<std::string> server_names;
  std::vector<std::string> schedule;     // actions in text form
  std::vector<world::StepRecord> steps;  // steps[0] is the initial state
  std::string end;                       // why the execution ended
  std::optional<check::Violation> violation;
  // A liveness counterexample: the schedule's actions from `start` (0-based),
  // `length` of them, are a cycle that repeats for ever; the schedule runs
  // it twice.
  struct Lasso {
    int start = 0;
    int length = 0;
    friend bool operator==(const Lasso&, const Lasso&) = default;
  };
  std::optional<Lasso> lasso;
  int format_version = kFormatVersion;  // of the file it was read from
};

// `version` 1 leaves out what version 2 added (for replaying old files).
// The version a trace is written in: 3 with a lasso, else 2.
int VersionFor(const Trace& t);
nlohmann::json ToJson(const Trace& t, int version);
// In the trace's own version (VersionFor): a lasso is never left out.
nlohmann::json ToJson(const Trace& t);
// The JSON text written to files: stable key order, two-space indent,
// trailing newline. Byte-identical for identical traces.
std::string ToJsonText(const Trace& t);

// Reads a trace. Throws base::InputError ("FILE: at /json/pointer: what was
// expected") iff `j` is not a lockstep-trace/2 or /1 document; `file` names
// it.
Trace FromJson(const nlohmann::json& j, const std::string& file);

// A command on one line: an argument of several lines (a script) shows as
// "[its first line ...]"; the trace keeps it whole.
std::string CommandText(const std::vector<std::string>& command);
// A client's step that sends no command either wakes it (its back-off,
// Client::SleepBetween, let the scheduler choose when) or leaves the
// critical section: true for the first, read from the step's events.
bool WakesActor(const std::vector<std::string>& events, const std::string& actor);
// The step as one short line for tests: "C1 SETNX lock.foo 13 -> 1",
// "clock tick", "C2 leaves", "crash C3".
std::string StepLine(const world::StepRecord& r);
// The whole execution on one line: steps joined by "; ", then
// " !mutual_exclusion(C1,C2)@8" if violated. What a test pins.
std::string OneLine(const Trace& t);
// A keyspace on one line: lock.foo="13" until 14 by C1  other="x"; or
// "(empty)".
std::string EntriesText(const std::vector<kv::Entry>& entries,
                        const std::map<std::string, std::string>& writers);
// Arguments computed `arg_age` ticks before their step ran: "args 1 tick old".
std::string ArgAgeLabel(long long arg_age);
// The same for step `r`, and, when its command replaced another client's value
// of a key (the ghost writers of `before` and `r`), what it replaced:
// "args 1 tick old: replaced C5's newer timestamp 14 with an older 13".
std::string ArgAgeText(const world::StepRecord& before, const world::StepRecord& r);
// A reply as compactly as a test wants it: 1, "13", nil, OK, ERR ...
std::string CompactReply(const kv::Reply& r);

// A step-by-step timeline for a terminal: one column per client, the clock,
// and the keyspace after each step; the violating step marked.
struct TimelineStyle {
  // Fit this many columns: tokens are cut to 6 hex digits and an ellipsis,
  // and the client and keyspace columns wrap (0: no limit).
  size_t width = 0;
  bool compact = false;  // one line per step: "8  tick 3  C2 SETNX ... [CS: C1,C2]"
  bool color = false;    // ANSI colours: each client's cells, the violation in red
  bool why = true;       // each client's reasons (Client::Because) under its step
  // The labels' language; recorded texts (reasons, events) shown in it too.
  lang::Language language = lang::Language::kEn;
};
std::string Timeline(const Trace& t, const TimelineStyle& style = {});
// `text` broken at spaces into lines of at most `width` columns, each ending
// in a newline (0: one line).
std::string WrapText(const std::string& text, size_t width);

}  // namespace lockstep::trace
