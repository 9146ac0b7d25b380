// redis-py's Lock, unmodified, under the search (examples/real-clients/):
// no violation without faults, and with one stall the lease running out
// under a holder while the other acquires, found, saved, replayed byte for
// byte, drawn, and replayed on a real redis-server. Release only: each
// search starts Python some hundred times.
#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

std::string Example(const std::string& name) {
  return testing::SourceDir() + "/examples/real-clients/" + name;
}

TEST_CASE("redis-py's Lock: a stalled holder's lease runs out while another acquires",
          "[process][sweep]") {
  TempDir dir;
  // Breadth first: the first violation met is a shortest one, with no
  // shrinking after it, which learns the clients again (half the time).
  const auto found = RunLockstep({"explore", "--allow-programs", Example("redis-py-stall.json"),
                                  "--strategy", "bfs", "--out", dir.File("")});
  CHECK(found.exit_code == 1);
  CHECK(Has(found.out,
            "VIOLATION of mutual_exclusion at step 5: C1 and C2 are in the critical "
            "section at once"));
  CHECK(Has(found.out, "STALLS (clock passes its bound)"));
  const std::string trace = dir.File("redis-py-stall-mutual_exclusion-2clients.json");
  const auto replay = RunLockstep({"replay", "--allow-programs", trace});
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "replay reproduces the trace byte for byte"));
  const auto svg = RunLockstep({"render", trace, "--svg", dir.File("race.svg")});
  CHECK(svg.exit_code == 0);
  CHECK(Has(testing::ReadText(dir.File("race.svg")), "SET lock.foo"));
  const auto real = RunLockstep({"replay", "--allow-programs", trace, "--redis-server"});
  CHECK(real.exit_code == 1);
  CHECK(Has(real.out, "mutual_exclusion reproduced on the real server at step 5"));
}

TEST_CASE("redis-py's Lock without faults: no two holders, and each client enters",
          "[process][sweep]") {
  const auto r = RunLockstep({"explore", "--allow-programs", Example("redis-py-safe.json")});
  CHECK(r.exit_code == 0);
  CHECK(Has(r.out, "224 distinct states, 330 transitions"));  // as the README says
  CHECK(Has(r.out, "SAFE: no violation of mutual_exclusion, foreign_release, client_error"));
  CHECK(Has(r.out, "entered: C1 and C2 each enter the critical section in some schedule"));
}

}  // namespace
}  // namespace lockstep
