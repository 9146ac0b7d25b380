// The process session's loop neither hangs nor spins: a stop signal ends a
// search whose client is blocked where the shim cannot see, replies of any
// size arrive, pipelined replies are answered as a batch, connections are
// accepted in linear time and a full descriptor table is an error.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::TempDir;
using LoopClock = std::chrono::steady_clock;

// A one-client scenario in `dir` whose client runs `script` (Python).
std::string LoopScenario(const TempDir& dir, const std::string& script, int timeout_seconds = 30,
                         const std::string& expect = "safe") {
  dir.Write("lockstep_client.py",
            testing::ReadText(testing::SourceDir() + "/examples/real-clients/lockstep_client.py"));
  dir.Write("client.py", script);
  const nlohmann::json scenario = {{"name", "session-loop"},
                                   {"clients",
                                    {{{"name", "C1"},
                                      {"may_never_enter", true},
                                      {"algorithm",
                                       {{"process",
                                         {{"command", {"/usr/bin/python3", "client.py"}},
                                          {"timeout_seconds", timeout_seconds}}}}}}}},
                                   {"lock", {{"key", "k"}, {"ttl", 2}}},
                                   {"clock", {{"start", 0}, {"horizon", 2}}},
                                   {"max_steps", 100000},
                                   {"properties", {"mutual_exclusion"}},
                                   {"expect", expect}};
  return dir.Write("scenario.json", scenario.dump(2));
}

struct BoundedRun {
  int exit_code = -1;  // -1: killed at the bound
  double seconds = 0;
  double cpu_seconds = 0;  // lockstep's own, not its client's: the machine's load aside
  std::string out, err;
};

// Runs `argv` for at most `bound_seconds` (then kills it: a test of a hang
// fails rather than hangs).
BoundedRun RunBounded(const TempDir& dir, const std::vector<std::string>& argv, int bound_seconds) {
  const auto start = LoopClock::now();
  const pid_t pid = testing::SpawnProgram(argv, dir.File("stdout"), dir.File("stderr"));
  BoundedRun b;
  int status = 0;
  for (;;) {
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      // Ended, not yet reaped: its CPU time is still there to read.
      b.cpu_seconds =
          static_cast<double>(testing::CpuTicks(pid)) / static_cast<double>(sysconf(_SC_CLK_TCK));
      waitpid(pid, &status, 0);
      b.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
      break;
    }
    if (LoopClock::now() - start > std::chrono::seconds(bound_seconds)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  b.seconds = std::chrono::duration<double>(LoopClock::now() - start).count();
  b.out = testing::ReadText(dir.File("stdout"));
  b.err = testing::ReadText(dir.File("stderr"));
  return b;
}

constexpr const char* kLoopConnect =
    "import os, redis, lockstep_client as l\n"
    "r = redis.Redis.from_url(l.redis_url())\n";

TEST_CASE("a stop signal ends a search whose process blocks where the shim cannot see",
          "[process]") {
  TempDir dir;
  // A read of a pipe nobody writes: no call the shim reports, for an hour.
  const std::string s = LoopScenario(dir,
                                     std::string(kLoopConnect) +
                                         "r.set('k', '1')\n"
                                         "rd, wr = os.pipe()\n"
                                         "open('blocked', 'w').close()\n"
                                         "os.read(rd, 1)\n",
                                     3600);
  const auto start = LoopClock::now();
  const pid_t pid = testing::SpawnProgram({LOCKSTEP_BINARY, "explore", "--allow-programs", s},
                                          dir.File("stdout"), dir.File("stderr"));
  for (int i = 0; i < 600 && !std::ifstream(dir.File("blocked")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(std::ifstream(dir.File("blocked")));
  const auto signalled = LoopClock::now();
  kill(pid, SIGTERM);
  int status = 0;
  bool ended = false;
  // Within a second; the bound is wide, the old loop waited the hour.
  while (!ended && LoopClock::now() - signalled < std::chrono::seconds(20)) {
    ended = waitpid(pid, &status, WNOHANG) == pid;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!ended) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  const double seconds = std::chrono::duration<double>(LoopClock::now() - signalled).count();
  REQUIRE(ended);
  CHECK(seconds < 10);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(Has(testing::ReadText(dir.File("stderr")), "stopped by SIGTERM"));
  (void)start;
}

TEST_CASE("a reply of 4 MB reaches the process", "[process]") {
  TempDir dir;
  const std::string s = LoopScenario(dir, std::string(kLoopConnect) +
                                              "big = b'x' * (4 << 20) + b'end'\n"
                                              "r.set('k', big)\n"
                                              "assert r.get('k') == big\n"
                                              "assert r.echo(big) == big\n");
  const BoundedRun r =
      RunBounded(dir, {LOCKSTEP_BINARY, "run", "--allow-programs", s, "--seed", "1"}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "no violation"));
}

TEST_CASE("2000 pipelined commands are answered at once", "[process]") {
  TempDir dir;
  const std::string s = LoopScenario(dir, std::string(kLoopConnect) +
                                              "p = r.pipeline(transaction=False)\n"
                                              "for i in range(1000):\n"
                                              "    p.get('k')\n"
                                              "    p.echo('e%d' % i)\n"
                                              "out = p.execute()\n"
                                              "assert out[1::2] == [b'e%d' % i for i in "
                                              "range(1000)], out[:4]\n");
  // Each reply waited for its own acknowledgement: 88 s. Now well under
  // a second of lockstep's own; the bound leaves room for a loaded machine.
  const BoundedRun r =
      RunBounded(dir, {LOCKSTEP_BINARY, "run", "--allow-programs", s, "--seed", "1"}, 30);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.seconds < 10);
}

TEST_CASE("thousands of connections are accepted in linear time", "[process]") {
  TempDir dir;
  const std::string s = LoopScenario(dir, std::string(kLoopConnect) +
                                              "import socket\n"
                                              "port = int(os.environ['LOCKSTEP_REDIS_PORTS'])\n"
                                              "conns = []\n"
                                              "for i in range(2000):\n"
                                              "    c = socket.create_connection(('127.0.0.1', "
                                              "port))\n"
                                              "    c.sendall(b'PING\\r\\n')\n"
                                              "    assert c.recv(100) == b'+PONG\\r\\n'\n"
                                              "    conns.append(c)\n"
                                              "r.set('k', '1')\n");
  // lockstep's own CPU time, which the machine's load leaves alone: 0.3 s
  // here, 14 s when each accept cost time linear in the connections open.
  const BoundedRun r =
      RunBounded(dir, {LOCKSTEP_BINARY, "run", "--allow-programs", s, "--seed", "1"}, 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.cpu_seconds < 4);
}

TEST_CASE("a process that opens more connections than lockstep can hold is told so", "[process]") {
  TempDir dir;
  // lockstep may hold 64 descriptors; its process raises its own limit.
  const std::string s = LoopScenario(dir,
                                     "import resource, socket, os\n"
                                     "resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))\n"
                                     "port = int(os.environ['LOCKSTEP_REDIS_PORTS'])\n"
                                     "conns = []\n"
                                     "for i in range(200):\n"
                                     "    c = socket.create_connection(('127.0.0.1', port))\n"
                                     "    c.sendall(b'PING\\r\\n')\n"
                                     "    assert c.recv(100) == b'+PONG\\r\\n'\n"
                                     "    conns.append(c)\n",
                                     3600);
  std::vector<std::string> argv = {"/usr/bin/prlimit", "--nofile=64:4096", LOCKSTEP_BINARY,
                                   "explore",          "--allow-programs", s};
  if (testing::kAddressSanitizer) {
    // With every descriptor taken, a sanitizer could not open a log file
    // (log_path) for what it writes, and would abort: it writes to stderr,
    // which is checked below.
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS"}) {
      const char* value = std::getenv(name);
      argv.insert(argv.begin(),
                  std::string(name) + "=" + (value ? value : "") + ":log_path=stderr");
    }
    argv.insert(argv.begin(), "/usr/bin/env");
  }
  const BoundedRun r = RunBounded(dir, argv, 30);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "more connections than lockstep can hold open"));
  CHECK_FALSE(Has(r.err, "ERROR: AddressSanitizer"));
  CHECK_FALSE(Has(r.err, "ERROR: LeakSanitizer"));
  CHECK_FALSE(Has(r.err, "runtime error:"));
}

TEST_CASE("after QUIT nothing more that connection sent is run", "[process]") {
  TempDir dir;
  const std::string s = LoopScenario(
      dir, std::string(kLoopConnect) +
               "import socket\n"
               "port = int(os.environ['LOCKSTEP_REDIS_PORTS'])\n"
               "c = socket.create_connection(('127.0.0.1', port))\n"
               "c.sendall(b'*1\\r\\n$4\\r\\nQUIT\\r\\n*3\\r\\n$3\\r\\nSET\\r\\n$1\\r\\nk\\r\\n"
               "$1\\r\\nv\\r\\n')\n"
               "got = b''\n"
               "while True:\n"
               "    b = c.recv(100)\n"
               "    if not b: break\n"
               "    got += b\n"
               "assert got == b'+OK\\r\\n', got\n"
               "assert r.get('k') is None\n");
  const BoundedRun r = RunBounded(dir, {LOCKSTEP_BINARY, "explore", "--allow-programs", s}, 60);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}

}  // namespace
}  // namespace lockstep
