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
  const auto found =
      RunLockstep({"explore", "--allow-programs", Library("redis-semaphore/refresh-5.3.0.json"),
                   "--strategy", "bfs", "--out", dir.File("")});
  INFO(found.out << found.err);
  CHECK(found.exit_code == 1);
  CHECK(Has(found.out,
            "VIOLATION of lost_lease_renewed at step 9: C1's lease was renewed after C2 had "
            "acquired the lock: it lost the lock and was not told"));
  CHECK(Has(found.out, "counterexample: 9 steps (shortest, by breadth-first search"));
  CHECK(Has(found.out, "STALLS (clock passes its bound)"));
  const std::string trace =
      dir.File("redis-semaphore-5-3-0-refresh-lost_lease_renewed-2clients.json");
  const auto replay = RunLockstep({"replay", "--allow-programs", trace});
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "replay reproduces the trace byte for byte"));
  const auto svg = RunLockstep({"render", trace, "--svg", dir.File("refresh.svg")});
  CHECK(svg.exit_code == 0);
  // The key the Mutex holds (its "mutex:" prefix) has the keyspace column.
  CHECK(Has(testing::ReadText(dir.File("refresh.svg")), ">mutex:lock.foo<"));
  const auto real = RunLockstep({"replay", "--allow-programs", trace, "--redis-server"});
  CHECK(real.exit_code == 1);
  CHECK(Has(real.out, "lost_lease_renewed reproduced on the real server at step 9"));
}

// 5.3.1 dropped that branch: the refresh answers 0 for a key that is gone,
// and the Mutex calls onLockLost. The same bounds, every schedule.
TEST_CASE("redis-semaphore 5.3.1's refresh never renews a lease another client took",
          "[process][sweep]") {
  REQUIRE(std::filesystem::exists(
      Library("redis-semaphore/node_modules/redis-semaphore-5.3.1/package.json")));
  const auto clean =
      RunLockstep({"explore", "--allow-programs", Library("redis-semaphore/refresh-5.3.1.json"),
                   "--strategy", "bfs"});
  INFO(clean.out << clean.err);
  CHECK(clean.exit_code == 0);
  CHECK(Has(clean.out,
            "SAFE: no violation of lost_lease_renewed, client_error in any schedule within these "
            "bounds (horizon 4)"));
  CHECK(Has(clean.out, "entered: C1 and C2 each enter the critical section in some schedule"));
}

}  // namespace
}  // namespace lockstep
