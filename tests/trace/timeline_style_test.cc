// The terminal timeline fitted to a width, one line per step, and in
// colour: every line fits, nothing is lost but the tail of long tokens, and
// colour changes nothing but the escapes.
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

size_t Columns(const std::string& line) {
  size_t w = 0;
  for (unsigned char c : line) w += (c & 0xC0) != 0x80;
  return w;
}

std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Uncoloured(const std::string& text) {
  return std::regex_replace(text, std::regex("\033\\[[0-9;]*m"), "");
}

// Five clients' random run, and every shipped scenario's counterexample or
// schedule: the traces a teacher would show.
std::vector<trace::Trace> Traces() {
  std::vector<trace::Trace> traces;
  const scenario::Scenario naive =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-naive.json"));
  REQUIRE(naive.world.clients.size() >= 5);
  for (uint64_t seed : {1, 2, 3}) traces.push_back(run::RunSeeded(naive, seed, 200));
  for (const std::string& file : testing::AllScenarioPaths()) {
    const scenario::Scenario s = scenario::LoadScenarioFile(file);
    if (s.has_schedule) traces.push_back(run::ReplaySchedule(s));
  }
  return traces;
}

TEST_CASE("every line of a timeline fits 80 and 120 columns, as a table or one line per step") {
  for (const trace::Trace& t : Traces()) {
    for (size_t width : {80, 120}) {
      for (bool compact : {false, true}) {
        const std::string text = trace::Timeline(t, {.width = width, .compact = compact});
        for (const std::string& line : LinesOf(text)) {
          INFO(trace::OneLine(t) << "\nwidth " << width << ", line: " << line);
          CHECK(Columns(line) <= width);
        }
        // The outcome is still said, whole.
        CHECK_THAT(Uncoloured(text),
                   Catch::Matchers::Contains(t.violation ? "VIOLATION of " : "no violation ("));
      }
    }
  }
}

TEST_CASE("the timeline says why under each step, in both forms, unless asked not to") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  for (bool compact : {false, true}) {
    INFO("compact " << compact);
    const std::string with = trace::Timeline(t, {.compact = compact});
    const std::string without = trace::Timeline(t, {.compact = compact, .why = false});
    // C2's DEL at step 7 removes C1's fresh lock, believing it the expired one.
    CHECK_THAT(with, Catch::Matchers::Contains("\"7\" < my clock 10: expired; take it over with "
                                               "DEL, then SETNX"));
    CHECK_THAT(with, Catch::Matchers::Contains("deleted the expired lock; now SETNX it"));
    CHECK_THAT(without, !Catch::Matchers::Contains("expired; take it over"));
    // Each reason is on a line of its own, under its step's line.
    const std::vector<std::string> lines = LinesOf(with);
    for (size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].find("deleted the expired lock") != std::string::npos) {
        CHECK_THAT(lines[i - 1], Catch::Matchers::Contains("DEL lock.foo -> 1"));
      }
    }
  }
}

TEST_CASE("one line per step: every step's command and the critical section") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json"));
  const trace::Trace t = run::ReplaySchedule(s);
  const std::vector<std::string> lines =
      LinesOf(trace::Timeline(t, {.compact = true, .why = false}));
  REQUIRE(lines.size() == t.steps.size() + 1);  // the start, each step, the outcome
  for (size_t i = 1; i < t.steps.size(); ++i) {
    INFO(lines[i]);
    if (!t.steps[i].command.empty()) {
      CHECK_THAT(lines[i], Catch::Matchers::Contains(trace::CommandText(t.steps[i].command)));
    }
    if (!t.steps[i].in_critical_section.empty()) {
      CHECK_THAT(lines[i], Catch::Matchers::Contains("[CS: "));
    }
  }
  CHECK_THAT(lines[t.violation->step], Catch::Matchers::StartsWith("!! "));
}

TEST_CASE("a narrow timeline shortens random tokens, and a wide one keeps everything") {
  const scenario::Scenario s =
      scenario::LoadScenarioFile(testing::ScenarioPath("set-px-script-stall.json"));
  const trace::Trace t = run::ReplaySchedule(s);
  const std::string token = t.steps[1].command.at(2);  // SET key TOKEN NX PX ttl
  REQUIRE(token.size() == 16);
  CHECK_THAT(trace::Timeline(t), Catch::Matchers::Contains(token));
  CHECK(trace::Timeline(t) == trace::Timeline(t, {.width = 1000}));
  const std::string narrow = trace::Timeline(t, {.width = 80});
  CHECK_THAT(narrow, !Catch::Matchers::Contains(token));
  CHECK_THAT(narrow, Catch::Matchers::Contains(token.substr(0, 6) + "\u2026"));
}

TEST_CASE("colour adds escapes and nothing else") {
  for (const trace::Trace& t : Traces()) {
    for (bool compact : {false, true}) {
      const std::string plain = trace::Timeline(t, {.width = 120, .compact = compact});
      const std::string coloured =
          trace::Timeline(t, {.width = 120, .compact = compact, .color = true});
      CHECK(plain.find('\033') == std::string::npos);
      CHECK(coloured.find('\033') != std::string::npos);
      CHECK(Uncoloured(coloured) == plain);
    }
  }
}

TEST_CASE("the command line fits the timeline to a width, in one line per step or in colour") {
  const std::string naive = testing::ScenarioPath("setnx-naive.json");
  const auto narrow = testing::RunLockstep({"run", naive, "--seed", "1", "--width", "80"});
  CHECK(narrow.exit_code == 0);
  for (const std::string& line : LinesOf(narrow.out)) CHECK(Columns(line) <= 80);
  // One seeded run that misses the race says so and points to explore.
  CHECK_THAT(narrow.out, Catch::Matchers::Contains("lockstep explore"));
  const auto compact = testing::RunLockstep({"run", naive, "--seed", "1", "--compact"});
  CHECK(LinesOf(compact.out).size() < LinesOf(narrow.out).size());
  const auto always = testing::RunLockstep({"run", naive, "--seed", "1", "--color", "always"});
  CHECK(always.out.find("\033[") != std::string::npos);
  // Not a terminal, no --color: no escapes.
  CHECK(testing::RunLockstep({"run", naive, "--seed", "1"}).out.find('\033') == std::string::npos);
  CHECK(testing::RunLockstep({"run", naive, "--seed", "1", "--width", "19"}).exit_code == 2);
  CHECK(testing::RunLockstep({"run", naive, "--seed", "1", "--color", "sometimes"}).exit_code == 2);
}

TEST_CASE("at 80 columns the docs race is told one line per step, at 160 as a table") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  // At 80 a client column would be narrower than 24 columns.
  const std::string narrow = trace::Timeline(t, {.width = 80});
  CHECK(narrow == trace::Timeline(t, {.width = 80, .compact = true}));
  CHECK(LinesOf(narrow).size() <= 3 * t.steps.size());
  // At 160 there is room: the table, its header first.
  const std::string wide = trace::Timeline(t, {.width = 160});
  CHECK_THAT(LinesOf(wide).at(0), Catch::Matchers::StartsWith("   step  clock"));
  for (const std::string& line : LinesOf(wide)) CHECK(Columns(line) <= 160);
}

TEST_CASE("a step with old arguments tells whose newer timestamp it replaced") {
  const trace::Trace late = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-loser-overwrite.json")));
  CHECK_THAT(trace::Timeline(late),
             Catch::Matchers::Contains(
                 "(args 1 tick old: replaced C5's newer timestamp 14 with an older 13)"));
  const trace::Trace fresh = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-loser-overwrite-safe.json")));
  CHECK_THAT(trace::Timeline(fresh), !Catch::Matchers::Contains("args"));
}

}  // namespace
}  // namespace lockstep
