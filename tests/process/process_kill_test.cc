// No process a client runs outlives lockstep, however lockstep ends: killed
// with SIGKILL in the middle of a search, its client's process and what that
// process started are gone too.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::TempDir;

// Whether `pid` still runs (a zombie has ended).
bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  if (text.empty()) return false;
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || text.substr(paren + 2, 1) != "Z";
}

TEST_CASE("killing lockstep with SIGKILL leaves none of its clients' processes behind",
          "[process]") {
  TempDir dir;
  // The client starts a program of its own, says both pids, and waits.
  dir.Write("client.py",
            "import os, signal, subprocess\n"
            "child = subprocess.Popen(['/bin/sleep', '1000'])\n"
            "me = int(os.readlink('/proc/self'))  # the real pid: getpid() is virtual\n"
            "with open('pids.tmp', 'w') as f: f.write('%d %d' % (me, child.pid))\n"
            "os.rename('pids.tmp', 'pids')\n"
            "signal.pause()\n");
  const nlohmann::json scenario = {
      {"name", "kill"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm",
          {{"process",
            {{"command", {"/usr/bin/python3", "client.py"}}, {"timeout_seconds", 120}}}}}}}},
      {"lock", {{"key", "k"}}},
      {"clock", {{"start", 0}, {"horizon", 2}}},
      {"expect", "safe"}};
  const std::string path = dir.Write("scenario.json", scenario.dump());
  const pid_t lockstep = testing::SpawnProgram(
      {LOCKSTEP_BINARY, "explore", "--allow-programs", path}, dir.File("out"), dir.File("err"));
  // Bounded: the client writes its file within a second or two.
  for (int i = 0; i < 600 && !std::ifstream(dir.File("pids")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ifstream in(dir.File("pids"));
  pid_t client = 0, child = 0;
  REQUIRE(in >> client >> child);
  REQUIRE(Alive(client));
  REQUIRE(Alive(child));
  kill(lockstep, SIGKILL);
  CHECK(testing::Wait(lockstep) == 1000 + SIGKILL);
  // The kernel delivers the parent-death signals at once; reaping them may
  // take the init process a moment.
  for (int i = 0; i < 100 && (Alive(client) || Alive(child)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK_FALSE(Alive(client));
  CHECK_FALSE(Alive(child));
}

}  // namespace
}  // namespace lockstep
