// The differential soundness harness (harness.h) in the suite: a seeded
// set of random scenarios, and every saved regression scenario.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <catch2/catch.hpp>

#include "sim/scenario/scenario.h"
#include "tests/soundness/harness.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

// About 12 s in Release; sanitized builds (5-8x slower) run a sixth.
// LOCKSTEP_SOUNDNESS_SCENARIOS overrides the count.
int ScenarioCount() {
  if (const char* n = std::getenv("LOCKSTEP_SOUNDNESS_SCENARIOS")) return std::atoi(n);
#ifdef LOCKSTEP_SANITIZED
  return 5;
#else
  return 30;
#endif
}

// Sanitized, lockstep's own processes are as slow as the rest, and a
// Python start costs more than a search: the Release run starts them.
soundness::Limits SuiteLimits() {
  soundness::Limits limits;
#ifdef LOCKSTEP_SANITIZED
  limits.processes = false;
#endif
  return limits;
}

std::string Described(const json& doc, const soundness::Comparison& c) {
  std::string text = doc.dump() + "\nplain enumeration: " + c.plain_verdict;
  for (const auto& d : c.disagreements) text += "\n" + d.Text();
  return text;
}

TEST_CASE("every reduction agrees with plain enumeration on seeded random scenarios",
          "[soundness][scaled]") {
  const int count = ScenarioCount();
  int compared = 0, all_time = 0, lua = 0;
  std::map<std::string, int> covered;
  for (int seed = 1; seed <= count; ++seed) {
    const json doc = soundness::RandomScenario(static_cast<uint64_t>(seed));
    const soundness::Comparison c = soundness::Compare(doc, SuiteLimits());
    INFO("seed " << seed << ": " << Described(doc, c));
    CHECK(c.disagreements.empty());
    compared += c.finished;
    all_time += c.all_time_compared;
    lua += c.finished && soundness::RunsLua(doc);
    if (c.finished) {
      for (const std::string& f : soundness::Covered(doc, c)) ++covered[f];
    }
  }
  // The generator's scenarios must mostly load and be small enough to
  // enumerate, or this test compares nothing; some have no horizon, some
  // run the Lua ports.
  CHECK(compared * 2 >= count);
  CHECK(all_time * 10 >= count);
  // (The cut-down run under the sanitizers, 5 seeds, draws no port.)
  if (count >= 30) CHECK(lua * 10 >= count);
  // The layers around the searches are compared on most scenarios.
  if (count >= 30) {
    for (const char* check :
         {"run::Explore", "vacuity", "sampling", "preemption bounds", "bitstate", "schedules"}) {
      INFO(check);
      CHECK(covered[check] > 0);
    }
  }
  std::cout << count << " seeds: " << compared << " compared, " << all_time << " for all time, "
            << lua << " with Lua ports\n";
}

// Release only: the seeded test above runs the same code under the
// sanitizers. The random scenarios draw several servers and replicas
// without a horizon only now and then; these are the shipped ones, for
// all time, every time.
TEST_CASE(
    "Redlock's masters, a replica's failover and restarts agree with plain enumeration "
    "and with the bounded searches for all time",
    "[soundness][sweep]") {
  struct Case {
    const char* file;
    size_t clients;
  };
  // Redlock on three masters with one client: two do not end for all time
  // yet (the Redlock client's state grows with the clock).
  for (const Case& c : {Case{"redlock-safe.json", 1}, Case{"replica-failover.json", 2},
                        Case{"restart-none.json", 2}, Case{"restart-always.json", 2}}) {
    std::ifstream in(testing::ScenarioPath(c.file));
    json doc = json::parse(in);
    doc["clients"].erase(doc["clients"].begin() + static_cast<long>(c.clients),
                         doc["clients"].end());
    doc["clock"]["horizon"] = nullptr;
    doc.erase("schedule");
    doc.erase("expect");
    doc["max_steps"] = 10;  // plain enumeration's bound; the all-time search has none
    const soundness::Comparison r = soundness::Compare(doc, SuiteLimits());
    INFO(c.file << ": " << Described(doc, r));
    REQUIRE(r.finished);
    CHECK(r.all_time_compared);
    CHECK(r.disagreements.empty());
  }
}

// Release only: under the sanitizers liveness_test.cc runs the same code.
TEST_CASE("fair cycles agree with an independent liveness oracle on seeded random scenarios",
          "[soundness][sweep]") {
  // The seeded scenarios with liveness properties, in order, until this
  // many are judged by both within their state budget.
  const int wanted = 30;
  int judged = 0, violations = 0, seed = 0;
  while (judged < wanted && seed < 5'000) {
    const json doc = soundness::RandomScenario(static_cast<uint64_t>(++seed));
    scenario::Scenario s;
    try {
      s = scenario::LoadScenario(doc, "random");
    } catch (const scenario::ScenarioError&) {
      continue;
    }
    bool compared = false;
    std::string verdict;
    const std::optional<soundness::Disagreement> d =
        soundness::CompareLiveness(s, &compared, &verdict);
    INFO("seed " << seed << ": " << doc.dump());
    CHECK_FALSE(d);
    if (d) UNSCOPED_INFO(d->Text());
    judged += compared;
    violations += compared && verdict != "safe";
  }
  std::cout << judged << " judged (" << violations << " violations) of the first " << seed
            << " seeds\n";
  REQUIRE(judged == wanted);
  // Both verdicts are met.
  CHECK(violations > 0);
  CHECK(violations < judged);
}

TEST_CASE(
    "every saved soundness regression scenario gives plain enumeration's verdict in every mode",
    "[soundness]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::SourceDir() + "/tests/soundness/regressions")) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  for (const auto& file : files) {
    const json doc = json::parse(std::ifstream(file));
    const soundness::Comparison c = soundness::Compare(doc, [] {
      soundness::Limits limits = SuiteLimits();
      limits.max_transitions = 20'000'000;
      return limits;
    }());
    INFO(file.filename().string() << ": " << Described(doc, c));
    REQUIRE(c.loaded);
    REQUIRE(c.finished);
    // The expectation was plain enumeration's verdict when the file was saved.
    const std::string expect = doc["expect"];
    if (expect == "safe") {
      CHECK(!c.plain_verdict.starts_with("violation:"));
    } else {
      CHECK(c.plain_verdict == expect);
    }
    CHECK(c.disagreements.empty());
  }
}

}  // namespace
}  // namespace lockstep
