// Node lock libraries, unmodified, under the search (examples/real-clients/,
// installed from npm by .ci/install-deps): redis-semaphore's Mutex on
// ioredis, whose holder stalled past its lease sees another acquire, found,
// saved, replayed byte for byte, drawn, and replayed on a real
// redis-server. Release only: the search starts Node some twenty times.
#include <filesystem>

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

std::string NodeExample(const std::string& name) {
  return testing::SourceDir() + "/examples/real-clients/" + name;
}

TEST_CASE("redis-semaphore's Mutex: a stalled holder's lease runs out while another acquires",
          "[process][sweep]") {
  INFO("the npm packages: bash .ci/install-deps (npm ci in examples/real-clients)");
  REQUIRE(std::filesystem::exists(NodeExample("node_modules/redis-semaphore/package.json")));
  TempDir dir;
  const auto found =
      RunLockstep({"explore", "--allow-programs", NodeExample("redis-semaphore-stall.json"),
                   "--strategy", "bfs", "--out", dir.File("")});
  INFO(found.err);
  CHECK(found.exit_code == 1);
  CHECK(Has(found.out,
            "VIOLATION of mutual_exclusion at step 5: C1 and C2 are in the critical "
            "section at once"));
  CHECK(Has(found.out, "STALLS (clock passes its bound)"));
  CHECK(Has(found.out, "set mutex:lock.foo "));
  const std::string trace = dir.File("redis-semaphore-stall-mutual_exclusion-2clients.json");
  const auto replay = RunLockstep({"replay", "--allow-programs", trace});
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "replay reproduces the trace byte for byte"));
  const auto svg = RunLockstep({"render", trace, "--svg", dir.File("race.svg")});
  CHECK(svg.exit_code == 0);
  CHECK(Has(testing::ReadText(dir.File("race.svg")), "mutex:lock.foo"));
  const auto real = RunLockstep({"replay", "--allow-programs", trace, "--redis-server"});
  CHECK(real.exit_code == 1);
  CHECK(Has(real.out, "mutual_exclusion reproduced on the real server at step 5"));
}

}  // namespace
}  // namespace lockstep
