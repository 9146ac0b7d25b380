// `lockstep demo`: the documented race found by search and told as the
// documentation tells it, the GETSET fix, the fix verified for all time, and
// the translator's question; in five parts, one at a time if asked.
#include <algorithm>
#include <iostream>

#include "sim/base/printable.h"
#include "sim/cli/commands.h"
#include "sim/cli/explore_report.h"
#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/run/runner.h"

namespace lockstep::cli {
namespace {

// What the demo says of its own, in one place.
constexpr const char* kPartTitles[kDemoParts] = {
    "1. lockstep searches the naive takeover (GET, DEL, SETNX) for a race",
    "2. The same race as the SETNX documentation tells it",
    "3. The documented fix: take over with GETSET",
    "4. The fix, verified: every schedule of five clients, for all time",
    "5. C4 lost, but its GETSET overwrote C5's lock: does that matter?",
};
constexpr const char* kPart1Intro =
    "Two clients, a crashed holder C3 whose timestamp expires, every interleaving of their "
    "commands and the clock's ticks (scenarios/setnx-naive.json).";
constexpr const char* kPart4Intro =
    "Five contenders C4 to C8 take over with GETSET the expired lock of a crashed holder C3 "
    "(the names of parts 2, 3 and 5); holders release within T-1 ticks of acquiring and "
    "timestamps are read in the command's own step. The clock has no horizon: the search keeps "
    "times relative to the clock, times further apart than any constant of the scenario are "
    "alike, so the states repeat and the search ends (scenarios/getset-all-time.json, its "
    "clients renamed).";
constexpr const char* kNoRace = "no race found";
constexpr const char* kAsExpected = "as expected";
constexpr const char* kNotAsExpected = "NOT AS EXPECTED";
constexpr const char* kPressEnter = "press Enter for part ";
constexpr const char* kNext = "/getset-unbounded.json  (the fix without the holder's bound)";

// The crashed holder of the documentation's narratives (parts 2, 3 and 5),
// and the first of their GETSET contenders. The searched scenarios name up
// to five contenders C1..C5 and so call their holder C0: the demo gives
// parts 1 and 4 the narratives' names.
constexpr const char* kDocsHolder = "C3";
constexpr int kFirstGetsetContender = 4;

// Prose wraps at the timeline's width, or at 80 without one.
size_t prose_width(const trace::TimelineStyle& timeline) {
  return timeline.width ? timeline.width : 80;
}

class DemoRun {
 public:
  DemoRun(const std::string& dir, const trace::TimelineStyle& timeline)
      : dir_(dir), timeline_(timeline), prose_width_(prose_width(timeline)) {}

  void Part(int n) {
    std::cout << "\n=== " << kPartTitles[n - 1] << " ===\n";
    switch (n) {
      case 1:
        return NaiveRace();
      case 2:
        return Narrative("setnx-docs-race.json");
      case 3:
        return Narrative("getset-docs-fix.json");
      case 4:
        return AllTime();
      default:
        return Translator();
    }
  }
  bool all_as_expected() const { return all_as_expected_; }

 private:
  void Expectation(const scenario::Scenario& s, bool violated, const std::string& property) {
    const bool matches = s.expect.Matches(violated ? property : "");
    std::cout << "expected " << s.expect.Text() << ": " << (matches ? kAsExpected : kNotAsExpected)
              << "\n";
    all_as_expected_ = all_as_expected_ && matches;
  }

  scenario::Scenario Load(const std::string& file) const {
    return scenario::LoadScenarioFile(dir_ + "/" + file);
  }

  // 1. The race, found by search with no schedule given.
  void NaiveRace() {
    scenario::Scenario naive = Load("setnx-naive.json");
    naive.world.clients.resize(2);
    naive.algorithms.resize(2);
    for (auto& [key, writer] : naive.world.initial_writers) writer = kDocsHolder;
    std::cout << trace::WrapText(kPart1Intro, prose_width_) << "\n";
    const run::ExploreResult found = run::Explore(naive);
    if (!found.counterexample) {
      std::cout << kNoRace << "\n";
      all_as_expected_ = false;
      return;
    }
    const trace::Trace& t = found.counterexample->trace;
    std::cout << "found after " << Thousands(found.search.stats.states) << " states and "
              << Thousands(found.search.stats.transitions) << " transitions; the shortest race has "
              << t.schedule.size() << " steps:\n\n"
              << trace::Timeline(t, timeline_);
    Expectation(naive, true, t.violation->property);
  }

  // 2 and 3. The documentation's own narratives.
  void Narrative(const std::string& file) {
    const scenario::Scenario s = Load(file);
    std::cout << trace::WrapText(base::Printable(s.description), timeline_.width) << "\n";
    const trace::Trace t = run::ReplaySchedule(s);
    std::cout << trace::Timeline(t, timeline_);
    Expectation(s, t.violation.has_value(), t.violation ? t.violation->property : "");
  }

  // 4. The fix over every schedule, without a horizon: what the search
  // covers is what `lockstep explore` reports of it.
  void AllTime() {
    scenario::Scenario s = Load("getset-all-time.json");
    for (auto& [key, writer] : s.world.initial_writers) writer = kDocsHolder;
    for (size_t i = 0; i < s.world.clients.size(); ++i) {
      s.world.clients[i].name = "C" + std::to_string(kFirstGetsetContender + static_cast<int>(i));
    }
    std::cout << trace::WrapText(kPart4Intro, prose_width_);
    const run::ExploreResult r = run::Explore(s);
    std::cout << trace::WrapText("exhaustive search of scenarios/getset-all-time.json: " +
                                     std::string(explore::VerdictText(r.search.verdict)) + " (" +
                                     Thousands(r.search.stats.states) + " distinct states, " +
                                     Thousands(r.search.stats.transitions) + " transitions)",
                                 prose_width_);
    if (r.safe() && r.exhaustive) {
      const std::string covers = SafeText(s, r);  // lines, each ending in a newline
      for (size_t at = 0; at < covers.size();) {
        const size_t end = std::min(covers.find('\n', at), covers.size());
        std::cout << trace::WrapText(covers.substr(at, end - at), prose_width_);
        at = end + 1;
      }
    }
    Expectation(s, r.counterexample.has_value(),
                r.counterexample ? r.counterexample->trace.violation->property : "");
  }

  // 5. The question a translator of the SETNX page asked: C4 lost the
  // GETSET race, but wrote its own timestamp over C5's lock.
  void Translator() {
    for (const char* file : {"getset-loser-overwrite-safe.json", "getset-loser-overwrite.json"}) {
      const scenario::Scenario s = Load(file);
      std::cout << "\n" << trace::WrapText(base::Printable(s.description), prose_width_);
      const run::ExploreResult r = run::Explore(s);
      std::string found = "exhaustive search of scenarios/" + std::string(file) + ": " +
                          explore::VerdictText(r.search.verdict) + " (" +
                          Thousands(r.search.stats.states) + " distinct states";
      if (r.counterexample) {
        found += "; its shortest counterexample has " +
                 std::to_string(r.counterexample->trace.schedule.size()) + " steps";
      }
      // The story as the description tells it, names and all; a contender
      // the search needs but the story does not leaves no empty lane.
      std::cout << trace::WrapText(found + "); the scenario's schedule:", prose_width_) << "\n"
                << trace::Timeline(run::ReplaySchedule(WithoutIdleTail(s)), timeline_);
      Expectation(s, r.counterexample.has_value(),
                  r.counterexample ? r.counterexample->trace.violation->property : "");
    }
  }

  // `s` without its last clients that neither crashed at the start nor act
  // in its schedule (the schedule's client indices stay as they are).
  static scenario::Scenario WithoutIdleTail(scenario::Scenario s) {
    size_t keep = s.world.clients.size();
    auto acts = [&](size_t c) {
      for (const world::Action& a : s.schedule) {
        if (a.client == static_cast<int>(c)) return true;
      }
      return false;
    };
    while (keep > 0 && !s.world.clients[keep - 1].crashed && !acts(keep - 1)) --keep;
    s.world.clients.resize(keep);
    s.algorithms.resize(keep);
    if (s.may_never_enter.size() > keep) s.may_never_enter.resize(keep);
    return s;
  }

  const std::string dir_;
  const trace::TimelineStyle timeline_;
  const size_t prose_width_;
  bool all_as_expected_ = true;
};

}  // namespace

int Demo(const std::string& dir, const trace::TimelineStyle& timeline, int part,
         std::istream* pause) {
  DemoRun demo(dir, timeline);
  try {
    for (int n = 1; n <= kDemoParts; ++n) {
      if (part != 0 && n != part) continue;
      if (pause && part == 0 && n > 1) {
        std::cout << "\n" << kPressEnter << n << " " << std::flush;
        std::string line;
        if (!std::getline(*pause, line)) pause = nullptr;  // input closed: go on without
      }
      demo.Part(n);
    }
  } catch (const std::exception& e) {
    PrintError(e.what());
    return kExitBadInput;
  }
  if (part == 0 || part == kDemoParts) {
    std::cout << "\n"
              << trace::WrapText("Next: lockstep explore " + dir + kNext, prose_width(timeline));
  }
  return demo.all_as_expected() ? kExitSafe : kExitViolation;
}

}  // namespace lockstep::cli
