// A course (`lockstep render --course DIR`): the scheduler game's pages as
// levels of a static site, an index and one self-contained page per level
// (play_page.h), linked in order. Nothing is fetched.
//
// The levels are a course file's (scenarios/course/course.json is the one
// lockstep ships; a teacher writes their own):
//
//   {"title": "...", "levels": [{"scenario": "../setnx-docs-race.json",
//     "title": "The documented race", "goal": "...",     (goal: optional)
//     "clients": 2, "horizon": 0 | "none"}, ...]}        (the cut: optional)
//
// A title or goal is one text for every language, or one per language:
// {"en": "...", "zh": "..."}. The pages are written in one language
// (--lang); the course's own words are sim/lang's catalogue's.
//
// A level's scenario path is relative to the course file. Its challenge,
// "break it in at most N moves", takes N from the game's own breadth-first
// distances: the shortest counterexample, or none when no violation is
// reachable (the level is won by playing to an end).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/lang/language.h"
#include "sim/scenario/overrides.h"

namespace lockstep::run {

// A course file's text: one for every language (en and zh equal), or one
// per language.
struct CourseWords {
  std::string en, zh;
  const std::string& In(lang::Language language) const {
    return language == lang::Language::kZh ? zh : en;
  }
  bool empty() const { return en.empty(); }
};

struct CourseLevel {
  std::string scenario;  // the scenario's path, as the course file names it resolved
  CourseWords title;
  CourseWords goal;         // empty: the game's own goal
  scenario::Overrides cut;  // clients and horizon only
};

struct Course {
  std::string file;
  CourseWords title;  // empty: the catalogue's
  std::vector<CourseLevel> levels;
};

// Throws base::InputError naming `file` and the place in it.
Course LoadCourse(const std::string& file);

// The course file lockstep ships, found as the scenarios are.
std::string DefaultCourseFile(const std::string& scenario_dir);

// What the course wrote: one line per level, for the command's report.
struct CourseReport {
  std::vector<std::string> lines;
};

// Writes DIR/index.html and DIR/level-K.html, each atomically and in
// `language`, and the marker that says DIR is a course lockstep wrote. `cut` (the command
// line's --clients and --horizon) applies to every level over the course
// file's. Refuses (base::InputError) a DIR that exists and is neither empty
// nor a course lockstep wrote, before writing anything; a level that cannot
// be played (too large, bad cut) is refused before any page is written.
CourseReport WriteCourse(const Course& course, const std::string& dir,
                         const scenario::Overrides& cut,
                         lang::Language language = lang::Language::kEn);

// The name of the file that marks a course's folder.
inline constexpr const char* kCourseMarker = ".lockstep-course";

}  // namespace lockstep::run
