// Whatever trace lockstep writes, `lockstep replay` reproduces byte for
// byte: every `run` (several seeds, ended by the scenario's step bound, a
// small --max-steps, or nothing left to do) and every counterexample
// `explore` saves, over every shipped scenario.
#include <filesystem>

#include <catch2/catch.hpp>

#include "sim/run/runner.h"
#include "sim/trace/json_reader.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::RunLockstep;
using testing::TempDir;

TEST_CASE("every run's trace, under every step bound, replays byte for byte", "[replay][sweep]") {
  int bounded = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    const scenario::Scenario s = scenario::LoadScenarioFile(file);
    for (uint64_t seed : {1, 2, 3}) {
      for (int max_steps : {s.max_steps, 1, 5, 12}) {
        INFO(file << " --seed " << seed << " --max-steps " << max_steps);
        scenario::Scenario run = s;
        run.world.seed = seed;
        const trace::Trace t = run::RunSeeded(run, seed, max_steps);
        bounded += t.end == "step bound reached";
        const std::string text = trace::ToJsonText(t);
        CHECK(trace::ToJsonText(run::ReplaySavedTrace(file, lockstep::json::Parse(text)).trace) ==
              text);
      }
    }
  }
  CHECK(bounded > 0);  // the bounds did end runs
}

TEST_CASE("run --max-steps writes a trace that replay reproduces", "[replay]") {
  TempDir tmp;
  for (const char* bound : {"5", "10000"}) {
    INFO("--max-steps " << bound);
    const std::string trace = tmp.File("t.json");
    auto r = RunLockstep({"run", testing::ScenarioPath("setnx-naive.json"), "--seed", "1",
                          "--max-steps", bound, "--trace-out", trace});
    REQUIRE(r.exit_code <= 1);
    r = RunLockstep({"replay", trace});
    CHECK(r.err.empty());
    CHECK(r.exit_code <= 1);
    CHECK(r.out.find("replay reproduces the trace byte for byte") != std::string::npos);
  }
}

TEST_CASE("every counterexample explore saves replays byte for byte", "[replay][scaled]") {
  // Under the sanitizers, the half of the scenarios every long sweep runs:
  // the same commands; Release runs every scenario.
  TempDir tmp;
  int saved = 0;
  for (const std::string& file : testing::ScenarioSweep()) {
    INFO(file);
    if (scenario::LoadScenarioFile(file).expect.safe) continue;  // nothing to save
    const std::string out = tmp.File(std::filesystem::path(file).stem().string());
    auto r = RunLockstep({"explore", file, "--strategy", "random", "--executions", "200", "--seed",
                          "1", "--max-steps", "60", "--out", out, "--json"});
    REQUIRE(r.exit_code <= 3);
    if (r.exit_code != 1) continue;
    for (const auto& e : std::filesystem::directory_iterator(out)) {
      ++saved;
      auto again = RunLockstep({"replay", e.path().string()});
      CHECK(again.exit_code == 1);
      CHECK(again.out.find("replay reproduces the trace byte for byte") != std::string::npos);
    }
  }
  CHECK(saved > 0);
}

}  // namespace
}  // namespace lockstep
