// Ctrl-C (and SIGTERM, SIGHUP) on a long search: lockstep prints the counts
// so far and exits 3, and leaves no file behind (outputs are written to a
// temporary file and renamed into place, so nothing is ever half written).
// Other commands exit 128 + the signal with a one-line message, removing
// the temporary file being written; a counterexample being shrunk is saved
// as found.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sanitizer/asan_interface.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sim/run/stop_signals.h"
#include "tests/reliability/long_search.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// lockstep with `args`, its output in `out` and `err`.
pid_t Spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<std::string> argv = {LOCKSTEP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::SpawnProgram(argv, out, err);
}

using testing::LongSearch;
using testing::Pending;
using testing::WaitUntilSearching;

TEST_CASE("Ctrl-C stops a long search with the counts so far and exit 3", "[interrupt]") {
  for (const char* jobs : {"1", "2"}) {
    INFO("--jobs " << jobs);
    testing::TempDir tmp;
    std::string out_dir = tmp.File("counterexamples");
    std::vector<std::string> args = LongSearch(out_dir);
    args.insert(args.end(), {"--jobs", jobs});
    pid_t pid = Spawn(args, tmp.File("out"), tmp.File("err"));
    REQUIRE(pid > 0);
    WaitUntilSearching(pid);
    REQUIRE(kill(pid, SIGINT) == 0);
    CHECK(testing::Wait(pid) == 3);
    std::string out = testing::ReadText(tmp.File("out"));
    INFO(out << testing::ReadText(tmp.File("err")));
    CHECK(out.find("\nsearch: ") != std::string::npos);
    CHECK(out.find(" executions, ") != std::string::npos);
    CHECK(out.find("\nINCOMPLETE: interrupted; no violation found so far\n") != std::string::npos);
    CHECK_FALSE(fs::exists(out_dir));
    // Nothing else was written either.
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(tmp.path())) files += e.is_regular_file();
    CHECK(files == 2);
  }
}

TEST_CASE("Ctrl-C with --json still prints a complete report of the counts so far", "[interrupt]") {
  testing::TempDir tmp;
  std::vector<std::string> args = LongSearch(tmp.File("counterexamples"));
  args.push_back("--json");
  pid_t pid = Spawn(args, tmp.File("out"), tmp.File("err"));
  REQUIRE(pid > 0);
  WaitUntilSearching(pid);
  REQUIRE(kill(pid, SIGINT) == 0);
  CHECK(testing::Wait(pid) == 3);
  nlohmann::json report = nlohmann::json::parse(testing::ReadText(tmp.File("out")));
  CHECK(report["incomplete"] == "interrupted");
  CHECK(report["executions"].get<uint64_t>() > 0);
  CHECK(report["states"].get<uint64_t>() > 0);
}

TEST_CASE("SIGTERM and SIGHUP stop a search like Ctrl-C: counts so far, exit 3", "[interrupt]") {
  for (int signal : {SIGTERM, SIGHUP}) {
    INFO("signal " << signal);
    testing::TempDir tmp;
    pid_t pid = Spawn(LongSearch(tmp.File("counterexamples")), tmp.File("out"), tmp.File("err"));
    REQUIRE(pid > 0);
    WaitUntilSearching(pid, signal);
    REQUIRE(kill(pid, signal) == 0);
    CHECK(testing::Wait(pid) == 3);
    std::string out = testing::ReadText(tmp.File("out"));
    std::string err = testing::ReadText(tmp.File("err"));
    INFO(out << err);
    CHECK(out.find("\nINCOMPLETE: interrupted; no violation found so far\n") != std::string::npos);
    CHECK(err == std::string("lockstep: search stopped by ") +
                     (signal == SIGTERM ? "SIGTERM" : "SIGHUP") + "\n");
  }
}

TEST_CASE("a stop signal is heeded at the next transition, however slow transitions are",
          "[interrupt]") {
  // Every step of C1 first runs three million Lua instructions: thousands of
  // steps, each new to the search, each slow. Polling every few thousand
  // transitions, the search ran to its end (a minute and more) after the
  // signal.
  testing::TempDir tmp;
  const nlohmann::json scenario = {
      {"name", "slow-steps"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm",
          {{"lua_inline",
            "for i = 1, 3000 do\n  for _ = 1, 3000000 do end\n  redis.call('INCR', 'n')\n"
            "end\n"}}}}}},
      {"lock", {{"key", "lock.foo"}}},
      {"clock", {{"horizon", 0}}},
      {"max_steps", 4000},
      {"expect", "safe"}};
  const std::string file = tmp.Write("slow.json", scenario.dump());
  pid_t pid =
      Spawn({"explore", file, "--out", tmp.File("found")}, tmp.File("out"), tmp.File("err"));
  REQUIRE(pid > 0);
  WaitUntilSearching(pid, SIGTERM);
  REQUIRE(kill(pid, SIGTERM) == 0);
  CHECK(testing::Wait(pid) == 3);
  const std::string out = testing::ReadText(tmp.File("out"));
  INFO(out << testing::ReadText(tmp.File("err")));
  CHECK(out.find("\nINCOMPLETE: interrupted; no violation found so far\n") != std::string::npos);
}

TEST_CASE("a stop signal ends a run with 128 + the signal and a one-line message", "[interrupt]") {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    INFO("signal " << signal);
    testing::TempDir tmp;
    pid_t pid = Spawn({"run", testing::WriteEndlessRun(tmp), "--seed", "1", "--max-memory", "2G",
                       "--trace-out", tmp.File("trace.json")},
                      tmp.File("out"), tmp.File("err"));
    REQUIRE(pid > 0);
    WaitUntilSearching(pid, signal);
    REQUIRE(kill(pid, signal) == 0);
    CHECK(testing::Wait(pid) == 128 + signal);
    std::string err = testing::ReadText(tmp.File("err"));
    const char* name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP";
    CHECK(err == std::string("\nlockstep: stopped by ") + name + "\n");
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(tmp.path())) files += (void(e), 1);
    CHECK(files == 3);  // the scenario, out, err: no trace, no temporary
  }
}

TEST_CASE("a stop signal while a file is written removes its temporary", "[interrupt]") {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    INFO("signal " << signal);
    testing::TempDir tmp;
    const std::string target = tmp.File("trace.json");
    pid_t pid = fork();
    if (pid == 0) {
      // What output_file.cc does between creating the temporary and renaming it.
      if (!freopen("/dev/null", "w", stderr)) _exit(102);
      run::InstallStopSignals();
      std::string temporary = target + ".tmp-XXXXXX";
      int fd = mkstemp(temporary.data());
      if (fd < 0) _exit(100);
      run::RegisterTemporary(temporary.c_str());
      raise(signal);
      _exit(101);  // not reached: the handler exits
    }
    REQUIRE(pid > 0);
    CHECK(testing::Wait(pid) == 128 + signal);
    CHECK(fs::is_empty(tmp.path()));
  }
}

// Poisons, as AddressSanitizer's shadow, the 64 KiB below this frame: what a
// fiber's stack holds where an exception unwound frames that ASan was never
// told are dead (world/fiber_stack.h). Not inlined, so that its frame is
// below its caller's. A no-op without ASan.
[[gnu::noinline]] void PoisonBelowHere() {
  volatile char marker = 0;
  char* here = const_cast<char*>(&marker);
  ASAN_POISON_MEMORY_REGION(here - 64 * 1024, 64 * 1024 - 64);
  (void)here;
}

TEST_CASE("a stop signal on a stack of stale redzones is handled on a clean stack", "[interrupt]") {
  pid_t pid = fork();
  if (pid == 0) {
    run::InstallStopSignals();
    run::CooperativeStop stop;
    // Installed to run on the alternate stack, and this thread has one.
    struct sigaction installed {};
    stack_t alternate{};
    if (sigaction(SIGUSR1, nullptr, &installed) != 0 || !(installed.sa_flags & SA_ONSTACK)) {
      _exit(101);
    }
    if (sigaltstack(nullptr, &alternate) != 0 || (alternate.ss_flags & SS_DISABLE)) _exit(102);
    PoisonBelowHere();
    // The kernel writes the siginfo below the stack pointer unless the
    // handler runs on the alternate stack; ASan reports the handler's read
    // of it and exits 1.
    raise(SIGUSR1);
    _exit(run::StopRequested().load() && run::StopSignal() == SIGUSR1 ? 0 : 100);
  }
  REQUIRE(pid > 0);
  CHECK(testing::Wait(pid) == 0);
}

// The system call `pid` is blocked in, as /proc shows it: its number and
// arguments, or "running".
std::string BlockedIn(pid_t pid) {
  std::string text = testing::ReadText("/proc/" + std::to_string(pid) + "/syscall");
  return text.substr(0, text.find('\n'));
}

// lockstep with `args`, its stdout in `out`, its stderr a pipe filled to
// the brim: its next write to stderr waits until the pipe is read.
struct FullStderr {
  pid_t pid = -1;
  int read_end = -1;  // the pipe's end to read (then close)
  size_t filler = 0;  // the bytes in the pipe before lockstep's own
};
FullStderr SpawnWithFullStderr(const std::vector<std::string>& args, const std::string& out) {
  FullStderr spawned;
  int err[2];
  REQUIRE(pipe(err) == 0);
  REQUIRE(fcntl(err[1], F_SETFL, O_NONBLOCK) == 0);
  for (size_t chunk : {size_t{4096}, size_t{1}}) {
    const std::string bytes(chunk, '.');
    while (write(err[1], bytes.data(), chunk) == static_cast<ssize_t>(chunk)) {
      spawned.filler += chunk;
    }
  }
  REQUIRE(fcntl(err[1], F_SETFL, 0) == 0);
  std::vector<char*> argv = {const_cast<char*>(LOCKSTEP_BINARY)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  spawned.pid = fork();
  if (spawned.pid == 0) {
    if (dup2(err[1], STDERR_FILENO) < 0 || !freopen(out.c_str(), "w", stdout)) _exit(127);
    close(err[0]);
    close(err[1]);
    execv(LOCKSTEP_BINARY, argv.data());
    _exit(127);
  }
  close(err[1]);
  spawned.read_end = err[0];
  return spawned;
}

// Everything `fd` gives until its end; closes it.
std::string Drain(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fd);
  return text;
}

// Whether `pid` waits in write(2) on stderr with `length` bytes.
bool WritingToStderr(pid_t pid, size_t length) {
  std::ostringstream hex;
  hex << " 0x" << std::hex << length << ' ';
  const std::string call = BlockedIn(pid);
  return call.starts_with(std::to_string(SYS_write) + " 0x2 ") &&
         call.find(hex.str()) != std::string::npos;
}

TEST_CASE("a stop signal while the counterexample is shrunk saves it as found", "[interrupt]") {
  // Redlock with a stall: the search finds a 54-step violation, then says so
  // on stderr just before it shrinks it. stderr is a full pipe, so lockstep
  // waits in that write until the signal has landed: it arrives before the
  // shrinking, whatever the machine's speed, and stops it at its start.
  const std::string said =
      "lockstep: violation found in 54 steps; shrinking it (a stop signal saves it as found)\n";
  testing::TempDir tmp;
  std::string out_dir = tmp.File("counterexamples");
  const FullStderr spawned = SpawnWithFullStderr(
      {"explore", testing::ScenarioPath("redlock-stall.json"), "--out", out_dir}, tmp.File("out"));
  const pid_t pid = spawned.pid;
  // Blocked in write(2, buffer, the line's length): /proc gives the buffer's
  // address and the length in hex.
  for (int i = 0; i < 12000 && !WritingToStderr(pid, said.size()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  INFO("system call: " << BlockedIn(pid));
  const bool blocked = WritingToStderr(pid, said.size());
  if (blocked) {
    // Delivered while the write waits: the handler runs and the write goes on.
    kill(pid, SIGINT);
    for (int i = 0; i < 12000 && Pending(pid, SIGINT); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } else {
    kill(pid, SIGKILL);
  }
  // Drain stderr to its end, so that lockstep can finish.
  const std::string text = Drain(spawned.read_end);
  const int code = testing::Wait(pid);
  REQUIRE(blocked);
  REQUIRE(text.size() >= spawned.filler);
  const std::string told = text.substr(spawned.filler);
  CHECK(told.starts_with(said));
  CHECK(code == 1);
  std::string out = testing::ReadText(tmp.File("out"));
  INFO(out << told);
  CHECK(out.find("counterexample: 54 steps (as found: not shrunk, stopped by SIGINT; the search "
                 "found 54)") != std::string::npos);
  // Saved, and it replays.
  std::vector<fs::path> saved;
  for (const auto& e : fs::directory_iterator(out_dir)) saved.push_back(e.path());
  REQUIRE(saved.size() == 1);
  CHECK(testing::RunLockstep({"replay", saved[0].string()}).exit_code == 1);
}

// The long search, stopped by SIGTERM while it reports on a full stderr;
// then, more than the window for a repeat (kRepeatWindowMs) later, SIGTERM
// again. Returns its exit code, its stdout and its stderr.
struct Stopped {
  int code = 0;
  std::string out, told;
};
Stopped StopTwice() {
  const std::string said = "lockstep: search stopped by SIGTERM\n";
  testing::TempDir tmp;
  const FullStderr spawned =
      SpawnWithFullStderr(LongSearch(tmp.File("counterexamples")), tmp.File("out"));
  const pid_t pid = spawned.pid;
  REQUIRE(pid > 0);
  WaitUntilSearching(pid, SIGTERM);
  kill(pid, SIGTERM);
  // The first one heeded: the report waits on the full pipe, inside the
  // search's cooperative stop.
  for (int i = 0; i < 12000 && !WritingToStderr(pid, said.size()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  INFO("system call: " << BlockedIn(pid));
  const bool blocked = WritingToStderr(pid, said.size());
  if (!blocked) {
    kill(pid, SIGKILL);
  } else {
    // Sleeping makes sure that the second comes after the window: the
    // first was handled before the report began.
    std::this_thread::sleep_for(std::chrono::milliseconds(run::kRepeatWindowMs + 200));
    kill(pid, SIGTERM);
  }
  // Delivered before stderr is read, while the write still waits.
  for (int i = 0; i < 12000 && blocked && Pending(pid, SIGTERM); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::string text = Drain(spawned.read_end);
  Stopped stopped;
  stopped.code = testing::Wait(pid);
  REQUIRE(blocked);
  REQUIRE(text.size() >= spawned.filler);
  stopped.told = text.substr(spawned.filler);
  stopped.out = testing::ReadText(tmp.File("out"));
  return stopped;
}

TEST_CASE("the same stop signal again a second after the first ends a search at once",
          "[interrupt]") {
  const Stopped s = StopTwice();
  INFO(s.out << s.told);
  CHECK(s.code == 128 + SIGTERM);
  // Its report's line never finished: the handler ends the process.
  CHECK(s.told.ends_with("\nlockstep: stopped by SIGTERM\n"));
  CHECK(s.out.empty());
}

}  // namespace
}  // namespace lockstep
