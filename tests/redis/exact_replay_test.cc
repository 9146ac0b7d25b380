// `lockstep replay --redis-server`: lockstep starts the redis-servers, sets
// their clocks to the trace's instants and applies the trace's faults, so
// every trace replays exactly: every reply equal, every violation again.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "sim/replay/redis_connection.h"
#include "sim/replay/redis_process.h"
#include "sim/replay/redis_replay.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunLockstep;

using testing::Has;

// The tests run from the build tree: the clock shim is beside lockstep, not
// beside this test program.
void UseBuiltShim() { setenv("LOCKSTEP_CLOCK_SHIM", LOCKSTEP_CLOCK_SHIM_PATH, 1); }

struct Replayed {
  int exit_code = 0;
  std::string out;  // stdout and stderr
};

// `replay TRACE --redis-server` in this process (no program to start: the
// sweeps below replay hundreds of traces).
Replayed ReplayExactly(const std::string& trace) {
  UseBuiltShim();
  std::ostringstream out;
  struct Capture {
    std::streambuf* cout;
    std::streambuf* cerr;
    ~Capture() {
      std::cout.rdbuf(cout);
      std::cerr.rdbuf(cerr);
    }
  } capture{std::cout.rdbuf(out.rdbuf()), std::cerr.rdbuf(out.rdbuf())};
  replay::RedisReplayOptions options;
  options.managed = true;
  const int code = replay::ReplayOnRedis(trace, options);
  return {code, out.str()};
}

// A replay is exact when no real reply differs from the trace's.
void CheckExact(const Replayed& r, int exit_code) {
  INFO(r.out);
  CHECK(r.exit_code == exit_code);
  CHECK_FALSE(Has(r.out, "DIFFERS"));
  CHECK_FALSE(Has(r.out, "NOT APPLIED"));
}

// The scenarios whose counterexamples the sweep below must replay.
const char* const kNamed[] = {"redlock-restart",      "replica-failover", "clock-jump",
                              "restart-none",         "set-px-del-stall", "set-px-script-stall",
                              "set-px-get-del-stall", "unfenced-stall"};

bool Named(const std::string& name) {
  return std::find(std::begin(kNamed), std::end(kNamed), name) != std::end(kNamed);
}

TEST_CASE("every counterexample explore finds on a shipped scenario reproduces ten times in ten",
          "[exact][scaled][long]") {
  // Under ASan (several times slower) only the named scenarios, once each.
  const bool all = !testing::kAddressSanitizer;
  const int times = all ? 10 : 1;
  testing::TempDir tmp;
  std::set<std::string> scenarios;
  int replayed = 0, stale_writes = 0;
  for (const std::string& path : testing::AllScenarioPaths()) {
    const std::string name = fs::path(path).stem().string();
    if (!all && !Named(name)) continue;
    // A safe scenario has nothing to replay; every other one must give its
    // counterexample, so that none drops out of the sweep unseen.
    if (scenario::LoadScenarioFile(path).expect.safe) continue;
    INFO(name);
    const std::string out = tmp.File(name);
    const auto found = RunLockstep({"explore", path, "--out", out});
    REQUIRE(found.exit_code == 1);
    REQUIRE(fs::is_directory(out));
    for (const auto& trace : fs::directory_iterator(out)) {
      for (int i = 0; i < times; ++i) {
        const Replayed r = ReplayExactly(trace.path().string());
        CheckExact(r, 1);
        CHECK(Has(r.out, " reproduced on the real server"));
        stale_writes += i == 0 && Has(r.out, "stale_write reproduced");
      }
      scenarios.insert(name);
      ++replayed;
    }
  }
  // Redlock, replicas and failover, clock jumps, restarts, stalls past short
  // TTLs (which reproduced 5 to 8 times in 10 on the machine's clock) and
  // the resource's stale writes among them.
  CHECK(replayed >= (all ? 20 : 8));
  CHECK(stale_writes >= (all ? 2 : 1));
  for (const char* name : kNamed) {
    INFO(name);
    CHECK(scenarios.count(name) == 1);
  }
}

TEST_CASE("six seeded runs of every shipped scenario replay with every reply equal",
          "[exact][scaled][long]") {
  // Under ASan (several times slower) one seed per scenario.
  const uint64_t seeds = testing::kAddressSanitizer ? 1 : 6;
  testing::TempDir tmp;
  int runs = 0, violations = 0, faults = 0;
  for (const std::string& path : testing::AllScenarioPaths()) {
    const scenario::Scenario s = scenario::LoadScenarioFile(path);
    for (uint64_t seed = 1; seed <= seeds; ++seed) {
      const trace::Trace t = run::RunSeeded(s, seed, s.max_steps);
      const std::string file =
          tmp.Write(s.name + "-" + std::to_string(seed) + ".json", trace::ToJsonText(t));
      INFO(file);
      const Replayed r = ReplayExactly(file);
      CheckExact(r, t.violation ? 1 : 0);
      ++runs;
      violations += t.violation.has_value();
      faults += Has(r.out, "applied: ");
    }
  }
  CHECK(runs == static_cast<int>(seeds * testing::AllScenarioPaths().size()));
  CHECK(violations > 0);
  CHECK(faults > (testing::kAddressSanitizer ? 2 : 10));
}

TEST_CASE("a clock jump moves the real server's clock and the lock expires by it", "[exact]") {
  testing::TempDir tmp;
  // A TTL of 500 ms and a jump of 600: only the jump can expire the lock.
  json scenario = json::parse(testing::ReadText(testing::ScenarioPath("clock-jump.json")));
  scenario["lock"]["ttl"] = 500;
  scenario["faults"]["jump_by"] = {600};
  scenario["schedule"] = {"C1", "jump +600", "C2"};
  const Replayed r = ReplayExactly(tmp.Write("jump.json", scenario.dump()));
  CheckExact(r, 1);
  CHECK(Has(r.out, "(jump +600)"));
  CHECK(Has(r.out, "applied: its clock is set to 600"));
  CHECK(Has(r.out, "mutual_exclusion reproduced on the real server at step 3"));
}

TEST_CASE("a restart keeps what its persistence keeps on the real server", "[exact]") {
  testing::TempDir tmp;
  struct Case {
    const char* persistence;
    std::vector<std::string> schedule;
    bool violation;  // C2 acquires the lock C1 holds
    const char* restart;
  };
  const Case cases[] = {
      {"none", {"C1", "restart", "C2"}, true, "started again empty"},
      {"always", {"C1", "restart", "C2"}, false, "started again from its append-only file"},
      // Synced at each tick: C1's lock is lost if the restart comes first.
      {"everysec", {"C1", "restart", "C2"}, true, "started again from its last snapshot"},
      {"everysec", {"C1", "tick", "restart", "C2"}, false, "started again from its last snapshot"},
  };
  int n = 0;
  for (const Case& c : cases) {
    INFO(c.persistence << " " << json(c.schedule).dump());
    json scenario = json::parse(testing::ReadText(testing::ScenarioPath("restart-none.json")));
    scenario["server"]["persistence"] = c.persistence;
    scenario["schedule"] = c.schedule;
    const Replayed r = ReplayExactly(tmp.Write(std::to_string(++n) + ".json", scenario.dump()));
    CheckExact(r, c.violation ? 1 : 0);
    CHECK(Has(r.out, std::string("applied: killed (SIGKILL), ") + c.restart));
  }
}

TEST_CASE("replay --redis-server leaves no server and no folder behind", "[exact]") {
  testing::TempDir tmp;
  const std::string trace = tmp.File("race.json");
  RunLockstep({"replay", testing::ScenarioPath("redlock-restart.json"), "--trace-out", trace});
  // Its servers' folders go under TMPDIR.
  testing::TempDir scratch;
  const char* saved = std::getenv("TMPDIR");
  const std::string before = saved ? saved : "";
  setenv("TMPDIR", scratch.path().c_str(), 1);
  auto r = RunLockstep({"replay", trace, "--redis-server"});
  if (saved) {
    setenv("TMPDIR", before.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(fs::is_empty(scratch.path()));
  // The servers were on the ports it printed; none answers now.
  const std::string marker = "127.0.0.1:";
  size_t ports = 0;
  for (size_t at = r.out.find(marker); at != std::string::npos; at = r.out.find(marker, at + 1)) {
    const int port = std::stoi(r.out.substr(at + marker.size()));
    std::string error;
    CHECK(replay::RedisConnection::Connect("127.0.0.1", port, 200, &error) == nullptr);
    ++ports;
  }
  CHECK(ports == 3);
}

TEST_CASE("replay --redis-server refuses a clock shim that does not set the server's clock",
          "[exact]") {
  testing::TempDir tmp;
  const std::string trace = tmp.File("race.json");
  RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", trace});
  // A library that loads but answers no clock: the server would run on the
  // machine's clock, and the replay would not be exact.
  const char* saved = std::getenv("LOCKSTEP_CLOCK_SHIM");
  const std::string before = saved ? saved : "";
  setenv("LOCKSTEP_CLOCK_SHIM", "/lib/x86_64-linux-gnu/libm.so.6", 1);
  auto r = RunLockstep({"replay", trace, "--redis-server"});
  if (saved) {
    setenv("LOCKSTEP_CLOCK_SHIM", before.c_str(), 1);
  } else {
    unsetenv("LOCKSTEP_CLOCK_SHIM");
  }
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "its clock is not the one lockstep sets: TIME answered "));
  CHECK(Has(r.err, "expected 0 0 (is /lib/x86_64-linux-gnu/libm.so.6 lockstep's"));
}

TEST_CASE("the clock shim refuses a clock file too short to read, rather than fault", "[exact]") {
  testing::TempDir tmp;
  const std::string empty = tmp.Write("clock", "");
  const std::string command = "LD_PRELOAD=" + std::string(LOCKSTEP_CLOCK_SHIM_PATH) +
                              " LOCKSTEP_CLOCK_FILE=" + empty + " " + replay::FindRedisServer() +
                              " --port 0 --save '' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[256];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  INFO(out);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 70);
  CHECK(Has(out, "liblockstep_clock: LOCKSTEP_CLOCK_FILE holds fewer than 8 bytes"));
}

TEST_CASE("a redis-server that never answers is waited for once, and a stop signal ends the wait",
          "[exact]") {
  testing::TempDir tmp;
  const std::string trace = tmp.File("race.json");
  RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", trace});
  // A "server" that starts, notes it, and never listens.
  const std::string starts = tmp.File("starts");
  const std::string fake =
      tmp.Write("fake-redis", "#!/bin/sh\necho started >> " + starts + "\nexec sleep 60\n");
  fs::permissions(fake, fs::perms::owner_all);
  auto r = RunLockstep({"replay", trace, "--redis-server", fake});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "it did not answer PING within 10 s"));
  CHECK(testing::ReadText(starts) == "started\n");  // no second and third try
  // Stopped while it waits: the signal is named, not the server.
  fs::remove(starts);
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string bin = LOCKSTEP_BINARY;
    const std::string err = tmp.File("err");
    if (!freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(127);
    execl(bin.c_str(), bin.c_str(), "replay", trace.c_str(), "--redis-server", fake.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  REQUIRE(pid > 0);
  for (int i = 0; i < 600 && !fs::exists(starts); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(fs::exists(starts));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(testing::ReadText(tmp.File("err")) == "lockstep: replay stopped by SIGTERM\n");
}

TEST_CASE("replay --redis-server names a missing program", "[exact]") {
  testing::TempDir tmp;
  const std::string trace = tmp.File("race.json");
  RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", trace});
  auto r = RunLockstep({"replay", trace, "--redis-server", tmp.File("no-such-redis")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "no-such-redis"));
}

}  // namespace
}  // namespace lockstep
