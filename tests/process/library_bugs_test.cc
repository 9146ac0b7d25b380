// The lock libraries' own bugs, in the versions that shipped them, beside
// the versions that fixed them (examples/libraries/, installed from npm by
// .ci/install-deps): each finding is a shortest counterexample, saved,
// replayed byte for byte, drawn and reproduced on a real redis-server; each
// fixed version is clean under the same bounds. Release only: a search
// starts Node some fifty times.
#include <filesystem>

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

std::string Library(const std::string& name) {
  return testing::SourceDir() + "/examples/libraries/" + name;
}

// What every finding must do, besides what its case checks of the search:
// its counterexample, saved as `trace_name`, replays byte for byte, draws
// with `key` as a keyspace column, and reproduces on real redis-servers
// (one per instance, `servers` of them) at `step`.
void CheckFinding(const TempDir& dir, const std::string& trace_name, const std::string& key,
                  const std::string& property, int step, int servers = 1) {
  const std::string trace = dir.File(trace_name);
  const auto replay = RunLockstep({"replay", "--allow-programs", trace});
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "replay reproduces the trace byte for byte"));
  const auto svg = RunLockstep({"render", trace, "--svg", dir.File("finding.svg")});
  CHECK(svg.exit_code == 0);
  CHECK(Has(testing::ReadText(dir.File("finding.svg")), ">" + key + "<"));
  const auto real = RunLockstep({"replay", "--allow-programs", trace, "--redis-server"});
  INFO(real.out << real.err);
  CHECK(real.exit_code == 1);
  CHECK(Has(real.out, property + " reproduced on the real server" + (servers > 1 ? "s" : "") +
                          " at step " + std::to_string(step) + ":"));
}

// A finding's search: breadth first over `scenario` (under
// examples/libraries/), a violation whose counterexample, `steps` long and
// shortest, is saved in `dir`.
testing::ProcessResult FindShortest(const TempDir& dir, const std::string& scenario, int steps) {
  auto found = RunLockstep({"explore", "--allow-programs", Library(scenario), "--strategy", "bfs",
                            "--out", dir.File("")});
  INFO(found.out << found.err);
  CHECK(found.exit_code == 1);
  CHECK(Has(found.out, "counterexample: " + std::to_string(steps) +
                           " steps (shortest, by breadth-first search"));
  return found;
}

// A reference version's search: `scenario` (under examples/libraries/)
// is SAFE for `properties` within horizon 4, and each client enters. Depth
// first, the default: a clean search visits every state in any order, and
// one run after another starts the programs again less often (0.58 times
// breadth first's CPU time on refresh-5.3.1.json).
void CheckClean(const std::string& scenario, const std::string& properties) {
  const auto clean = RunLockstep({"explore", "--allow-programs", Library(scenario)});
  INFO(clean.out << clean.err);
  CHECK(clean.exit_code == 0);
  CHECK(Has(clean.out, "SAFE: no violation of " + properties +
                           " in any schedule within these bounds (horizon 4)"));
  CHECK(Has(clean.out, "entered: C1 and C2 each enter the critical section in some schedule"));
}

// redis-semaphore issue 175: 5.3.0's refresh script, finding its key gone,
// sets it again and answers 1. C1 stalls past its lease, C2 acquires,
// leaves and releases, and C1's late refresh re-creates the key: the Mutex
// takes it for a renewal, so onLockLost is never called.
TEST_CASE("redis-semaphore 5.3.0's refresh re-creates a key it lost and tells its holder nothing",
          "[process][sweep]") {
  INFO("the npm packages: bash .ci/install-deps (npm ci in examples/libraries/redis-semaphore)");
  REQUIRE(std::filesystem::exists(
      Library("redis-semaphore/node_modules/redis-semaphore-5.3.0/package.json")));
  TempDir dir;
  const auto found = FindShortest(dir, "redis-semaphore/refresh-5.3.0.json", 9);
  INFO(found.out << found.err);
  CHECK(Has(found.out,
            "VIOLATION of lost_lease_renewed at step 9: C1's lease was renewed after C2 had "
            "acquired the lock: it lost the lock and was not told"));
  CHECK(Has(found.out, "STALLS (clock passes its bound)"));
  // The key the Mutex holds (its "mutex:" prefix) has the keyspace column.
  CheckFinding(dir, "redis-semaphore-5-3-0-refresh-lost_lease_renewed-2clients.json",
               "mutex:lock.foo", "lost_lease_renewed", 9);
}

// 5.3.1 dropped that branch: the refresh answers 0 for a key that is gone,
// and the Mutex calls onLockLost. The same bounds, every schedule.
TEST_CASE("redis-semaphore 5.3.1's refresh never renews a lease another client took",
          "[process][sweep]") {
  REQUIRE(std::filesystem::exists(
      Library("redis-semaphore/node_modules/redis-semaphore-5.3.1/package.json")));
  CheckClean("redis-semaphore/refresh-5.3.1.json", "lost_lease_renewed, client_error");
}

// redis-semaphore 5.8.0's Semaphore keeps its holders in a sorted set
// scored by each client's own clock, and its acquire script removes the
// entries scored at or before the caller's clock less lockTimeout. A
// client whose clock runs 2 ahead (less than lockTimeout 5, as the README
// asks) removes a live holder's entry at clock 3, before the holder's
// refresh (0.8 of lockTimeout) would learn of it: two holders, no stall.
// The sorted set, its scores and the two holders reach the real server.
TEST_CASE("redis-semaphore 5.8.0's Semaphore lets a client whose clock runs ahead evict a holder",
          "[process][sweep]") {
  REQUIRE(std::filesystem::exists(
      Library("redis-semaphore/node_modules/redis-semaphore-5.8.0/package.json")));
  TempDir dir;
  const auto found = FindShortest(dir, "redis-semaphore/semaphore-skew-5.8.0.json", 6);
  INFO(found.out << found.err);
  CHECK(Has(found.out,
            "VIOLATION of mutual_exclusion at step 6: C1 and C2 are in the critical section at "
            "once"));
  // C1's entry, scored 0 by its clock, is gone once C2's clock reads 5.
  CHECK(Has(found.out, "semaphore:lock.foo={54177089-9f90-4fe1-a8d6-5229530047f2:0} until 5"));
  CHECK(Has(found.out, "semaphore:lock.foo={21e81625-b379-4796-acba-c605380ee72c:5} until 8"));
  CheckFinding(dir, "redis-semaphore-5-8-0-semaphore-skew-mutual_exclusion-2clients.json",
               "semaphore:lock.foo", "mutual_exclusion", 6);
}

// The reference: the Mutex of the same version, whose lease the server
// ends (SET NX PX), under the same bounds and skew, every schedule.
TEST_CASE("redis-semaphore 5.8.0's Mutex keeps one holder whatever the clients' clocks",
          "[process][sweep]") {
  CheckClean("redis-semaphore/mutex-skew-5.8.0.json", "mutual_exclusion, client_error");
}

// node-redlock 5.0.0-beta.2 and its fork @sesamecare-oss/redlock 1.4.0
// return a Lock without checking that its expiration (the attempt's start +
// ttl - drift) is still ahead (node-redlock #296, #299, PR #369). C1's
// script reaches A and B at clock 0 and C only at 4, when its keys on A and
// B have expired: it counts a majority and enters with a lock valid until
// 1, holding C alone, while C2, starting at 4, takes A and B and enters.
// The three real servers show the same.
TEST_CASE("node-redlock 5.0.0-beta.2 and its fork return a lock that has expired",
          "[process][sweep]") {
  INFO("the npm packages: bash .ci/install-deps (npm ci in examples/libraries/node-redlock)");
  const auto [version, trace] = GENERATE(table<std::string, std::string>(
      {{"5.0.0-beta.2", "redlock-5-0-0-beta-2-slow-acquire-mutual_exclusion-2clients.json"},
       {"sesamecare-1.4.0",
        "redlock-sesamecare-1-4-0-slow-acquire-mutual_exclusion-2clients.json"}}));
  INFO(version);
  TempDir dir;
  const auto found = FindShortest(dir, "node-redlock/slow-acquire-" + version + ".json", 10);
  INFO(found.out << found.err);
  CHECK(Has(found.out,
            "VIOLATION of mutual_exclusion at step 10: C1 and C2 are in the critical section at "
            "once"));
  CheckFinding(dir, trace, "lock.foo", "mutual_exclusion", 10, 3);
}

// 4.2.0 returns a lock only while its expiration is ahead of the clock,
// and otherwise unlocks every instance: the same bounds, every schedule.
TEST_CASE("node-redlock 4.2.0 never returns a lock that has expired", "[process][sweep]") {
  REQUIRE(std::filesystem::exists(Library("node-redlock/node_modules/redlock-4.2.0/package.json")));
  CheckClean("node-redlock/slow-acquire-4.2.0.json", "mutual_exclusion, client_error");
}

}  // namespace
}  // namespace lockstep
