#include "sim/run/course.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"
#include "sim/lang/catalogue.h"
#include "sim/lang/translate.h"
#include "sim/run/output_file.h"
#include "sim/run/play_page.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/render_svg.h"

namespace lockstep::run {
namespace {

namespace fs = std::filesystem;
namespace jr = lockstep::json;
using lang::Msg;
using nlohmann::json;

// The most levels a course holds: a course, not a sweep.
constexpr int64_t kMaxLevels = 50;

std::string PageName(size_t level) { return "level-" + std::to_string(level + 1) + ".html"; }

// A horizon as explore's --horizon takes it: an integer or "none"; checked
// against the scenario by scenario::ApplyOverrides.
std::string HorizonText(const json& j, const std::string& pointer) {
  if (j.is_string() && j.get<std::string>() == "none") return "none";
  return std::to_string(jr::ReadInt(j, pointer, 0, int64_t{1} << 40));
}

// The challenge of a level whose game starts `distance` moves from its
// nearest violation (null: none reachable).
std::string Challenge(const json& distance, lang::Language language) {
  if (distance.is_null()) return lang::Text(Msg::kCourseUnbreakable, language);
  return lang::Format(Msg::kCourseChallenge, language, {std::to_string(distance.get<int>())});
}

// A title or goal: one string for every language, or {"en": ..., "zh": ...}.
CourseWords ReadWords(const jr::ObjectReader& r, const std::string& key) {
  const json& j = r.Raw(key);
  if (j.is_string()) return {j.get<std::string>(), j.get<std::string>()};
  if (!j.is_object()) {
    throw jr::JsonError(
        r.PointerOf(key),
        "expected a string, or {\"en\": \"...\", \"zh\": \"...\"}, got " + jr::Describe(j));
  }
  const jr::ObjectReader words(j, r.PointerOf(key));
  words.RejectUnknown({"en", "zh"});
  return {words.String("en"), words.String("zh")};
}

// A folder lockstep may write a course into: absent, empty, or a course.
void CheckCourseDir(const std::string& dir) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (ec || !fs::exists(st)) return;
  if (!fs::is_directory(st)) {
    throw base::InputError(dir, "--course", "expected a folder for the course, found a file");
  }
  if (fs::is_empty(dir, ec) || fs::exists(fs::path(dir) / kCourseMarker, ec)) return;
  throw base::InputError(dir, "--course",
                         "the folder exists and is not a course lockstep wrote (no " +
                             std::string(kCourseMarker) +
                             "): nothing was written; give a new or empty folder");
}

std::string IndexPage(const Course& course, const std::vector<json>& graphs,
                      const std::vector<std::string>& goals, lang::Language language) {
  const std::string title = course.title.empty() ? lang::Text(Msg::kCourseIndexTitle, language)
                                                 : course.title.In(language);
  std::string page =
      std::string("<!DOCTYPE html>\n<html lang=\"") + lang::LanguageCode(language) +
      "\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" +
      trace::XmlEscape(title) +
      "</title>\n<style>\n"
      "body { font-family: DejaVu Sans, WenQuanYi Micro Hei, Helvetica, Arial, sans-serif; "
      "margin: 20px; "
      "color: #1B1F24; max-width: 60em; }\n"
      "li { margin: 0 0 14px 0; } p { margin: 4px 0; } .goal { font-weight: bold; "
      "color: #34435E; }\n</style>\n</head>\n<body>\n<h1 id=\"course-title\">" +
      trace::XmlEscape(title) + "</h1>\n<p>" +
      trace::XmlEscape(lang::Text(Msg::kCourseIndexIntro, language)) + "</p>\n<ol id=\"levels\">\n";
  for (size_t i = 0; i < graphs.size(); ++i) {
    page += "<li class=\"level\"><a href=\"" + PageName(i) + "\">" +
            trace::XmlEscape(course.levels[i].title.In(language)) + "</a>\n<p class=\"goal\">" +
            trace::XmlEscape(lang::Format(Msg::kCourseGoal, language, {goals[i]})) +
            "</p>\n<p class=\"challenge\">" +
            trace::XmlEscape(Challenge(graphs[i]["states"][0]["distance"], language)) +
            "</p></li>\n";
  }
  return page + "</ol>\n</body>\n</html>\n";
}

}  // namespace

Course LoadCourse(const std::string& file) {
  Course course;
  course.file = file;
  try {
    const json doc = jr::Parse(scenario::ReadFile(file));
    const jr::ObjectReader top(doc, "");
    top.RejectUnknown({"title", "levels"});
    if (top.Has("title")) course.title = ReadWords(top, "title");
    const json& levels = top.Array("levels");
    if (levels.empty() || static_cast<int64_t>(levels.size()) > kMaxLevels) {
      throw jr::JsonError("/levels", "expected 1 to " + std::to_string(kMaxLevels) +
                                         " levels, got " + std::to_string(levels.size()));
    }
    const fs::path base = fs::path(file).parent_path();
    for (size_t i = 0; i < levels.size(); ++i) {
      const jr::ObjectReader l(levels[i], "/levels/" + std::to_string(i));
      l.RejectUnknown({"scenario", "title", "goal", "clients", "horizon"});
      CourseLevel level;
      level.scenario = (base / l.String("scenario")).string();
      level.title = ReadWords(l, "title");
      if (l.Has("goal")) level.goal = ReadWords(l, "goal");
      if (l.Has("clients")) level.cut.clients = static_cast<int>(l.Int("clients", 1, 1000));
      if (l.Has("horizon"))
        level.cut.horizon = HorizonText(l.Raw("horizon"), l.PointerOf("horizon"));
      course.levels.push_back(std::move(level));
    }
  } catch (const jr::JsonError& e) {
    throw base::InputError(file, e.place, e.expected);
  }
  return course;
}

std::string DefaultCourseFile(const std::string& scenario_dir) {
  return scenario_dir + "/course/course.json";
}

CourseReport WriteCourse(const Course& course, const std::string& dir,
                         const scenario::Overrides& cut, lang::Language language) {
  CheckCourseDir(dir);
  // Every level is explored before any page is written: a level that cannot
  // be played leaves the folder as it was.
  std::vector<json> graphs;
  std::vector<std::string> goals;
  for (size_t i = 0; i < course.levels.size(); ++i) {
    const CourseLevel& level = course.levels[i];
    const std::string place = "/levels/" + std::to_string(i);
    scenario::Overrides o = level.cut;
    if (cut.clients) o.clients = cut.clients;
    if (cut.horizon) o.horizon = cut.horizon;
    try {
      scenario::Scenario s = scenario::LoadScenarioFile(level.scenario);
      scenario::ApplyOverrides(s, o);
      graphs.push_back(PlayGraph(s, level.scenario));
    } catch (const base::InputError& e) {
      throw base::InputError(course.file, place, e.what());
    }
    if (!level.goal.empty()) graphs.back()["goal"] = level.goal.In(language);
    goals.push_back(lang::Shown(graphs.back()["goal"], language));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw base::InputError(dir, "--course", "cannot make the folder: " + ec.message());
  const std::string marker = (fs::path(dir) / kCourseMarker).string();
  run::CheckOutput("--course", marker, {});
  WriteOutput(marker, "A course written by lockstep render --course; it may be rewritten.\n");

  CourseReport report;
  const size_t n = graphs.size();
  for (size_t i = 0; i < n; ++i) {
    const json distance = graphs[i]["states"][0]["distance"];
    const lang::Language l = language;
    json nav = {
        {"title", course.levels[i].title.In(l)},
        {"level", lang::Format(Msg::kCourseLevel, l, {std::to_string(i + 1), std::to_string(n)})},
        {"challenge", Challenge(distance, l)},
        {"shortest", distance},
        {"met", lang::Text(Msg::kCourseChallengeMet, l)},
        {"over", lang::Text(Msg::kCourseChallengeOver, l)},
        {"index", "index.html"},
        {"index_text", lang::Text(Msg::kCourseAllLevels, l)},
        {"next", i + 1 < n ? PageName(i + 1) : ""},
        {"next_text",
         i + 1 < n ? lang::Format(Msg::kCourseNextLevel, l, {course.levels[i + 1].title.In(l)})
                   : lang::Text(Msg::kCourseLastLevel, l)}};
    graphs[i]["course"] = std::move(nav);
    const std::string path = (fs::path(dir) / PageName(i)).string();
    run::CheckOutput("--course", path, {course.levels[i].scenario});
    WriteOutput(path, PlayPage(graphs[i], l));
    report.lines.push_back(path + ": " + course.levels[i].title.In(l) + " (" +
                           std::to_string(graphs[i]["states"].size()) + " states; " +
                           Challenge(distance, l) + ")");
  }
  const std::string index = (fs::path(dir) / "index.html").string();
  run::CheckOutput("--course", index, {});
  WriteOutput(index, IndexPage(course, graphs, goals, language));
  report.lines.push_back(index + ": the " + std::to_string(n) + " levels in order");
  return report;
}

}  // namespace lockstep::run
