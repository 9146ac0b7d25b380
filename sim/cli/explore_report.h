// What `lockstep explore` reports of a search, as text and as --json: the
// header, the storage, the symmetry, and what a SAFE covers.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/base/join.h"
#include "sim/cli/explore_command.h"
#include "sim/explore/search.h"
#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"

namespace lockstep::cli {

using base::Thousands;
// With exact storage, hash compaction or bitstate, what the visited states
// took and how sure a SAFE verdict is: "" with fingerprints (the default).
std::string StorageText(const explore::StorageOptions& storage, const explore::SearchStats& st);
// The --json report's fields, short of the counterexample.
nlohmann::json MakeReport(const ExploreOptions& o, const scenario::Scenario& s,
                          const run::ExploreResult& result);
// The text report's first lines: what was searched, and the counts.
std::string SearchHeader(const ExploreOptions& o, const scenario::Scenario& s,
                         const run::ExploreResult& result);
// A SAFE verdict's lines: what it covers, and who entered the critical
// section in some schedule (a SAFE in which a client never entered is
// vacuous for it).
std::string SafeText(const scenario::Scenario& s, const run::ExploreResult& result);
// The odds of each safety property's violation (run::ExploreResult::odds),
// into report["odds"] and as text; nothing without them.
void AddOdds(const run::ExploreResult& result, nlohmann::json& report, std::ostream& text);
// The counterexample as a regression test pins it: OneLine's form, in the
// --json report's counterexample as "one_line", and in the text report as
// the call to paste into a test.
void AddOneLine(const trace::Trace& t, nlohmann::json& counterexample, std::ostream& text);

}  // namespace lockstep::cli
