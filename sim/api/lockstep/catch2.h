// Catch2 matchers for regression tests of a lock, for Catch2 2 (Debian 12)
// and Catch2 3 alike:
//
//   REQUIRE_THAT(lockstep::Explore("safe.json"), lockstep::IsSafe());
//   REQUIRE_THAT(lockstep::Explore("stall.json"), lockstep::Violates("mutual_exclusion"));
//   REQUIRE_THAT(lockstep::Explore("stall.json"), lockstep::HasCounterexample("C1 SET ..."));
//
// When one fails, Catch2 prints the result: the verdict, the counts and, for
// a violation, the counterexample's timeline step by step, then the
// counterexample as the C++ string literals to paste into
// HasCounterexample(...), in lines short enough that Catch2 wraps none.
//
// Which Catch2: LOCKSTEP_CATCH2_MAJOR (2 or 3), which lockstep_link_catch2()
// of lockstep's CMake package sets from the Catch2 find_package found;
// otherwise the one already included; otherwise Catch2 3 if its headers are
// on the include path, else Catch2 2.
#pragma once

#include <sstream>
#include <string>

#ifndef LOCKSTEP_CATCH2_MAJOR
#if defined(CATCH_VERSION_MAJOR)
#define LOCKSTEP_CATCH2_MAJOR CATCH_VERSION_MAJOR
#elif __has_include(<catch2/catch_test_macros.hpp>)
#define LOCKSTEP_CATCH2_MAJOR 3
#else
#define LOCKSTEP_CATCH2_MAJOR 2
#endif
#endif

#if LOCKSTEP_CATCH2_MAJOR >= 3
#include <catch2/catch_test_macros.hpp>
#include <catch2/catch_tostring.hpp>
#include <catch2/matchers/catch_matchers.hpp>
#else
// A timeline is wide: unless the program chose a width, the file that
// defines CATCH_CONFIG_MAIN (include this header first there) prints 160
// columns. (Catch2 3 takes its width when it is built.)
#ifndef CATCH_CONFIG_CONSOLE_WIDTH
#define CATCH_CONFIG_CONSOLE_WIDTH 160
#endif
#include <catch2/catch.hpp>
#endif

#include "lockstep/lockstep.h"

namespace lockstep::detail {
#if LOCKSTEP_CATCH2_MAJOR >= 3
template <typename T>
using MatcherBase = Catch::Matchers::MatcherBase<T>;
#else
template <typename T>
using MatcherBase = Catch::MatcherBase<T>;
#endif
// Catch2 indents what it prints by two columns and wraps at its console
// width less one: the timeline is fitted to that, and the literals to paste
// to 76 columns, which Catch2 3's width (80, fixed when it is built) keeps
// whole.
inline constexpr size_t kPasteWidth = 76;
#if LOCKSTEP_CATCH2_MAJOR >= 3
inline constexpr size_t kTimelineWidth = kPasteWidth;
#else
inline constexpr size_t kTimelineWidth = CATCH_CONFIG_CONSOLE_WIDTH - 4;
#endif
}  // namespace lockstep::detail

namespace Catch {
template <>
struct StringMaker<lockstep::ExploreResult> {
  static std::string convert(const lockstep::ExploreResult& r) {
    std::ostringstream out;
    out << lockstep::VerdictText(r.search.verdict) << " after " << r.search.stats.states
        << " states and " << r.search.stats.transitions << " transitions";
    if (r.search.verdict == lockstep::Verdict::kIncomplete) out << ": " << r.search.incomplete;
    if (r.vacuous()) {
      out << "; vacuous: never entered the critical section:";
      for (const std::string& name : r.never_entered) out << " " << name;
    }
    if (r.counterexample) {
      const lockstep::Trace& t = r.counterexample->trace;
      out << "\ncounterexample, " << t.schedule.size() << " steps"
          << (r.counterexample->shrunk ? " (shortest)" : "") << ":\n"
          << lockstep::Timeline(t, {.width = lockstep::detail::kTimelineWidth})
          << "to pin it: lockstep::HasCounterexample(\n"
          << lockstep::OneLineLiteral(t, lockstep::detail::kPasteWidth) << ")";
    }
    return out.str();
  }
};
}  // namespace Catch

namespace lockstep {

// Safe: no schedule within the bounds violates a property, the search was
// exhaustive (a sampling search that found nothing proves nothing), and
// every client expected to enter the critical section entered it in some
// schedule (a SAFE in which one never did says nothing about it).
class IsSafeMatcher : public detail::MatcherBase<ExploreResult> {
 public:
  bool match(const ExploreResult& r) const override {
    return r.safe() && r.exhaustive && !r.vacuous();
  }
  std::string describe() const override {
    return "is safe: an exhaustive search found no schedule violating a property, and every "
           "client expected to enter entered";
  }
};
inline IsSafeMatcher IsSafe() { return {}; }

// A schedule violates `property`.
class ViolatesMatcher : public detail::MatcherBase<ExploreResult> {
 public:
  explicit ViolatesMatcher(std::string property) : property_(std::move(property)) {}
  bool match(const ExploreResult& r) const override {
    return r.counterexample && r.counterexample->trace.violation &&
           r.counterexample->trace.violation->property == property_;
  }
  std::string describe() const override { return "violates " + property_; }

 private:
  std::string property_;
};
inline ViolatesMatcher Violates(std::string property) {
  return ViolatesMatcher(std::move(property));
}

// The counterexample is exactly `one_line` (trace::OneLine: every step and
// the violation), so that a change of the lock or of lockstep that changes
// it is seen.
class HasCounterexampleMatcher : public detail::MatcherBase<ExploreResult> {
 public:
  explicit HasCounterexampleMatcher(std::string one_line) : one_line_(std::move(one_line)) {}
  bool match(const ExploreResult& r) const override {
    return r.counterexample && OneLine(r.counterexample->trace) == one_line_;
  }
  std::string describe() const override { return "has the counterexample " + one_line_; }

 private:
  std::string one_line_;
};
inline HasCounterexampleMatcher HasCounterexample(std::string one_line) {
  return HasCounterexampleMatcher(std::move(one_line));
}

}  // namespace lockstep
