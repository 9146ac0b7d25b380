// `lockstep render --course DIR`: an index and a page per level, linked in
// order, each level's challenge the shortest counterexample's length; a
// folder lockstep did not write is never touched; bad course files and bad
// --clients/--horizon values end with exit 2 and a message naming the file
// and the place. The pages are played in Chromium by
// tests/browser/game_test.mjs.
#include "sim/run/course.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/explore/continuation.h"
#include "sim/explore/execution.h"
#include "sim/lang/catalogue.h"
#include "sim/run/play_page.h"
#include "sim/scenario/overrides.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A teacher's course of two small levels: a stall that breaks the lock, and
// the compare-and-delete script cut to two clients, which nothing breaks.
std::string TeacherCourse(const testing::TempDir& tmp) {
  return tmp.Write("course.json", R"({"title": "My course", "levels": [
    {"scenario": ")" + testing::ScenarioPath("set-px-script-stall.json") +
                                      R"(", "title": "A stall"},
    {"scenario": ")" + testing::ScenarioPath("set-px-script-safe.json") +
                                      R"(", "title": "The script holds",
     "goal": "Try the script.", "clients": 2, "horizon": 4}]})");
}

TEST_CASE("render --course writes an index and linked levels, each challenge the shortest break") {
  testing::TempDir tmp;
  const std::string course = TeacherCourse(tmp);
  const std::string dir = tmp.File("site");
  const testing::ProcessResult r =
      testing::RunLockstep({"render", "--course", dir, "--levels", course});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);

  // The shortest counterexample of the first level, by the search's own
  // breadth-first continuation from the start.
  const scenario::Scenario stall =
      scenario::LoadScenarioFile(testing::ScenarioPath("set-px-script-stall.json"));
  const explore::Continuation c = explore::ShortestContinuation(
      stall.world, explore::MakeProperties(stall.properties), {}, stall.max_steps, 1'000'000);
  REQUIRE(c.outcome == explore::Continuation::Outcome::kFound);
  const std::string challenge =
      "Challenge: break it in at most " + std::to_string(c.actions.size()) + " moves";

  const std::string index = Slurp(dir + "/index.html");
  CHECK(Contains(index, "<h1 id=\"course-title\">My course</h1>"));
  CHECK(Contains(index, "<a href=\"level-1.html\">A stall</a>"));
  CHECK(Contains(index, "<a href=\"level-2.html\">The script holds</a>"));
  CHECK(Contains(index, "Goal: Try the script."));
  CHECK(Contains(index, challenge));
  CHECK(Contains(index, lang::Text(lang::Msg::kCourseUnbreakable, lang::Language::kEn)));
  CHECK(index.find("level-1.html") < index.find("level-2.html"));

  const std::string first = Slurp(dir + "/level-1.html");
  CHECK(Contains(first, R"("next":"level-2.html")"));
  CHECK(Contains(first, R"("index":"index.html")"));
  CHECK(Contains(first, R"("level":"Level 1 of 2")"));
  CHECK(Contains(first, challenge));
  const std::string second = Slurp(dir + "/level-2.html");
  CHECK(Contains(second, R"("next":"")"));
  CHECK(Contains(second, R"("shortest":null)"));
  CHECK(Contains(second, R"("clients":["C1","C2"])"));  // the course file's cut
  for (const std::string& page : {index, first, second}) {
    CHECK(!Contains(page, "http://"));
    CHECK(!Contains(page, "https://"));
  }
  CHECK(fs::exists(dir + "/" + run::kCourseMarker));

  // A course lockstep wrote is written again; nothing else is left behind.
  const testing::ProcessResult again =
      testing::RunLockstep({"render", "--course", dir, "--levels", course});
  CHECK(again.exit_code == 0);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  CHECK(files == 4);
}

TEST_CASE("render --course --lang zh writes the course in Chinese, the file's words per language") {
  testing::TempDir tmp;
  const std::string course = tmp.Write("course.json", R"({"title": {"en": "Locks", "zh": "锁"},
    "levels": [{"scenario": ")" + testing::ScenarioPath("set-px-script-safe.json") +
                                                          R"(",
     "title": {"en": "The script", "zh": "脚本"}, "goal": "Same in both.", "clients": 2,
     "horizon": 4}]})");
  const std::string dir = tmp.File("site");
  const testing::ProcessResult r =
      testing::RunLockstep({"render", "--course", dir, "--levels", course, "--lang", "zh"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string index = Slurp(dir + "/index.html");
  CHECK(Contains(index, "<html lang=\"zh\">"));
  CHECK(Contains(index, "<h1 id=\"course-title\">锁</h1>"));
  CHECK(Contains(index, "<a href=\"level-1.html\">脚本</a>"));
  CHECK(Contains(index, "目标：Same in both."));
  CHECK(Contains(index, lang::Text(lang::Msg::kCourseUnbreakable, lang::Language::kZh)));
  CHECK(Contains(index, lang::Text(lang::Msg::kCourseIndexIntro, lang::Language::kZh)));
  const std::string level = Slurp(dir + "/level-1.html");
  CHECK(Contains(level, "<html lang=\"zh\">"));
  CHECK(Contains(level, R"("level":"第 1 关（共 1 关）")"));
  CHECK(Contains(level, R"("title":"脚本")"));
  CHECK(Contains(level, R"("undo":"撤销")"));
  // The moves' recorded texts are data; beside them, what Chinese shows.
  CHECK(Contains(level, R"("C1 enters the critical section")"));
  CHECK(Contains(level, R"("C1 进入临界区")"));

  // The same course in English: the "en" words, the catalogue's English.
  REQUIRE(testing::RunLockstep({"render", "--course", dir, "--levels", course, "--lang", "en"})
              .exit_code == 0);
  const std::string english = Slurp(dir + "/index.html");
  CHECK(Contains(english, "<html lang=\"en\">"));
  CHECK(Contains(english, "<a href=\"level-1.html\">The script</a>"));
  CHECK(Contains(english, "Goal: Same in both."));

  // A title neither a string nor both languages, and a bad --lang: exit 2.
  const std::string bad = tmp.Write("bad.json", R"({"levels": [{"scenario": "x.json",
    "title": {"en": "only English"}}]})");
  const testing::ProcessResult missing =
      testing::RunLockstep({"render", "--course", tmp.File("other"), "--levels", bad});
  CHECK(missing.exit_code == 2);
  CHECK(Contains(missing.err, bad + ": at /levels/0/title: "));
  CHECK(Contains(missing.err, "zh"));
  const testing::ProcessResult xx =
      testing::RunLockstep({"render", "--course", tmp.File("other"), "--lang", "xx"});
  CHECK(xx.exit_code == 2);
  CHECK(Contains(xx.err, "--lang: expected en (English) or zh (Chinese), got \"xx\""));
  CHECK(!fs::exists(tmp.File("other")));
}

TEST_CASE("render --course refuses a folder it did not write and bad course files") {
  testing::TempDir tmp;
  const std::string course = TeacherCourse(tmp);
  const std::string foreign = tmp.File("notes");
  fs::create_directory(foreign);
  tmp.Write("notes/index.html", "mine");
  testing::ProcessResult r =
      testing::RunLockstep({"render", "--course", foreign, "--levels", course});
  CHECK(r.exit_code == 2);
  CHECK(Contains(r.err, foreign + ": at --course: the folder exists and is not a course"));
  CHECK(Slurp(foreign + "/index.html") == "mine");
  CHECK(!fs::exists(foreign + "/level-1.html"));

  const std::string site = tmp.File("site");
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"levels": []})", "at /levels: expected 1 to 50 levels, got 0"},
           {R"({"levels": [{"scenario": "x.json"}]})", "at /levels/0"},
           {R"({"levels": [{"scenario": ")" + testing::ScenarioPath("set-px-script-stall.json") +
                R"(", "title": "t", "horizon": "soon"}]})",
            "at /levels/0/horizon: expected an integer"},
           {R"({"levels": [{"scenario": ")" + testing::ScenarioPath("set-px-script-stall.json") +
                R"(", "title": "t", "clients": 3}]})",
            "at /levels/0: --clients 3: the scenario has 2 contending clients"},
           {R"({"levels": [{"scenario": "missing.json", "title": "t"}]})",
            "at /levels/0: " + tmp.File("missing.json") + ": cannot open"},
           {R"({"levels": [], "colour": 1})", "at /colour"}}) {
    const std::string file = tmp.Write("bad.json", text);
    r = testing::RunLockstep({"render", "--course", site, "--levels", file});
    INFO(text);
    CHECK(r.exit_code == 2);
    CHECK(Contains(r.err, file + ": "));
    CHECK(Contains(r.err, message));
    CHECK(!fs::exists(site));
  }
}

TEST_CASE("render --clients and --horizon cut a game as explore cuts a scenario") {
  testing::TempDir tmp;
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  const std::string page = tmp.File("game.html");
  const testing::ProcessResult r = testing::RunLockstep(
      {"render", race, "--play-html", page, "--clients", "1", "--horizon", "15"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  scenario::Scenario cut = scenario::LoadScenarioFile(race);
  scenario::Overrides one;
  one.clients = 1;
  one.horizon = "15";
  scenario::ApplyOverrides(cut, one);
  const nlohmann::json graph = run::PlayGraph(cut, race);
  const size_t whole = run::PlayGraph(scenario::LoadScenarioFile(race), race)["states"].size();
  CHECK(graph["states"].size() < whole);
  CHECK(Contains(r.out, "(the game: " + std::to_string(graph["states"].size()) + " states"));
  CHECK(Slurp(page) == run::PlayPage(graph));

  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--clients", "3"}, race + ": --clients 3: the scenario has 2 contending clients"},
           {{"--clients", "0"}, "--clients"},
           {{"--horizon", "soon"}, race + ": --horizon soon: expected 10 (the clock's start)"},
           {{"--horizon", "9"}, race + ": --horizon 9: expected 10 (the clock's start)"}}) {
    std::vector<std::string> command = {"render", race, "--play-html", tmp.File("bad.html")};
    command.insert(command.end(), args.begin(), args.end());
    const testing::ProcessResult bad = testing::RunLockstep(command);
    INFO(args[0] << " " << args[1] << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(Contains(bad.err, message));
    CHECK(!fs::exists(tmp.File("bad.html")));
  }
  // A trace's picture is of the run it records: it is not cut.
  const testing::ProcessResult picture =
      testing::RunLockstep({"render", race, "--svg", tmp.File("race.svg"), "--clients", "2"});
  CHECK(picture.exit_code == 2);
  CHECK(Contains(picture.err, "at --clients: a trace's picture is of the run it records"));
  CHECK(!fs::exists(tmp.File("race.svg")));
}

}  // namespace
}  // namespace lockstep
