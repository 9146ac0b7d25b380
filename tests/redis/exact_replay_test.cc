// `lockstep replay --redis-server`: lockstep starts the redis-servers, sets
// their clocks to the trace's instants and applies the trace's faults, so
// every trace replays exactly: every reply equal, every violation again.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/redis_replay.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/trace.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunLockstep;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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
  cli::RedisReplayOptions options;
  options.managed = true;
  const int code = cli::ReplayOnRedis(trace, options);
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
          "[exact]") {
  // Under ASan (several times slower) only the named scenarios, once each.
  const bool all = !testing::kAddressSanitizer;
  const int times = all ? 10 : 1;
  testing::TempDir tmp;
  std::set<std::string> scenarios;
  int replayed = 0, stale_writes = 0;
  for (const std::string& path : testing::AllScenarioPaths()) {
    const std::string name = fs::path(path).stem().string();
    if (!all && !Named(name)) continue;
    const std::string out = tmp.File(name);
    const auto found = RunLockstep({"explore", path, "--out", out});
    if (found.exit_code != 1) continue;  // safe: nothing to replay
    INFO(name);
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

TEST_CASE("216 seeded runs across every shipped scenario replay with every reply equal",
          "[exact]") {
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
    CHECK(cli::RedisConnection::Connect("127.0.0.1", port, 200, &error) == nullptr);
    ++ports;
  }
  CHECK(ports == 3);
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
