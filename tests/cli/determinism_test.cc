// Determinism is the product: the same scenario and seed give the same
// trace, byte for byte, every time.
#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

TEST_CASE("two lockstep processes give byte-identical traces for the same scenario and seed",
          "[scaled]") {
  // Separate processes: nothing shared in memory (an address, a static, the
  // learned automata) can make the two runs agree by accident. Under the
  // sanitizers, the half of the scenarios every long sweep runs: the same
  // commands, and Release runs every scenario.
  testing::TempDir dir;
  int runs = 0;
  for (const std::string& file : testing::ScenarioSweep()) {
    INFO(file);
    const std::string seed = std::to_string(runs * 7919 % 1000);
    std::string trace[2], out[2];
    const std::string path = dir.File("trace.json");
    for (int i = 0; i < 2; ++i) {
      std::filesystem::remove(path);
      testing::ProcessResult r = testing::RunLockstep(
          {"run", file, "--seed", seed, "--max-steps", "200", "--trace-out", path});
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));
      trace[i] = testing::ReadText(path);
      out[i] = r.out;
    }
    REQUIRE(!trace[0].empty());
    CHECK(trace[0] == trace[1]);
    CHECK(out[0] == out[1]);
    ++runs;
  }
  CHECK(runs >= (testing::kAddressSanitizer ? 15 : 30));
}

TEST_CASE("every shipped Lua example gives byte-identical traces in two processes") {
  // The examples are algorithms in Lua: nothing of the interpreter's (an
  // address, its memory) may reach a trace. Each runs in the documented
  // race's scenario, seeded and searched.
  testing::TempDir dir;
  int examples = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::SourceDir() + "/examples/lua")) {
    if (e.path().extension() != ".lua") continue;
    INFO(e.path().string());
    const std::string lua = dir.Write(e.path().filename().string(), testing::ReadText(e.path()));
    nlohmann::json doc =
        nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
    for (auto& c : doc["clients"]) {
      if (c.contains("algorithm")) c["algorithm"] = {{"lua", lua}};
    }
    doc.erase("schedule");
    const std::string scenario = dir.Write("example.json", doc.dump());
    std::string traces[2][2];
    for (int i = 0; i < 2; ++i) {
      const std::string seeded = dir.File("seeded" + std::to_string(i) + ".json");
      testing::ProcessResult r =
          testing::RunLockstep({"run", scenario, "--seed", "11", "--trace-out", seeded});
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));
      traces[i][0] = testing::ReadText(seeded);
      const std::string found = dir.File("found" + std::to_string(i));
      r = testing::RunLockstep({"explore", scenario, "--json", "--out", found});
      // 5: vacuous (a SET NX lock never gets C3's crashed lock, which has no TTL).
      REQUIRE((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 5));
      // The report but its times and the process's peak size; a safe search saves no trace.
      nlohmann::json report = nlohmann::json::parse(r.out);
      report.erase("elapsed_s");
      report["memory"].erase("peak_resident_bytes");
      if (report.contains("counterexample")) {
        for (const char* name : {"file", "replay"}) report["counterexample"].erase(name);
      }
      traces[i][1] = report.dump();
      if (std::filesystem::exists(found)) {
        for (const auto& f : std::filesystem::directory_iterator(found)) {
          traces[i][1] += testing::ReadText(f.path());
        }
      }
    }
    CHECK(traces[0][0] == traces[1][0]);
    CHECK(traces[0][1] == traces[1][1]);
    ++examples;
  }
  CHECK(examples >= 4);
}

TEST_CASE(
    "the same seed gives a byte-identical trace within one process, over many seeds and every "
    "scenario",
    "[sweep]") {
  int violations = 0, runs = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    // Under the sanitizers a third of the seeds (test_util.h).
    const uint64_t seeds = testing::kAddressSanitizer ? 100 : 300;
    for (uint64_t seed = 0; seed < seeds; ++seed) {
      std::string a = trace::ToJsonText(run::RunSeeded(s, seed, 200));
      std::string b = trace::ToJsonText(run::RunSeeded(s, seed, 200));
      REQUIRE(a == b);
      ++runs;
      if (a.find("\"violation\": {") != std::string::npos) ++violations;
    }
  }
  CHECK(runs >= 600);
  CHECK(violations > 0);  // random schedules do find the naive race sometimes
}

TEST_CASE("every scenario with a schedule replays to the outcome it expects") {
  for (const std::string& file : testing::AllScenarioPaths()) {
    INFO(file);
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    if (!s.has_schedule) continue;
    trace::Trace t = run::ReplaySchedule(s);
    if (s.expect.safe) {
      CHECK_FALSE(t.violation);
    } else {
      REQUIRE(t.violation);
      CHECK(t.violation->property == s.expect.property);
    }
    // Replaying the recorded schedule again gives the same trace.
    CHECK(trace::ToJsonText(run::ReplaySchedule(s)) == trace::ToJsonText(t));
  }
}

}  // namespace
}  // namespace lockstep
