// One Ctrl-C may reach lockstep more than once: under `timeout 600
// lockstep explore ...` the terminal sends SIGINT to both, and timeout
// sends it on to lockstep and to its process group. The same signal within
// a second of the stop signal is that one again, and the search still
// reports its counts so far (exit 3); a second or more later, or another
// signal, ends lockstep at once (128 + the signal).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/run/stop_signals.h"
#include "tests/reliability/long_search.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// In a child process: the handlers installed and a search's cooperative
// stop alive, as explore has them, `send` raises its signals there. Its
// exit code: 0 if the first one asked the search to stop and none ended
// the process, else 128 + the signal that ended it.
template <typename Send>
int InCooperativeStop(Send send) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stderr)) _exit(102);
    run::InstallStopSignals();
    run::CooperativeStop stop;
    send();
    _exit(run::StopRequested().load() ? 0 : 100);
  }
  REQUIRE(pid > 0);
  return testing::Wait(pid);
}

TEST_CASE("the stop signal again at once, from the terminal and from timeout, stops a search once",
          "[interrupt]") {
  // A signal sent to itself is handled before raise and kill return: each
  // is handled apart, microseconds after the one before.
  CHECK(InCooperativeStop([] {
          raise(SIGINT);           // the terminal's Ctrl-C
          kill(getpid(), SIGINT);  // timeout sends it on to the command
          kill(getpid(), SIGINT);  // and to the command's process group
          if (run::StopSignal() != SIGINT) _exit(101);
        }) == 0);
}

TEST_CASE("the stop signal again a second later ends lockstep at once", "[interrupt]") {
  CHECK(InCooperativeStop([] {
          raise(SIGINT);
          std::this_thread::sleep_for(std::chrono::milliseconds(run::kRepeatWindowMs + 200));
          raise(SIGINT);
        }) == 128 + SIGINT);
}

TEST_CASE("another stop signal after the first ends lockstep at once, however soon",
          "[interrupt]") {
  CHECK(InCooperativeStop([] {
          raise(SIGINT);
          raise(SIGTERM);
        }) == 128 + SIGTERM);
}

// The processes `pid` started, as /proc lists them.
std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::ifstream list("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> children;
  for (pid_t child; list >> child;) children.push_back(child);
  return children;
}

TEST_CASE("Ctrl-C on `timeout 600 lockstep explore` gives the counts so far and exit 3",
          "[interrupt]") {
  // timeout in a process group of its own, as a shell with job control
  // starts it in the terminal's foreground group.
  testing::TempDir tmp;
  std::vector<std::string> words = {"timeout", "600", LOCKSTEP_BINARY};
  for (const std::string& a : testing::LongSearch(tmp.File("counterexamples"))) words.push_back(a);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const std::string out = tmp.File("out"), err = tmp.File("err");
  const pid_t group = fork();
  if (group == 0) {
    setpgid(0, 0);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    execvp("timeout", argv.data());
    _exit(127);
  }
  REQUIRE(group > 0);
  setpgid(group, group);  // whichever of the two runs first
  pid_t lockstep = 0;
  for (int i = 0; i < 1200 && lockstep == 0; ++i) {
    const std::vector<pid_t> children = ChildrenOf(group);
    if (!children.empty()) {
      lockstep = children[0];
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (lockstep == 0) kill(-group, SIGKILL);
  REQUIRE(lockstep != 0);
  testing::WaitUntilSearching(lockstep);
  // The terminal's SIGINT to each process of the group: lockstep's first,
  // and timeout's once lockstep has taken its own. (One kill of the group
  // may let timeout's copy arrive while lockstep's is still pending, and
  // two pending copies of a signal are delivered once.)
  REQUIRE(kill(lockstep, SIGINT) == 0);
  for (int i = 0; i < 12000 && testing::Pending(lockstep, SIGINT); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(kill(group, SIGINT) == 0);
  // timeout exits as the command did.
  CHECK(testing::Wait(group) == 3);
  const std::string report = testing::ReadText(out);
  INFO(report << testing::ReadText(err));
  CHECK(report.find("\nINCOMPLETE: interrupted; no violation found so far\n") != std::string::npos);
  CHECK(testing::ReadText(err) == "lockstep: search stopped by SIGINT\n");
}

}  // namespace
}  // namespace lockstep
