// Every word a course says of its own (course.h), in one table: the index's
// headings, the challenge, the links between pages. The levels' titles and
// goals are the course file's. A catalogue for another language replaces
// this table.
#pragma once

#include <string>

namespace lockstep::run {

struct CourseText {
  const char* index_title;     // the index page's <title> and heading
  const char* index_intro;     // under the heading
  const char* level;           // "Level 2 of 5"
  const char* of;              //          ^^
  const char* goal;            // "Goal: "
  const char* challenge_hint;  // "Break it in at most N moves.": before N
  const char* challenge_tail;  //                                 after N
  const char* unbreakable;     // the challenge of a level no schedule breaks
  const char* challenge_met;   // at a violation within N moves
  const char* challenge_over;  // at a violation in more: before N
  const char* all_levels;      // the link to the index
  const char* next_level;      // the link to the next level: before its title
  const char* last_level;      // where the last level's "next" would be
  const char* play;            // the index's link to a level
};

inline const CourseText& CourseWords() {
  static const CourseText text{
      .index_title = "lockstep: a course in locks on Redis",
      .index_intro =
          "Each level is a game: you are the scheduler, choosing which client moves next and when "
          "the clock ticks. Every level's page works offline. The shortest break is the "
          "exhaustive search's, not a guess.",
      .level = "Level ",
      .of = " of ",
      .goal = "Goal: ",
      .challenge_hint = "Challenge: break it in at most ",
      .challenge_tail = " moves (the shortest schedule that breaks it).",
      .unbreakable =
          "Challenge: break it, or play to an end and find that no schedule can "
          "(the search finds no violation reachable).",
      .challenge_met =
          "Challenge met: you broke it in as few moves as the search's shortest "
          "counterexample.",
      .challenge_over = "Broken, but the shortest schedule that breaks it takes ",
      .all_levels = "All levels",
      .next_level = "Next level: ",
      .last_level = "That was the last level.",
      .play = "Play",
  };
  return text;
}

}  // namespace lockstep::run
