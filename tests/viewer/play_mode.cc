// The play mode, scripted: choices in schedule form reach the documented
// race, undo steps back, the hint finds (or rules out) a violation, and a
// saved game replays byte for byte.
#include <filesystem>
#include <iostream>

#include <catch2/catch.hpp>

#include "sim/check/liveness.h"
#include "sim/run/runner.h"
#include "sim/trace/json_reader.h"
#include "tests/test_util.h"
#include "viewer/play_session.h"

namespace lockstep {
namespace {

using viewer::PlaySession;

PlaySession DocsRace() {
  return PlaySession::FromFile(testing::ScenarioPath("setnx-docs-race.json"));
}

void Play(PlaySession& game, const std::vector<std::string>& moves) {
  for (const std::string& m : moves) {
    std::string why;
    INFO("move " << m << " after " << game.steps() << " steps");
    REQUIRE(game.Choose(m, &why));
  }
}

const std::vector<std::string> kDocsRace = {"C1", "C2", "C1", "C2", "C1", "C1", "C2", "C2"};

TEST_CASE("a game starts from the scenario without its schedule") {
  PlaySession game = DocsRace();
  CHECK(game.steps() == 0);
  CHECK(game.trace().steps.size() == 1);
  CHECK_FALSE(game.over());
  std::vector<std::string> offered;
  for (const auto& c : game.choices()) offered.push_back(c.text + ": " + c.preview);
  // C3 crashed before the run; the clock may tick up to the horizon.
  CHECK(offered == std::vector<std::string>{"C1: SETNX lock.foo 13", "C2: SETNX lock.foo 13",
                                            "tick: clock 10 -> 11"});
}

TEST_CASE("scripted choices reach the documented race at step 8") {
  PlaySession game = DocsRace();
  Play(game, kDocsRace);
  REQUIRE(game.violation());
  CHECK(game.violation()->property == "mutual_exclusion");
  CHECK(game.violation()->clients == std::vector<std::string>{"C1", "C2"});
  CHECK(game.violation()->step == 8);
  CHECK(game.over());
  CHECK(game.choices().empty());
  CHECK(game.Status() ==
        "Violation reached: mutual_exclusion broken at step 8 by C1 and C2. C1 and C2 are in "
        "the critical section at once.");
  // The same trace as the scenario's own schedule gives.
  CHECK(trace::ToJsonText(game.trace()) ==
        trace::ToJsonText(run::ReplaySchedule(
            scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")))));
  std::string why;
  CHECK_FALSE(game.Choose("tick", &why));
  CHECK(why == "the game is over: mutual_exclusion was violated at step 8");
}

TEST_CASE("undo steps back one choice at a time") {
  PlaySession game = DocsRace();
  Play(game, kDocsRace);
  REQUIRE(game.Undo());
  CHECK(game.steps() == 7);
  CHECK_FALSE(game.violation());
  CHECK(game.trace().steps.back().in_critical_section == std::vector<std::string>{"C1"});
  // A different choice this time: C1 leaves first, and the race is missed.
  Play(game, {"C1", "C2"});
  CHECK_FALSE(game.violation());
  while (game.Undo()) {
  }
  CHECK(game.steps() == 0);
  CHECK_FALSE(game.Undo());
}

TEST_CASE("a choice that is not possible is refused with the reason") {
  PlaySession game = DocsRace();
  std::string why;
  CHECK_FALSE(game.Choose("crash C1", &why));
  CHECK(why.find("'crash C1' is not possible here") == 0);
  CHECK_FALSE(game.Choose("C9", &why));
  CHECK_FALSE(why.empty());
  CHECK(game.steps() == 0);
}

TEST_CASE("a crash is offered within the scenario's fault budget") {
  nlohmann::json doc =
      json::Parse(scenario::ReadFile(testing::ScenarioPath("setnx-docs-race.json")));
  doc["faults"] = {{"crash", 1}};
  PlaySession game(scenario::LoadScenario(doc, "docs-race-with-a-crash"));
  CHECK(game.crashes_left() == 1);
  Play(game, {"C1", "crash C1"});
  CHECK(game.crashes_left() == 0);
  for (const auto& c : game.choices()) CHECK(c.action.kind != world::Action::Kind::kCrash);
  std::string why;
  CHECK_FALSE(game.Choose("crash C2", &why));
}

TEST_CASE("the hint at the start of the documented race shows a shortest continuation") {
  PlaySession game = DocsRace();
  viewer::Hint hint = game.AskHint();
  std::cout << "hint at the start of setnx-docs-race: " << hint.text
            << std::endl;  // before any fork
  REQUIRE(hint.search.outcome == explore::Continuation::Outcome::kFound);
  REQUIRE_FALSE(hint.moves.empty());
  CHECK(hint.search.violation->property == "mutual_exclusion");
  // No shorter race than the documented one exists from here.
  CHECK(hint.moves.size() <= kDocsRace.size());
  Play(game, hint.moves);
  REQUIRE(game.violation());
  CHECK(game.violation()->step == static_cast<int>(hint.moves.size()));
}

TEST_CASE("the hint midway through the race names the two moves left") {
  PlaySession game = DocsRace();
  Play(game, {"C1", "C2", "C1", "C2", "C1", "C1"});
  viewer::Hint hint = game.AskHint();
  std::cout << "hint after six moves of setnx-docs-race: " << hint.text
            << std::endl;  // before any fork
  REQUIRE(hint.search.outcome == explore::Continuation::Outcome::kFound);
  CHECK(hint.moves == std::vector<std::string>{"C2", "C2"});
  CHECK(hint.search.violation->step == 8);
}

TEST_CASE("after a hint's move the hint speaks of the moves left, not the state it was asked in") {
  PlaySession game = DocsRace();
  Play(game, {"C1", "C2", "C1", "C2", "C1", "C1"});
  viewer::Hint hint = game.AskHint();
  REQUIRE(hint.moves.size() == 2);
  std::string why;
  REQUIRE(game.Choose(hint.moves.front(), &why));
  hint = PlaySession::AfterFirstMove(hint);
  CHECK(hint.moves == std::vector<std::string>{"C2"});
  CHECK(hint.text == "Following the hint: 1 more step to the violation (C2).");
  hint = PlaySession::AfterFirstMove(hint);
  CHECK(hint.moves.empty());
  CHECK(hint.text == "That was the hint's last move.");
}

TEST_CASE("when the clock cannot tick the game says why, instead of dropping the tick") {
  PlaySession game = DocsRace();
  CHECK(game.tick_blocked().empty());  // at the start the clock may move
  // Ticking on, the clock reaches the scenario's horizon.
  Play(game, {"C1", "C2", "C1", "C2", "C1"});
  std::string why;
  for (int ticks = 0; ticks < 10 && game.tick_blocked().empty(); ++ticks) {
    REQUIRE(game.Choose("tick", &why));
  }
  INFO(game.tick_blocked());
  CHECK(game.tick_blocked() == "the clock cannot tick: the clock is at the horizon (" +
                                   std::to_string(*game.scenario().world.horizon) + ")");
  for (const auto& c : game.choices()) CHECK(c.action.kind != world::Action::Kind::kTick);
}

TEST_CASE("the hint on the GETSET fix says no violation is reachable within its bounds") {
  PlaySession game = PlaySession::FromFile(testing::ScenarioPath("getset-docs-fix.json"));
  viewer::Hint hint = game.AskHint();
  std::cout << "hint at the start of getset-docs-fix: " << hint.text
            << std::endl;  // before any fork
  CHECK(hint.search.outcome == explore::Continuation::Outcome::kUnreachable);
  CHECK(hint.moves.empty());
  CHECK(hint.text.find("No violation is reachable from here within the scenario's bounds") == 0);
  // Also after the opening moves of the documented takeover.
  Play(game, {"C4", "C5", "C4", "C5"});
  CHECK(game.AskHint().search.outcome == explore::Continuation::Outcome::kUnreachable);
}

TEST_CASE("the hint at the start of every scenario agrees with its expected outcome", "[sweep]") {
  for (const std::string& file : testing::ScenarioSweep()) {
    const std::filesystem::path path(file);
    PlaySession game = PlaySession::FromFile(file);
    viewer::Hint hint = game.AskHint();
    std::cout << path.filename().string() << ": " << hint.text << std::endl;
    INFO(file << ": " << hint.text);
    if (check::IsLiveness(game.scenario().expect.property)) {
      // The game searches for steps that violate: a lasso is explore's.
      CHECK_THAT(hint.text, Catch::Contains("liveness is judged on fair infinite executions"));
      continue;
    }
    CHECK(hint.search.outcome == (game.scenario().expect.safe
                                      ? explore::Continuation::Outcome::kUnreachable
                                      : explore::Continuation::Outcome::kFound));
  }
}

TEST_CASE("a saved game replays byte for byte") {
  testing::TempDir tmp;
  PlaySession game = DocsRace();
  Play(game, kDocsRace);
  std::string path = tmp.File("game.json");
  game.Save(path);
  testing::ProcessResult r = testing::RunLockstep({"replay", path});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("VIOLATION of mutual_exclusion at step 8") != std::string::npos);
  CHECK(r.out.find("replay reproduces the trace byte for byte") != std::string::npos);
  CHECK_THROWS_WITH(game.Save(tmp.File("no/such/folder/game.json")),
                    Catch::Matchers::StartsWith("cannot create a file next to "));
}

}  // namespace
}  // namespace lockstep
