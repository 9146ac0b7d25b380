// Every word lockstep shows of its own, once, in English and Chinese side
// by side (catalogue.cc). A message is an id; a placeholder is {1}, {2},
// ... so that each language puts the values where its word order wants
// them. Entries marked kShown are templates of texts a run records (the
// algorithms' why-lines, the model's events, a game's goal): translate.h
// matches a recorded text against them when it is shown.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/lang/language.h"

namespace lockstep::lang {

enum class Msg {
  // The course (run/course.h).
  kCourseIndexTitle,
  kCourseIndexIntro,
  kCourseLevel,
  kCourseGoal,
  kCourseChallenge,
  kCourseUnbreakable,
  kCourseChallengeMet,
  kCourseChallengeOver,
  kCourseAllLevels,
  kCourseNextLevel,
  kCourseLastLevel,
  // The game's page (run/play_page.html): markup and script.
  kPageTitle,
  kPageHeading,
  kPageYourGoal,
  kPageStory,
  kPageYourMove,
  kPageUndo,
  kPageRestart,
  kPageHint,
  kPageKeys,
  kPageNow,
  kPageMove,
  kPageWithAge,
  kPageWithAges,
  kPageNextStep,
  kPageTick,
  kPageCrash,
  kPageStall,
  kPageOver,
  kPageNothingLeft,
  kPageChoose,
  kPageClocks,
  kPageInCs,
  kPageHolding,
  kPageNobody,
  kPageKeyspace,
  kPageLaneStep,
  kPageLaneClock,
  kPageLaneKeyspace,
  kPageLaneTick,
  kPageDebriefStep,
  kPageRead,
  kPageReadBy,
  kPageExpired,
  kPageLostTo,
  kPageRemovedOwn,
  kPageReplacedOwn,
  kPageRemoved,
  kPageReplaced,
  kPageEnteredBelieving,
  kPageEntered,
  kPageWin,
  kPageWinText,
  kPageWinTexts,
  kPageBroke,
  kPageViolationAt,
  kPageHow,
  kPageStorySoFar,
  kPageHintNone,
  kPageHintAway,
  kPageHintAways,
  kPageHintEnd,
  kPageCodeNext,
  kPageCodeLast,
  // Templates of a game's goal (run/play_page.cc).
  kGoalFix,
  kGoalMutualExclusion,
  kGoalAnyProperty,
  kGoalProperty,
  // Templates of the model's events (world/model_step.cc, server_faults.cc).
  kEventAlgorithmThrew,
  kEventEnters,
  kEventGivesUp,
  kEventRenews,
  kEventFinishes,
  kEventAvailable,
  kEventTimesOut,
  kEventWakes,
  kEventLeaves,
  kEventWrites,
  kEventWriteRefused,
  kEventStalls,
  kEventServerJump,
  kEventJump,
  kEventCrashes,
  kEventRequestLost,
  kEventUnavailable,
  kEventReplyLost,
  kEventApplies,
  kEventPromotedLosingOne,
  kEventPromotedLosing,
  kEventPromoted,
  kEventRestartsUntil,
  kEventRestarts,
  // Templates of the built-in algorithms' why-lines (algo/*.cc).
  kWhyWriteResource,
  kWhyResourceAccepted,
  kWhyResourceRefused,
  kWhyFencingRetry,
  kWhyFencingToken,
  kWhyInstanceLocked,
  kWhyInstanceNotLocked,
  kWhyMajorityValid,
  kWhyMajorityNoValidity,
  kWhyMajorityShort,
  kWhyDelWhoever,
  kWhyGetCompare,
  kWhyCompareMine,
  kWhyCompareNotMine,
  kWhyCompareScript,
  kWhyHeldRetry,
  kWhyNoReplyRetry,
  kWhySetNxPx,
  kWhyKeySetRetry,
  kWhyNoTtlYet,
  kWhyExpiresIn,
  kWhyMineBySetNx,
  kWhyMineByGetSet,
  kWhyCheckExpired,
  kWhyKeyGone,
  kWhyNoTimestamp,
  kWhyNotExpired,
  kWhyTakeOverDel,
  kWhyTakeOverGetSet,
  kWhyDeletedExpired,
  kWhyDeletedFirst,
  kWhySetFirst,
  kWhyTookFirst,
  kWhyOldNoTimestamp,
  kWhyGetSetNoKey,
  kWhyStillMine,
  kWhyExpiredLeave,
  // Templates of the properties' violations (check/*.cc).
  kViolationThreeInCs,
  kViolationTwoInCs,
  kViolationForeignRelease,
  kViolationStaleWrite,
  kViolationLostLeaseRenewed,
  kViolationAllGaveUp,
  // The terminal timeline (trace/timeline.cc).
  kTimelineSkew,
  kTimelineInCs,
  kTimelineCrashed,
  kTimelineCrashes,
  kTimelineStalls,
  kTimelineWakes,
  kTimelineDraws,
  kTimelineLeavesCs,
  kTimelineRequestLost,
  kTimelineReplyLost,
  kTimelineEntersCs,
  kTimelineWakesNote,
  kTimelineTimesOutNote,
  kTimelineViolation,
  kTimelineNoViolation,
  kTimelineCycle,
  kTimelineCycleAgain,
  kTimelineCsList,
  kTimelineFailed,
  kTimelineRestarting,
  kTimelineUnreplicated,
  // Templates of a step's argument age (trace/trace_text.cc) and of how an
  // execution ended (explore/execution.cc).
  kAgeNewerOne,
  kAgeNewer,
  kAgeReplacedOne,
  kAgeReplaced,
  kAgeOne,
  kAge,
  kEndViolation,
  kEndNothingLeft,
  kEndFinished,
  kEndBound,
  kEndStopped,
  kCount,
};

// What an entry is: a word lockstep shows, or the template of a recorded
// text (translate.h matches shown texts against these only).
enum class Use { kWord, kShown };

struct Entry {
  Msg id;
  Use use;
  const char* en;
  const char* zh;
};

// Every entry, in the order of Msg.
std::span<const Entry> Catalogue();

// The message in `language`, its placeholders left in.
const char* Text(Msg id, Language language);

// `pattern` with {1}, {2}, ... replaced by args[0], args[1], ...; a
// placeholder with no argument is left as it is.
std::string Substitute(std::string_view pattern, const std::vector<std::string>& args);

// Text(id, language) with its placeholders filled.
std::string Format(Msg id, Language language, const std::vector<std::string>& args = {});

// The placeholders' numbers in `pattern`, in order of appearance.
std::vector<int> Placeholders(std::string_view pattern);

}  // namespace lockstep::lang
