// A distributed search under mpirun reports exactly what one process
// reports: mpirun ends the job at the first rank that exits non-zero, so
// the ranks agree on the outcome, and rank 0 says it, before any exits; a
// stop reaches every rank and keeps the exit code.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

#ifdef LOCKSTEP_MPIEXEC
namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using testing::Has;

TEST_CASE("under mpirun a refusal and a client's error reach stderr, with one process's code",
          "[mpi]") {
  testing::TempDir tmp;
  // Refused by every rank alike before the search.
  auto refused = testing::RunOnRanks(
      2, {"explore", testing::ScenarioPath("setnx-expire-orphan.json"), "--distributed"});
  INFO(refused.err);
  CHECK(refused.exit_code == 2);
  CHECK(Has(refused.err, "no_orphaned_lock is a liveness property"));
  // Thrown by the algorithm of a state deep in the search: one rank meets
  // it. A rule broken (leaving a critical section never entered) is an
  // error every rank reports; any other error is a finding, a violation
  // of client_error that rank 0 reports.
  for (const bool rule : {true, false}) {
    INFO((rule ? "rule broken" : "finding"));
    const std::string late = rule ? "lock.leave()" : "error('the sixth INCR was too many')";
    const json scenario = {
        {"name", "late-error"},
        {"clients",
         {{{"name", "C1"},
           {"algorithm",
            {{"lua_inline", "for i = 1, 6 do redis.call('INCR', 'n') end\n" + late + "\n"}}}},
          {{"name", "C2"}, {"algorithm", {{"lua_inline", "redis.call('INCR', 'n')\n"}}}}}},
        {"lock", {{"key", "lock.foo"}}},
        {"clock", {{"horizon", 3}}},
        {"expect", rule ? "safe" : "violation:client_error"}};
    const std::string file = tmp.Write("late.json", scenario.dump());
    const auto alone = testing::RunLockstep(
        {"explore", file, "--strategy", "distributed", "--out", tmp.File("alone")});
    auto ranked =
        testing::RunOnRanks(2, {"explore", file, "--distributed", "--out", tmp.File("ranked")});
    INFO(ranked.out << ranked.err);
    const std::string says =
        rule ? "lua_inline:2: leaves the critical section without having entered it"
             : "lua_inline:2: the sixth INCR was too many";
    CHECK(alone.exit_code == (rule ? 2 : 1));
    CHECK(ranked.exit_code == (rule ? 2 : 1));
    CHECK(Has(rule ? alone.err : alone.out, says));
    CHECK(Has(rule ? ranked.err : ranked.out, says));
  }
}

TEST_CASE("mpirun -np 2 and -np 4 --oversubscribe count the states one process counts", "[mpi]") {
  testing::TempDir tmp;
  const std::string file = testing::ScenarioPath("getset-bounded.json");
  auto one = testing::RunLockstep({"explore", file, "--json", "--out", tmp.File("one")});
  REQUIRE(one.exit_code == 0);
  const json a = json::parse(one.out);
  for (int ranks : {2, 4}) {
    auto many = testing::RunOnRanks(
        ranks, {"explore", file, "--distributed", "--json", "--out", tmp.File("many")},
        /*prompt_exit=*/true);
    INFO(ranks << " ranks: " << many.err);
    REQUIRE(many.exit_code == 0);
    const json b = json::parse(many.out);
    CHECK(b["distributed"]["ranks"] == ranks);
    CHECK(b["verdict"] == a["verdict"]);
    CHECK(b["states"] == a["states"]);
  }
}

// The pids of lockstep's ranks that `mpirun` started.
std::vector<pid_t> RanksOf(pid_t mpirun) {
  std::vector<pid_t> ranks;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // ReadText gives "" for a process that ends while it is read.
    const std::string text = testing::ReadText(e.path() / "stat");
    const size_t close = text.rfind(')');
    if (close == std::string::npos || text.find("(lockstep)") == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == mpirun) ranks.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return ranks;
}

TEST_CASE("SIGUSR1 to mpirun stops every rank, which report the counts so far and exit 3",
          "[mpi]") {
  testing::TempDir tmp;
  const pid_t mpirun = testing::SpawnProgram(
      testing::MpirunArgv(2, {"explore", testing::ScenarioPath("getset-bounded.json"),
                              "--distributed", "--horizon", "60", "--no-symmetry"}),
      tmp.File("out"), tmp.File("err"));
  REQUIRE(mpirun > 0);
  // Both ranks running, and half a second of CPU into the search: the signal
  // lands mid-search however slowly they started.
  const long half_second = sysconf(_SC_CLK_TCK) / 2;
  bool searching = false;
  for (int i = 0; i < 1200 && !searching; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::vector<pid_t> ranks = RanksOf(mpirun);
    searching = ranks.size() == 2 && testing::CpuTicks(ranks[0]) >= half_second &&
                testing::CpuTicks(ranks[1]) >= half_second;
  }
  if (!searching) kill(mpirun, SIGKILL);
  REQUIRE(searching);
  REQUIRE(kill(mpirun, SIGUSR1) == 0);
  CHECK(testing::Wait(mpirun) == 3);
  const std::string out = testing::ReadText(tmp.File("out"));
  const std::string err = testing::ReadText(tmp.File("err"));
  INFO(out << err);
  CHECK(Has(out, "\nINCOMPLETE: interrupted; no violation found so far\n"));
  CHECK(Has(err, "lockstep: search stopped by SIGUSR1\n"));
}

TEST_CASE("under mpirun the memory bound is named as such, whichever rank reached it", "[mpi]") {
  // A space without end (eight clients, a thousand rounds): a bounded one
  // may fit, as getset-bounded at horizon 60 does in 70 MB.
  testing::TempDir tmp;
  auto r = testing::RunOnRanks(2, {"explore", testing::WriteEndlessRun(tmp), "--distributed",
                                   "--no-symmetry", "--max-memory", "64M"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK(Has(r.out, "INCOMPLETE: stopped at the memory bound (--max-memory 64 MiB)"));
  CHECK(Has(r.err, "lockstep: search stopped by the memory bound (--max-memory 64 MiB)"));
}

}  // namespace
}  // namespace lockstep
#endif
