// No process a client runs outlives lockstep, however lockstep ends (the
// search's end, a stop signal, SIGKILL), and no session folder is left.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::TempDir;

// Whether `pid` still runs (a zombie has ended).
// ReadText, not an istreambuf_iterator: a process reaped between the open
// and the read makes the read fail with ESRCH, which the iterator throws.
bool Alive(pid_t pid) {
  const std::string text = testing::ReadText("/proc/" + std::to_string(pid) + "/stat");
  if (text.empty()) return false;
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || text.substr(paren + 2, 1) != "Z";
}

// A client that starts three programs that would escape a process-group
// kill and a parent's death signal: a setsid, double-forked grandchild, a
// child in a process group of its own that ignores SIGTERM, and a child
// with a clean environment (no preload, so no death signal). It appends
// its own pid and theirs to `pids`, one line per run, then ends or waits.
nlohmann::json EscapingClient(const TempDir& dir, bool end) {
  dir.Write("client.py",
            std::string("import os, signal, subprocess, sys, time\n"
                        "def real_pid(): return int(os.readlink('/proc/self'))\n"
                        "r, w = os.pipe()\n"
                        "if os.fork() == 0:\n"
                        "    os.setsid()\n"
                        "    if os.fork() == 0:\n"
                        "        os.write(w, b'%d' % real_pid()); os.close(w)\n"
                        "        time.sleep(1000)\n"
                        "    os._exit(0)\n"
                        "os.close(w)\n"
                        "grandchild = int(os.read(r, 32))\n"
                        "ignoring = subprocess.Popen(['/bin/sh', '-c', 'trap \"\" TERM; exec "
                        "/bin/sleep 1000'], process_group=0)\n"
                        "clean = subprocess.Popen(['/bin/sleep', '1000'], env={})\n"
                        "line = '%d %d %d %d\\n' % (real_pid(), grandchild, ignoring.pid, "
                        "clean.pid)\n"
                        "old = open('pids').read() if os.path.exists('pids') else ''\n"
                        "with open('pids.tmp', 'w') as f: f.write(old + line)\n"
                        "os.rename('pids.tmp', 'pids')  # read whole or not at all\n") +
                (end ? "" : "signal.pause()\n"));
  return {{"name", "escape"},
          {"clients",
           {{{"name", "C1"},
             {"algorithm",
              {{"process",
                {{"command", {"/usr/bin/python3", "client.py"}}, {"timeout_seconds", 120}}}}}}}},
          {"lock", {{"key", "k"}}},
          {"clock", {{"start", 0}, {"horizon", 2}}},
          {"expect", "safe"}};
}

std::vector<pid_t> WrittenPids(const TempDir& dir) {
  std::ifstream in(dir.File("pids"));
  std::vector<pid_t> pids;
  for (pid_t p = 0; in >> p;) pids.push_back(p);
  return pids;
}

// lockstep with a TMPDIR of the test's own, where its sessions' folders go.
pid_t StartLockstep(const TempDir& dir, const std::vector<std::string>& args) {
  std::filesystem::create_directory(dir.File("tmp"));
  std::vector<std::string> argv = {"/usr/bin/env", "TMPDIR=" + dir.File("tmp"), LOCKSTEP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--allow-programs");
  argv.push_back(dir.File("scenario.json"));
  return testing::SpawnProgram(argv, dir.File("out"), dir.File("err"));
}

// Every pid written has ended and no session folder is left; whatever
// survived is killed, so that a failure leaves nothing behind either.
void CheckNothingLeft(const TempDir& dir, bool wait) {
  const std::vector<pid_t> pids = WrittenPids(dir);
  REQUIRE(pids.size() >= 4);
  auto folders = [&] {
    std::vector<std::string> left;
    for (const auto& e : std::filesystem::directory_iterator(dir.File("tmp"))) {
      left.push_back(e.path().filename().string());
    }
    return left;
  };
  auto any_left = [&] {
    for (pid_t p : pids) {
      if (Alive(p)) return true;
    }
    return !folders().empty();
  };
  // After a SIGKILL nothing of lockstep's runs: what cleans up acts once
  // lockstep is gone, a moment later.
  for (int i = 0; wait && i < 100 && any_left(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    INFO("pid " << pids[i] << ", the "
                << (i % 4 == 0 ? "client" : "client's child " + std::to_string(i % 4)));
    CHECK_FALSE(Alive(pids[i]));
  }
  for (pid_t p : pids) {
    if (Alive(p)) kill(p, SIGKILL);
  }
  CHECK(folders() == std::vector<std::string>{});
}

// Waits (bounded) for the client to have written its pids; if it does
// not, lockstep is killed.
void AwaitPids(const TempDir& dir, pid_t lockstep) {
  for (int i = 0; i < 600 && WrittenPids(dir).size() < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (WrittenPids(dir).size() < 4) {
    kill(lockstep, SIGKILL);
    testing::Wait(lockstep);
    FAIL("the client wrote no pids: " << testing::ReadText(dir.File("err")));
  }
}

TEST_CASE("nothing a client starts outlives a search that ends", "[process]") {
  TempDir dir;
  dir.Write("scenario.json", EscapingClient(dir, true).dump());
  const pid_t lockstep = StartLockstep(dir, {"explore"});
  // Vacuous: the client never enters a critical section.
  CHECK(testing::Wait(lockstep) == 5);
  INFO(testing::ReadText(dir.File("err")));
  CheckNothingLeft(dir, false);
}

TEST_CASE("nothing a client starts outlives lockstep stopped by SIGINT or SIGTERM", "[process]") {
  // `run` ends at the first stop signal (a search would stop between two
  // steps, and this client never takes one).
  const int signal = GENERATE(SIGINT, SIGTERM);
  TempDir dir;
  dir.Write("scenario.json", EscapingClient(dir, false).dump());
  const pid_t lockstep = StartLockstep(dir, {"run", "--seed", "1"});
  AwaitPids(dir, lockstep);
  kill(lockstep, signal);
  CHECK(testing::Wait(lockstep) == 128 + signal);
  CheckNothingLeft(dir, false);
}

TEST_CASE("nothing a client starts outlives lockstep killed with SIGKILL", "[process]") {
  TempDir dir;
  dir.Write("scenario.json", EscapingClient(dir, false).dump());
  const pid_t lockstep = StartLockstep(dir, {"explore"});
  AwaitPids(dir, lockstep);
  kill(lockstep, SIGKILL);
  CHECK(testing::Wait(lockstep) == 1000 + SIGKILL);
  CheckNothingLeft(dir, true);
}

}  // namespace
}  // namespace lockstep
