#include "sim/cli/explore_report.h"

#include <optional>
#include <sstream>
#include <vector>

#include "lockstep/lockstep.h"
#include "sim/base/join.h"
#include "sim/check/liveness.h"
#include "sim/explore/fingerprint.h"
#include "sim/world/model.h"

namespace lockstep::cli {

using nlohmann::json;

namespace {

double BytesPerState(const explore::SearchStats& st) {
  return st.states ? static_cast<double>(st.memory_bytes) / static_cast<double>(st.states) : 0;
}

json OptionalJson(const std::optional<world::Millis>& v) { return v ? json(*v) : json(nullptr); }

// What symmetry may do in an exhaustive search with it: which clients it
// may swap (names, per class) and whether their tokens are renamed.
struct SymmetryReport {
  std::vector<std::vector<std::string>> classes;
  bool tokens_renamed = false;
};
// What symmetry does with the interchangeable clients' random tokens.
std::string TokensText(const SymmetryReport& symmetry, const run::ExploreResult& result) {
  if (symmetry.tokens_renamed) {
    return ", their random tokens renamed with them" +
           std::string(result.tokens_inferred.empty()
                           ? ""
                           : " (no reply " + base::JoinWithAnd(result.tokens_inferred) +
                                 " read held one, as their runs checked)");
  }
  if (!result.tokens_read_back.empty()) {
    return "; their random tokens are not renamed, since " + result.tokens_reader +
           " reads one back, so states that differ in them stay apart";
  }
  return "";
}

std::optional<SymmetryReport> SymmetryOf(const scenario::Scenario& s,
                                         const run::ExploreResult& result) {
  if (!result.request.search.reductions.symmetry || !result.exhaustive) return std::nullopt;
  SymmetryReport report;
  // The classes the search used, as it reports them.
  for (const std::vector<int>& cls : result.search.symmetry_classes) {
    report.classes.emplace_back();
    for (int i : cls) report.classes.back().push_back(s.world.clients[i].name);
  }
  report.tokens_renamed = !report.classes.empty() && result.tokens_renamed;
  return report;
}

}  // namespace

std::string StorageText(const explore::StorageOptions& storage, const explore::SearchStats& st) {
  if (storage.kind == explore::Storage::kFingerprint || st.memory_bytes == 0) return "";
  std::ostringstream text;
  text.precision(3);
  text << "storage " << explore::StorageName(storage.kind) << ": "
       << static_cast<double>(st.memory_bytes) / (1 << 20) << " MiB, " << BytesPerState(st)
       << " bytes a state; ";
  if (storage.kind == explore::Storage::kExact) {
    text << "every state kept whole (none taken for another)\n";
  } else {
    text << "expected states missed " << st.expected_omissions
         << " (a SAFE verdict is probabilistic; a violation is always real)\n";
  }
  return text.str();
}

json MakeReport(const ExploreOptions& o, const scenario::Scenario& s,
                const run::ExploreResult& result) {
  const explore::StrategyRequest& request = result.request;
  const explore::SearchResult& r = result.search;
  const explore::SearchOptions& options = request.search;
  const bool exhaustive = result.exhaustive;
  // The bound the search ran under: sampling always stops at max_steps.
  const std::optional<int> step_bound =
      exhaustive ? options.bounds.max_steps : std::optional<int>(request.max_steps);
  const world::Assumptions& a = s.world.assumptions;
  json report = {{"scenario", o.file},
                 {"name", s.name},
                 {"expect", s.expect.stated ? json(s.expect.Text()) : json(nullptr)},
                 {"strategy", o.strategy},
                 {"verdict", explore::VerdictText(r.verdict)},
                 {"clients", json::array()},
                 {"bounds",
                  {{"horizon", OptionalJson(s.world.horizon)},
                   {"max_steps", step_bound ? json(*step_bound) : json(nullptr)},
                   {"preemptions", o.preemptions ? json(*o.preemptions) : json(nullptr)},
                   {"max_arg_delay", OptionalJson(a.max_arg_delay)},
                   {"holders_release_in_time", a.holders_release_in_time},
                   {"max_hold_ticks", OptionalJson(a.max_hold_ticks)},
                   {"max_ready_ticks", OptionalJson(a.max_ready_ticks)},
                   {"draws", s.world.probabilistic ? "probabilistic" : "adversary"}}},
                 {"reductions",
                  {{"cache", options.reductions.cache},
                   {"symmetry", options.reductions.symmetry},
                   {"por", options.reductions.por}}},
                 {"executions", r.stats.executions},
                 {"states", r.stats.states},
                 {"transitions", r.stats.transitions},
                 {"max_depth", r.stats.max_depth},
                 {"elapsed_s", r.stats.elapsed_s},
                 {"jobs", o.jobs},
                 {"max_memory", o.max_memory}};
  if (r.stats.memory_bytes > 0) {
    report["storage"] = {{"kind", explore::StorageName(options.storage.kind)},
                         {"bytes", r.stats.memory_bytes},
                         {"bytes_per_state", BytesPerState(r.stats)},
                         {"expected_omissions", r.stats.expected_omissions}};
  }
  for (const auto& c : s.world.clients) report["clients"].push_back(c.name);
  if (const std::optional<SymmetryReport> symmetry = SymmetryOf(s, result)) {
    report["reductions"]["interchangeable"] = json::array();
    for (const auto& names : symmetry->classes) {
      report["reductions"]["interchangeable"].push_back(names);
    }
    report["reductions"]["tokens_renamed"] = symmetry->tokens_renamed;
    if (!result.tokens_inferred.empty()) {
      report["reductions"]["tokens_never_read_inferred"] = result.tokens_inferred;
    }
    if (!result.tokens_read_back.empty()) {
      report["reductions"]["tokens_read_back"] = result.tokens_read_back;
    }
  }
  if (!exhaustive) report["executions_requested"] = o.executions;
  if (r.verdict == explore::Verdict::kIncomplete) report["incomplete"] = r.incomplete;
  if (!r.warnings.empty()) report["warnings"] = r.warnings;
  if (result.vacuity) {
    report["vacuous"] = result.vacuous();
    report["entered"] = result.entered;
    report["never_entered"] = result.never_entered;
  }
  return report;
}

std::string SearchHeader(const ExploreOptions& o, const scenario::Scenario& s,
                         const run::ExploreResult& result) {
  const explore::SearchResult& r = result.search;
  std::ostringstream text;
  std::string names;
  for (const auto& c : s.world.clients) names += (names.empty() ? "" : ",") + c.name;
  text << "explore " << o.file << ": strategy " << o.strategy
       << (o.default_strategy && o.strategy == "bfs" ? " (the default without a horizon)" : "")
       << ", clients " << names << ", " << world::HorizonText(s.world.horizon) << "\n";
  text << "search: " << Thousands(r.stats.executions) << " executions, "
       << Thousands(r.stats.states) << " distinct states, " << Thousands(r.stats.transitions)
       << " transitions, max depth " << r.stats.max_depth << ", " << r.stats.elapsed_s << " s\n";
  // Which clients symmetry may swap: a user who sees no reduction learns why.
  if (const std::optional<SymmetryReport> symmetry = SymmetryOf(s, result)) {
    std::string classes;
    for (const auto& members : symmetry->classes) {
      classes += classes.empty() ? "" : "; ";
      for (size_t k = 0; k < members.size(); ++k) classes += (k == 0 ? "" : ",") + members[k];
    }
    text << "symmetry: "
         << (classes.empty() ? "no two clients are interchangeable (that takes the same "
                               "algorithm, settings and skew, and random values drawn "
                               "only as tokens)"
                             : classes + " interchangeable" + TokensText(*symmetry, result))
         << "\n";
  }
  return text.str();
}

std::string SafeText(const scenario::Scenario& s, const run::ExploreResult& result) {
  std::ostringstream text;
  // With probabilistic draws a liveness property is not kept in every
  // schedule, but with probability 1 (docs/design.md, "Probabilistic choices").
  std::vector<std::string> every, almost_surely;
  for (const std::string& p : s.properties) {
    (s.world.probabilistic && check::IsLiveness(p) ? almost_surely : every).push_back(p);
  }
  text << "SAFE: no violation of ";
  for (size_t i = 0; i < every.size(); ++i) text << (i ? ", " : "") << every[i];
  text << " in any schedule";
  if (!almost_surely.empty()) {
    text << ", and ";
    for (size_t i = 0; i < almost_surely.size(); ++i) text << (i ? ", " : "") << almost_surely[i];
    text << (almost_surely.size() == 1 ? " holds" : " hold")
         << " with probability 1 under every fair scheduler (each random draw's values as "
            "likely),";
  }
  text << " "
       << (s.world.horizon ? "within these bounds (" + world::HorizonText(s.world.horizon) + ")"
                           : "for all time")
       << "\n";
  if (!result.vacuity) return text.str();
  if (result.vacuous()) {
    const bool one = result.never_entered.size() == 1;
    text << "VACUOUS: " << base::JoinWithAnd(result.never_entered)
         << " never entered the critical section in any schedule, so the verdict says nothing "
            "about what "
         << (one ? "it does" : "they do")
         << " inside (a client that need not enter is marked \"may_never_enter\": true)\n";
    return text.str();
  }
  const std::vector<std::string>& entered = result.entered;
  if (!entered.empty()) {
    text << "entered: " << base::JoinWithAnd(entered)
         << (entered.size() == 1 ? " enters" : " each enter")
         << " the critical section in some schedule\n";
  }
  return text.str();
}

void AddOdds(const run::ExploreResult& result, json& report, std::ostream& text) {
  if (!result.odds) return;
  const explore::OddsSearch& odds = *result.odds;
  if (odds.verdict != explore::Verdict::kSafe) {
    report["odds"] = {{"incomplete", odds.incomplete}};
    text << "odds: not weighed (" << odds.incomplete << ")\n";
    return;
  }
  // What the numbers are over: every scheduler, fair or not; each draw's
  // values as likely.
  text << "odds over every scheduler, each draw's values as likely ("
       << Thousands(odds.stats.states) << " states, " << odds.stats.elapsed_s << " s):\n";
  json list = json::array();
  for (const explore::PropertyOdds& o : odds.odds) {
    json entry = {{"property", o.property},
                  {"exact", o.exact},
                  {"least", {o.least_lower, o.least_upper}},
                  {"greatest", {o.greatest_lower, o.greatest_upper}}};
    if (o.exact) {
      entry["least_exact"] = o.least.str();
      entry["greatest_exact"] = o.greatest.str();
    } else {
      entry["precision"] = mdp::OddsOptions{}.precision;
    }
    if (o.certain_after) entry["certain_after_step"] = *o.certain_after;
    list.push_back(std::move(entry));
    text << "  " << o.property << " is violated with probability " << explore::LeastText(o)
         << " at least and " << explore::GreatestText(o) << " at most"
         << (o.exact ? " (exact)" : " (bounds of value iteration)");
    if (o.certain_after) {
      text << "; certain after step " << *o.certain_after
           << " of the counterexample, whatever the scheduler does next";
    }
    text << "\n";
  }
  report["odds"] = {{"states", odds.stats.states},
                    {"transitions", odds.stats.transitions},
                    {"elapsed_s", odds.stats.elapsed_s},
                    {"properties", std::move(list)}};
}

void AddOneLine(const trace::Trace& t, json& counterexample, std::ostream& text) {
  counterexample["one_line"] = trace::OneLine(t);
  text << "pin it in a test: lockstep::HasCounterexample(" << OneLineLiteral(t) << ")\n";
}

}  // namespace lockstep::cli
