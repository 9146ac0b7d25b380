// A process client that goes wrong says how: an unknown command gets
// Redis's own error (here a finding, as the client raises it), a crash
// after its first step is a finding, one before it an error about the
// scenario with the end of its output, a client that does nothing
// lockstep can see is an error once its time is up, and one that is not
// deterministic is named with the step where it diverged.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

// A one-client scenario in `dir` whose client runs `script` (Python).
std::string ProcessScenario(const TempDir& dir, const std::string& script,
                            const nlohmann::json& extra = nlohmann::json::object()) {
  dir.Write("lockstep_client.py",
            testing::ReadText(testing::SourceDir() + "/examples/real-clients/lockstep_client.py"));
  dir.Write("client.py", script);
  nlohmann::json process = {{"command", {"/usr/bin/python3", "client.py"}}};
  process.update(extra);
  const nlohmann::json scenario = {
      {"name", "process-error"},
      {"clients", {{{"name", "C1"}, {"algorithm", {{"process", process}}}}}},
      {"lock", {{"key", "k"}, {"ttl", 2}}},
      {"clock", {{"start", 0}, {"horizon", 2}}},
      {"properties", {"mutual_exclusion"}},
      {"expect", "violation:client_error"}};
  return dir.Write("scenario.json", scenario.dump(2));
}

constexpr const char* kConnect =
    "import os, redis, lockstep_client as l\n"
    "r = redis.Redis.from_url(l.redis_url())\n";

TEST_CASE("a command the model does not know gets Redis's error, which the client raises",
          "[process]") {
  TempDir dir;
  const std::string s =
      ProcessScenario(dir, std::string(kConnect) + "r.execute_command('FROBNICATE', 'x')\n");
  const auto r = RunLockstep({"explore", "--allow-programs", s, "--out", dir.File("out")});
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "FROBNICATE x -> ERR unknown command 'FROBNICATE', with args beginning with"));
  CHECK(Has(r.out,
            "VIOLATION of client_error: C1's algorithm threw: C1's process exited with "
            "status 1: redis.exceptions.ResponseError: unknown command 'FROBNICATE'"));
}

TEST_CASE("a process that crashes after its first step is a finding that replays", "[process]") {
  TempDir dir;
  const std::string s =
      ProcessScenario(dir, std::string(kConnect) + "r.set('k', '1')\nos.abort()\n");
  const auto r = RunLockstep({"explore", "--allow-programs", s, "--out", dir.File("out")});
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out,
            "VIOLATION of client_error at step 1: C1's algorithm threw: C1's process was "
            "killed by SIGABRT"));
  const auto replay = RunLockstep(
      {"replay", "--allow-programs", dir.File("out/process-error-client_error-1clients.json")});
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "byte for byte"));
}

TEST_CASE("a process that ends before its first step is an error with the end of its output",
          "[process]") {
  TempDir dir;
  const std::string s =
      ProcessScenario(dir, "import sys\nprint('no settings here', file=sys.stderr)\nsys.exit(3)\n");
  const auto r = RunLockstep({"explore", "--allow-programs", s});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "C1's process (/usr/bin/python3 client.py) exited with status 3 before it "
            "made a request; the end of its stdout and stderr:\nno settings here"));
}

TEST_CASE("a process that does nothing lockstep sees is an error once its time is up",
          "[process]") {
  TempDir dir;
  const std::string s =
      ProcessScenario(dir, "import signal\nsignal.pause()\n", {{"timeout_seconds", 1}});
  const auto r = RunLockstep({"explore", "--allow-programs", s});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "C1's process (/usr/bin/python3 client.py) did nothing lockstep could see for "
            "1 s: it sent no command, did not sleep and did not end"));
}

TEST_CASE("a process that is not deterministic is named with the step where it diverged",
          "[process]") {
  TempDir dir;
  // The kernel's random UUID, which the shim does not reach, differs from
  // run to run; the clock's tick before or after its first command makes
  // the automaton run it twice from the start.
  const std::string s = ProcessScenario(
      dir, std::string(kConnect) +
               "r.set('k', open('/proc/sys/kernel/random/uuid').read().strip())\nr.get('k')\n");
  const auto r = RunLockstep({"explore", "--allow-programs", s});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "the algorithm of C1 is not deterministic: run again from its start with the "
            "same inputs, it diverged at its step 0 (it made command SET k "));
}

TEST_CASE("a malformed lockstep: call is an error naming the call and what was expected",
          "[process]") {
  TempDir dir;
  const std::string s = ProcessScenario(
      dir,
      std::string(kConnect) + "r.set('k', '1')\nr.echo('lockstep:forget_history {\"live\": 3}')\n");
  const auto r = RunLockstep({"explore", "--allow-programs", s});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "C1's process (/usr/bin/python3 client.py) sent ECHO lockstep:forget_history with "
            "{\"label\": TEXT, \"live\": [INTEGER...], \"times\": [TIME...]} (live and times "
            "optional), got \"{\"live\": 3}\""));
}

TEST_CASE("a process client's scenario names what is wrong in it", "[process]") {
  TempDir dir;
  const std::string missing = ProcessScenario(dir, "", {{"command", {"no-such-program-here"}}});
  auto r = RunLockstep({"explore", "--allow-programs", missing});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "at /clients/0/algorithm/process/command/0: expected a program to run; found "
            "no executable \"no-such-program-here\" on PATH"));
  const std::string preload = ProcessScenario(dir, "", {{"env", {{"LD_PRELOAD", "x.so"}}}});
  r = RunLockstep({"explore", "--allow-programs", preload});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "at /clients/0/algorithm/process/env/LD_PRELOAD: expected an environment name"));
}

}  // namespace
}  // namespace lockstep
