#include "sim/run/course.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"
#include "sim/run/course_text.h"
#include "sim/run/output_file.h"
#include "sim/run/play_page.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "sim/trace/render_svg.h"

namespace lockstep::run {
namespace {

namespace fs = std::filesystem;
namespace jr = lockstep::json;
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
std::string Challenge(const json& distance) {
  const CourseText& t = CourseWords();
  if (distance.is_null()) return t.unbreakable;
  return t.challenge_hint + std::to_string(distance.get<int>()) + t.challenge_tail;
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
                      const std::vector<std::string>& goals) {
  const CourseText& t = CourseWords();
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" +
      trace::XmlEscape(course.title.empty() ? t.index_title : course.title) +
      "</title>\n<style>\n"
      "body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; margin: 20px; "
      "color: #1B1F24; max-width: 60em; }\n"
      "li { margin: 0 0 14px 0; } p { margin: 4px 0; } .goal { font-weight: bold; "
      "color: #34435E; }\n</style>\n</head>\n<body>\n<h1 id=\"course-title\">" +
      trace::XmlEscape(course.title.empty() ? t.index_title : course.title) + "</h1>\n<p>" +
      trace::XmlEscape(t.index_intro) + "</p>\n<ol id=\"levels\">\n";
  for (size_t i = 0; i < graphs.size(); ++i) {
    page += "<li class=\"level\"><a href=\"" + PageName(i) + "\">" +
            trace::XmlEscape(course.levels[i].title) + "</a>\n<p class=\"goal\">" +
            trace::XmlEscape(t.goal) + trace::XmlEscape(goals[i]) +
            "</p>\n<p class=\"challenge\">" +
            trace::XmlEscape(Challenge(graphs[i]["states"][0]["distance"])) + "</p></li>\n";
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
    course.title = top.OptString("title").value_or("");
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
      level.title = l.String("title");
      level.goal = l.OptString("goal").value_or("");
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
                         const scenario::Overrides& cut) {
  CheckCourseDir(dir);
  const CourseText& t = CourseWords();
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
    if (!level.goal.empty()) graphs.back()["goal"] = level.goal;
    goals.push_back(graphs.back()["goal"]);
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
    json nav = {
        {"title", course.levels[i].title},
        {"level", t.level + std::to_string(i + 1) + t.of + std::to_string(n)},
        {"challenge", Challenge(distance)},
        {"shortest", distance},
        {"met", t.challenge_met},
        {"over", t.challenge_over},
        {"index", "index.html"},
        {"index_text", t.all_levels},
        {"next", i + 1 < n ? PageName(i + 1) : ""},
        {"next_text", i + 1 < n ? t.next_level + course.levels[i + 1].title : t.last_level}};
    graphs[i]["course"] = std::move(nav);
    const std::string path = (fs::path(dir) / PageName(i)).string();
    run::CheckOutput("--course", path, {course.levels[i].scenario});
    WriteOutput(path, PlayPage(graphs[i]));
    report.lines.push_back(path + ": " + course.levels[i].title + " (" +
                           std::to_string(graphs[i]["states"].size()) + " states; " +
                           Challenge(distance) + ")");
  }
  const std::string index = (fs::path(dir) / "index.html").string();
  run::CheckOutput("--course", index, {});
  WriteOutput(index, IndexPage(course, graphs, goals));
  report.lines.push_back(index + ": the " + std::to_string(n) + " levels in order");
  return report;
}

}  // namespace lockstep::run
