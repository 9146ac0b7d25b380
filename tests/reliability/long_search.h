// A search that runs for hours, waiting until lockstep is well into it, and
// whether a signal sent to it is still to be delivered: what the tests of
// stop signals use.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace lockstep::testing {

// Five clients, no reductions (no state caching either: with it, this
// search ends in about a second), a far horizon. Executions of at most 100
// steps: the first one under the default bound is 10,000 steps long and
// takes about a second under ASan, so a signal in the first second would
// find no execution finished.
inline std::vector<std::string> LongSearch(const std::string& out_dir) {
  return {"explore",    ScenarioPath("getset-bounded.json"),
          "--no-cache", "--no-symmetry",
          "--no-por",   "--horizon",
          "30",         "--max-steps",
          "100",        "--out",
          out_dir};
}

// Whether `pid` catches `signal`, once it runs lockstep: before its exec,
// the forked child still has this test program's handlers (Catch's own
// SIGINT and SIGTERM handlers among them).
inline bool Catches(pid_t pid, int signal) {
  std::error_code ec;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  if (ec || !std::filesystem::equivalent(exe, LOCKSTEP_BINARY, ec)) return false;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long caught = std::stoull(line.substr(7), nullptr, 16);
    return caught & (1ULL << (signal - 1));
  }
  return false;
}

// Waits until lockstep, as `pid`, catches `signal` and has then used half a
// second of CPU time, so that the signal lands mid-search however slowly the
// process started (under a sanitizer) and however busy the machine is (wall
// time would not do: beside other tests, the search may get no CPU at all).
inline void WaitUntilSearching(pid_t pid, int signal = SIGINT) {
  const long half_second = sysconf(_SC_CLK_TCK) / 2;
  std::optional<long> since;  // CPU ticks when the handler was first seen
  for (int i = 0; i < 1200; ++i) {
    if (!since && Catches(pid, signal)) since = CpuTicks(pid);
    if (since && CpuTicks(pid) - *since >= half_second) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);  // leave nothing running behind a failed test
  Wait(pid);
  FAIL("lockstep did not start its search within a minute");
}

// Whether `signal` waits to be delivered to `pid`.
inline bool Pending(pid_t pid, int signal) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("SigPnd:") && !line.starts_with("ShdPnd:")) continue;
    if (std::stoull(line.substr(7), nullptr, 16) & (1ULL << (signal - 1))) return true;
  }
  return false;
}

}  // namespace lockstep::testing
