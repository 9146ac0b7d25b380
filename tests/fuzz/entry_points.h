// What the fuzz targets run on each input, shared by the libFuzzer targets
// (tests/fuzz/fuzz_*.cc, clang) and by the regression test that replays the
// seed corpora and every saved crash through the same code in the normal
// suite (fuzz_regressions_test.cc, any compiler).
//
// An input that lockstep refuses with a clean error is fine. A finding is a
// crash, a sanitizer report, an exception other than the loader's own error,
// or a broken invariant, which throws Finding.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace lockstep::fuzz {

struct Finding : std::logic_error {
  using std::logic_error::logic_error;
};

// Bytes as a scenario file: json::Parse, then scenario::LoadScenario. A
// scenario that loads is run (its schedule, or a short seeded run), and its
// trace must survive a round trip through trace::FromJson.
void ScenarioInput(std::string_view bytes);

// Bytes as a saved trace: json::Parse, trace::FromJson, then the embedded
// scenario and the schedule, as `lockstep replay` checks them.
void TraceInput(std::string_view bytes);

// Bytes as Redis commands for the model keyspace: one command a line,
// arguments separated by spaces; run at a few virtual times, twice over.
// A line "lockstep ARGS..." is also a command line, run through the CLI's
// own parsing (cli::RunCommandLine) in a fresh temporary folder holding a
// small scenario s.json; a line naming an absolute path, "..", --redis or
// a subcommand other than run, replay, render, explore or list is skipped,
// so that nothing is ever written outside that folder.
void CommandInput(std::string_view bytes);

// Bytes as Lua: with a first line "--eval", the rest is a script the model
// runs with EVAL (twice, on twin keyspaces: the replies must agree);
// otherwise the bytes are the Lua algorithm of two clients, run from a
// seed for kMaxLuaSteps steps, twice: the traces must be byte for byte the
// same (no address, no history of the process reaches them). The stack,
// instruction, memory and pattern bounds are the program's own.
void LuaInput(std::string_view bytes);

// The steps a Lua algorithm runs for: a step may take ten million
// instructions, and the run is done twice.
inline constexpr size_t kMaxLuaSteps = 8;

// The longest schedule (or seeded run) an input may ask the fuzzers to run:
// longer ones are only parsed, to keep the executions per second high.
inline constexpr size_t kMaxFuzzSteps = 64;

}  // namespace lockstep::fuzz
