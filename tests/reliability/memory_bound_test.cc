// --max-memory: a run or a search that would grow without bound stops at
// the bound with exit 3, the counts so far and which bound stopped it; the
// command line accepts no horizon that a scenario file could not hold.
#include "sim/cli/memory_bound.h"

#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;

TEST_CASE("a run that outgrows --max-memory stops with exit 3 and its counts", "[memory]") {
  testing::TempDir tmp;
  std::string file = testing::WriteEndlessRun(tmp);
  std::string out = tmp.File("trace.json");
  auto r = RunLockstep(
      {"run", file, "--seed", "1", "--max-memory", "96M", "--json", "--trace-out", out});
  CHECK(r.exit_code == 3);
  json report = json::parse(r.out);
  CHECK(report["verdict"] == "incomplete");
  CHECK(report["incomplete"] == "stopped at the memory bound (--max-memory 96 MiB)");
  CHECK(report["max_memory"] == 96 << 20);
  CHECK(report["steps_run"].get<uint64_t>() > 0);
  CHECK(r.err.find("lockstep: run stopped at the memory bound (--max-memory 96 MiB) after ") == 0);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a search that outgrows --max-memory stops with exit 3 and its counts", "[memory]") {
  testing::TempDir tmp;
  // Executions that long would end the search at the scenario's max_steps:
  // a step bound as large leaves it to the memory bound.
  auto r = RunLockstep({"explore", testing::ScenarioPath("getset-bounded.json"), "--horizon",
                        "10000000", "--max-steps", "10000000", "--max-memory", "96M", "--json",
                        "--out", tmp.File("ce")});
  CHECK(r.exit_code == 3);
  json report = json::parse(r.out);
  CHECK(report["verdict"] == "incomplete");
  CHECK(report["incomplete"] == "stopped at the memory bound (--max-memory 96 MiB)");
  CHECK(report["states"].get<uint64_t>() > 0);
  CHECK(r.err == "lockstep: search stopped by the memory bound (--max-memory 96 MiB)\n");
}

TEST_CASE("the memory bound takes sizes, and the horizon option has the file's bound", "[memory]") {
  CHECK(cli::ParseSize("512M") == uint64_t{512} << 20);
  CHECK(cli::ParseSize("4G") == uint64_t{4} << 30);
  CHECK(cli::ParseSize("1000") == 1000);
  for (const char* bad : {"", "0", "M", "12Q", "-1", "99999999999999999999", "20000000000T"}) {
    INFO(bad);
    CHECK_THROWS_AS(cli::ParseSize(bad), base::InputError);
  }
  CHECK(cli::DefaultMaxMemory() > 0);
  auto r = RunLockstep(
      {"explore", testing::ScenarioPath("getset-bounded.json"), "--max-memory", "lots"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep: --max-memory: expected a size such as 512M, 4G or a number of bytes, got "
        "\"lots\"\n");
  // The clock starts at 0 there; a file allows a horizon up to start + 10^7.
  r = RunLockstep({"explore", testing::ScenarioPath("getset-bounded.json"), "--horizon",
                   "1000000000000", "--max-steps", "5"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep: --horizon 1000000000000: expected 0 (the clock's start) to 10000000, or none "
        "(all time)\n");
}

}  // namespace
}  // namespace lockstep
