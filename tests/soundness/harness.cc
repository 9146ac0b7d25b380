#include "tests/soundness/harness.h"

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "sim/check/liveness.h"
#include "sim/explore/communicator.h"
#include "sim/explore/liveness.h"
#include "sim/scenario/scenario.h"

namespace lockstep::soundness {

using nlohmann::json;

std::string Disagreement::Text() const {
  if (check == "all time") return check + ": expected " + expected + ", " + mode + " " + got;
  if (check == "liveness" || check == "probabilistic") {
    return check + ": the oracle " + expected + ", " + mode + " " + got;
  }
  if (check == "bitstate") return check + ": exact storage " + expected + ", " + mode + " " + got;
  return check + ": plain enumeration " + expected + ", " + mode + " " + got;
}

std::vector<Mode> ExploreModes() {
  std::vector<Mode> modes;
  for (bool cache : {true, false}) {
    for (bool symmetry : {true, false}) {
      for (bool por : {true, false}) {
        for (int jobs : {1, 2}) {
          if (!cache && (!por || jobs == 2)) continue;  // the command turns both off
          Mode m;
          m.reductions.cache = cache;
          m.reductions.symmetry = symmetry;
          m.reductions.por = cache && por;
          m.jobs = jobs;
          std::string name;
          if (!cache) name += " --no-cache";
          if (!symmetry) name += " --no-symmetry";
          if (cache && !por) name += " --no-por";
          if (jobs == 2) name += " --jobs 2";
          m.name = name.empty() ? "default" : name.substr(1);
          modes.push_back(m);
        }
      }
    }
  }
  for (bool por : {true, false}) {
    Mode m;
    m.reductions.por = por;
    m.jobs = por ? 1 : 2;
    m.storage.kind = explore::Storage::kHashCompact;
    m.name = por ? "--storage hash-compact" : "--storage hash-compact --no-por --jobs 2";
    modes.push_back(m);
  }
  // States kept whole: they must tell apart exactly the states the
  // fingerprints do (a datum the packing left out would merge two).
  for (bool reduced : {true, false}) {
    Mode m;
    m.reductions.symmetry = reduced;
    m.reductions.por = reduced;
    m.jobs = reduced ? 1 : 2;
    m.storage.kind = explore::Storage::kExact;
    m.name = reduced ? "--storage exact" : "--storage exact --no-symmetry --no-por --jobs 2";
    modes.push_back(m);
  }
  // Breadth first, states partitioned by fingerprint: with symmetry on two
  // and three ranks, without on one and two.
  for (int ranks : {1, 2, 3}) {
    for (bool symmetry : {true, false}) {
      if ((ranks == 3 && !symmetry) || (ranks == 1 && symmetry)) continue;
      Mode m;
      m.reductions.symmetry = symmetry;
      m.reductions.por = false;
      m.ranks = ranks;
      m.name = "--distributed on " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") +
               (symmetry ? "" : " --no-symmetry");
      modes.push_back(m);
      if (ranks == 2 && symmetry) {
        m.storage.kind = explore::Storage::kExact;
        m.name += " --storage exact";
        modes.push_back(m);
      }
    }
  }
  Mode forgetful;
  forgetful.max_memo_bytes = 2'048;
  forgetful.name = "default, each automaton forgetting its transitions past 2 KB";
  modes.push_back(forgetful);
  return modes;
}

Mode PlainEnumeration() {
  Mode m;
  m.name = "plain enumeration";
  m.reductions = {.cache = false, .symmetry = false, .por = false, .forget_history = false};
  return m;
}

namespace {

// A property's ghost state without its check: the set of reachable states
// is compared with ghost data in the fingerprints, and no violation cuts
// the search short.
class GhostOnly final : public check::Property {
 public:
  explicit GhostOnly(std::unique_ptr<check::Property> p) : Property(p->info()), p_(std::move(p)) {}
  std::optional<check::Violation> Check(const world::Model&, const world::WorldState&,
                                        int) const override {
    return std::nullopt;
  }

 private:
  std::unique_ptr<check::Property> p_;
};

}  // namespace

std::string Outcome::Verdict() const {
  if (result.verdict == explore::Verdict::kViolation)
    return "violation:" + result.violation->property;
  return explore::VerdictText(result.verdict);
}

explore::SearchResult DistributedOnThreads(const world::WorldConfig& config,
                                           const explore::Properties& properties,
                                           const explore::SearchOptions& options, int ranks) {
  std::vector<std::unique_ptr<explore::Communicator>> group = explore::InProcessGroup(ranks);
  std::vector<explore::SearchResult> results(static_cast<size_t>(ranks));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks));
  std::vector<std::thread> threads;
  for (size_t r = 0; r < group.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        results[r] = explore::DistributedSearch(config, properties, options, *group[r]);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results.front();
}

Outcome Search(const scenario::Scenario& s, const explore::Properties& properties, const Mode& mode,
               bool collect_states, const Limits& limits) {
  explore::SearchOptions o;
  o.reductions = mode.reductions;
  o.jobs = mode.jobs;
  o.storage = mode.storage;
  // The same bound in every mode: `explore --max-steps`.
  if (mode.step_bound) o.bounds.max_steps = s.max_steps;
  // Without one, an execution this long stops the search, incomplete, as
  // `explore` stops one that runs away (a client that never forgets).
  if (!mode.step_bound) o.bounds.runaway_steps = kRunawaySteps;
  o.bounds.preemptions = mode.preemptions;
  o.bounds.max_states = limits.max_states;
  // Counted exactly, so that the same scenarios are "too large" on every
  // machine. Plain enumeration applies the most: every other mode's
  // transitions are among the paths it walks (a cached search walks each
  // at most once), so when it finishes within the budget so do they. The
  // distributed search, breadth first, expands each state once.
  o.bounds.max_transitions = limits.max_transitions;
  o.collect_states = collect_states;
  world::WorldConfig world = s.world;
  if (mode.max_memo_bytes) {
    for (world::ClientSetup& c : world.clients) c.max_memo_bytes = mode.max_memo_bytes;
  }
  Outcome out;
  out.result = mode.ranks > 0 ? DistributedOnThreads(world, properties, o, mode.ranks)
                              : explore::DepthFirstSearch(world, properties, o);
  const std::string& why = out.result.incomplete;
  out.out_of_time = out.result.verdict == explore::Verdict::kIncomplete &&
                    (why == explore::TransitionBudgetText(limits.max_transitions) ||
                     (limits.max_states && why == explore::StateBudgetText(*limits.max_states)));
  std::sort(out.result.states.begin(), out.result.states.end(),
            [](const explore::Fingerprint& x, const explore::Fingerprint& y) {
              return std::tie(x.a, x.b) < std::tie(y.a, y.b);
            });
  return out;
}

explore::Properties GhostProperties(const std::vector<std::string>& names) {
  explore::Properties out;
  for (auto& p : explore::MakeProperties(names))
    out.push_back(std::make_unique<GhostOnly>(std::move(p)));
  return out;
}

namespace {

// "12 states" or "12 states (3 missing, 1 extra)".
std::string StatesText(const std::vector<explore::Fingerprint>& got,
                       const std::vector<explore::Fingerprint>& expected) {
  auto less = [](const explore::Fingerprint& x, const explore::Fingerprint& y) {
    return std::tie(x.a, x.b) < std::tie(y.a, y.b);
  };
  std::vector<explore::Fingerprint> missing, extra;
  std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(),
                      std::back_inserter(missing), less);
  std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra), less);
  std::string text = std::to_string(got.size()) + " states";
  if (!missing.empty() || !extra.empty()) {
    text += " (" + std::to_string(missing.size()) + " missing, " + std::to_string(extra.size()) +
            " extra)";
  }
  return text;
}

}  // namespace

std::optional<Disagreement> CompareLiveness(const scenario::Scenario& s, bool* compared,
                                            std::string* verdict) {
  const std::vector<std::string> liveness = check::LivenessIn(s.properties);
  if (liveness.empty()) return std::nullopt;
  // On the whole graph (explore judges it once the safety properties hold;
  // the graph is the same either way).
  const explore::LassoSearch lasso = explore::FindLasso(s.world, liveness, true, kLivenessStates);
  const std::string oracle = LivenessOracle(s.world, liveness, kLivenessStates);
  if (lasso.verdict == explore::Verdict::kIncomplete || oracle == "incomplete") return std::nullopt;
  *compared = true;
  if (verdict) *verdict = oracle;
  const std::string found = lasso.verdict == explore::Verdict::kViolation
                                ? "violation:" + lasso.violation->property
                                : explore::VerdictText(lasso.verdict);
  if (found == oracle) return std::nullopt;
  return Disagreement{"liveness", "fair cycles", oracle, found};
}

PlainOracle::PlainOracle(const scenario::Scenario& s, const Limits& limits, Mode mode)
    : s_(s),
      limits_(limits),
      mode_(std::move(mode)),
      plain_(Search(s, explore::MakeProperties(s.properties), mode_, false, limits)) {}

std::optional<bool> PlainOracle::Reaches(const std::string& property) const {
  if (plain_.result.violation && plain_.result.violation->property == property) return true;
  if (!reachable_.count(property)) {
    const Outcome one = Search(s_, explore::MakeProperties({property}), mode_, false, limits_);
    if (one.out_of_time) return std::nullopt;
    reachable_[property] = one.result.verdict == explore::Verdict::kViolation;
  }
  return reachable_[property];
}

std::optional<bool> PlainOracle::Agrees(explore::Verdict verdict,
                                        const std::optional<check::Violation>& violation,
                                        bool must_find) const {
  const bool plain_violation = plain_.result.verdict == explore::Verdict::kViolation;
  if (verdict == explore::Verdict::kViolation) {
    // Another search may meet another violated property first.
    return violation ? Reaches(violation->property) : std::optional<bool>(false);
  }
  if (must_find && plain_violation) return false;
  // Under the step bound a cached search may finish where plain
  // enumeration is cut short (it reaches each state by a shortest path),
  // never the reverse.
  if (verdict == explore::Verdict::kSafe) return !plain_violation;
  return !must_find || plain_.result.verdict != explore::Verdict::kSafe;
}

namespace {
Comparison CompareLoaded(const scenario::Scenario& s, Comparison c, const Limits& limits);
}  // namespace

Comparison Compare(const json& document, const Limits& limits) {
  Comparison c;
  scenario::Scenario s;
  try {
    s = scenario::LoadScenario(document, "random");
  } catch (const scenario::ScenarioError&) {
    return c;
  }
  c.loaded = true;
  // A search that throws (a client automaton that is not a function of
  // what it observed) is a finding too: which mode, and what it said.
  try {
    return CompareLoaded(s, c, limits);
  } catch (const std::exception& e) {
    c.finished = true;
    c.disagreements.push_back({"error", "a search", "no error", e.what()});
    return c;
  }
}

namespace {

Comparison CompareLoaded(const scenario::Scenario& s, Comparison c, const Limits& limits) {
  // Verdicts, the properties checked.
  const explore::Properties properties = explore::MakeProperties(s.properties);
  const PlainOracle plain_oracle(s, limits);
  const Outcome& plain = plain_oracle.outcome();
  if (plain.out_of_time) return c;
  c.plain_verdict = plain.Verdict();
  for (const Mode& mode : ExploreModes()) {
    const Outcome m = Search(s, properties, mode, false, limits);
    if (m.out_of_time) return c;
    const std::optional<bool> agree =
        plain_oracle.Agrees(m.result.verdict, m.result.violation, true);
    if (!agree) return c;
    if (!*agree) c.disagreements.push_back({"verdict", mode.name, plain.Verdict(), m.Verdict()});
  }

  // Reachable states, ghost data included: each cached search against plain
  // enumeration naming states the same way.
  const explore::Properties ghost = GhostProperties(s.properties);
  for (bool forget_history : {false, true}) {
    for (bool symmetry : {false, true}) {
      if (forget_history && symmetry) continue;
      Mode oracle = PlainEnumeration();
      oracle.reductions.forget_history = forget_history;
      oracle.reductions.symmetry = symmetry;  // without caching it only names states
      const Outcome expected = Search(s, ghost, oracle, true, limits);
      if (expected.out_of_time) return c;
      for (const Mode& mode : ExploreModes()) {
        if (!mode.reductions.cache || mode.reductions.symmetry != symmetry) continue;
        Mode cached = mode;
        cached.reductions.forget_history = forget_history;
        if (!forget_history) cached.name += " (no ForgetHistory)";
        const Outcome got = Search(s, ghost, cached, true, limits);
        if (got.out_of_time) return c;
        if (got.result.states != expected.result.states) {
          c.disagreements.push_back({"states", cached.name,
                                     std::to_string(expected.result.states.size()) + " states",
                                     StatesText(got.result.states, expected.result.states)});
        }
      }
    }
  }
  if (std::optional<Disagreement> d = CompareLiveness(s, &c.liveness_compared)) {
    c.disagreements.push_back(std::move(*d));
  }
  bool weighed = false;
  if (std::optional<Disagreement> d = CompareProbabilistic(s, c.plain_verdict, &weighed)) {
    c.disagreements.push_back(std::move(*d));
  }
  if (weighed) c.checks.push_back("probabilistic");
  if (!s.world.horizon) {
    for (Disagreement& d : CompareAllTime(s, c.plain_verdict, limits, &c.all_time_compared)) {
      c.disagreements.push_back(std::move(d));
    }
  }
  for (Disagreement& d : CompareLayers(s, plain_oracle, limits, &c.checks)) {
    c.disagreements.push_back(std::move(d));
  }
  if (limits.processes) {
    for (Disagreement& d : CompareProcesses(s.document, plain_oracle, &c.checks)) {
      c.disagreements.push_back(std::move(d));
    }
  }
  if (c.all_time_compared) c.checks.push_back("all time");
  if (c.liveness_compared) c.checks.push_back("liveness");
  c.finished = true;
  return c;
}

// Smaller variants of a scenario document, the likeliest to help first.
std::vector<json> SmallerVariants(const json& doc) {
  std::vector<json> out;
  auto erase_at = [&](const char* array, size_t i) {
    json d = doc;
    d[array].erase(i);
    out.push_back(d);
  };
  for (size_t i = doc["clients"].size(); i-- > 0;) erase_at("clients", i);
  if (doc.contains("servers")) {
    for (size_t i = doc["servers"].size(); i-- > 0;) erase_at("servers", i);
    json d = doc;
    d.erase("servers");
    out.push_back(d);
  }
  if (doc.contains("faults")) {
    for (const auto& [kind, budget] : doc["faults"].items()) {
      json d = doc;
      if (budget.is_number_integer() && budget.get<int>() > 0) {
        d["faults"][kind] = budget.get<int>() - 1;
        out.push_back(d);
      }
      d = doc;
      d["faults"].erase(kind);
      out.push_back(d);
    }
  }
  for (const char* field : {"keyspace", "resource", "assumptions", "server", "seed", "faults"}) {
    if (doc.contains(field)) {
      json d = doc;
      d.erase(field);
      out.push_back(d);
    }
  }
  if (doc.contains("keyspace")) {
    for (size_t i = 0; i < doc["keyspace"].size(); ++i) erase_at("keyspace", i);
  }
  if (doc["properties"].size() > 1) {
    for (size_t i = 0; i < doc["properties"].size(); ++i) erase_at("properties", i);
  }
  for (size_t i = 0; i < doc["clients"].size(); ++i) {
    for (const char* field : {"lock", "skew"}) {
      if (doc["clients"][i].contains(field)) {
        json d = doc;
        d["clients"][i].erase(field);
        out.push_back(d);
      }
    }
    // An algorithm is a name or a Lua one's object.
    const json first = doc["clients"][0].value("algorithm", json("setnx-naive"));
    if (i > 0 && doc["clients"][i].value("algorithm", json("setnx-naive")) != first) {
      json d = doc;
      d["clients"][i]["algorithm"] = first;
      out.push_back(d);
    }
  }
  for (const char* section : {"lock", "assumptions"}) {
    if (!doc.contains(section)) continue;
    for (const auto& [field, value] : doc[section].items()) {
      json d = doc;
      d[section].erase(field);
      out.push_back(d);
      if (value.is_number_integer() && value.get<int>() > 0) {
        d = doc;
        d[section][field] = value.get<int>() - 1;
        out.push_back(d);
      }
    }
  }
  const json& clock = doc["clock"];
  const bool horizon = clock["horizon"].is_number_integer();  // else all time
  if (horizon && clock["horizon"].get<int>() > clock.value("start", 0)) {
    json d = doc;
    d["clock"]["horizon"] = clock["horizon"].get<int>() - 1;
    out.push_back(d);
  }
  if (clock.value("start", 0) > 0) {
    json d = doc;
    d["clock"]["start"] = clock["start"].get<int>() - 1;
    if (horizon) d["clock"]["horizon"] = clock["horizon"].get<int>() - 1;
    out.push_back(d);
  }
  if (doc["max_steps"].get<int>() > 1) {
    json d = doc;
    d["max_steps"] = doc["max_steps"].get<int>() - 1;
    out.push_back(d);
  }
  return out;
}

}  // namespace

json Shrink(const json& document, const Disagreement& found, const Limits& limits,
            const std::function<void(const json&)>& progress) {
  json best = document;
  auto still = [&](const json& candidate) {
    Comparison c = Compare(candidate, limits);
    return std::any_of(c.disagreements.begin(), c.disagreements.end(), [&](const Disagreement& d) {
      return d.check == found.check && d.mode == found.mode;
    });
  };
  for (bool smaller = true; smaller;) {
    smaller = false;
    for (const json& candidate : SmallerVariants(best)) {
      if (still(candidate)) {
        best = candidate;
        smaller = true;
        if (progress) progress(best);
        break;
      }
    }
  }
  return best;
}

json RegressionDocument(json shrunk, const Disagreement& d, const std::string& plain_verdict,
                        uint64_t seed) {
  shrunk["name"] = "soundness-" + std::to_string(seed);
  shrunk["description"] =
      "Shrunk from random scenario " + std::to_string(seed) + ": " + d.Text() + ".";
  shrunk["expect"] = plain_verdict.starts_with("violation:") ? plain_verdict : "safe";
  // The Lua ports by their path from tests/soundness/regressions/.
  const std::string ports = LuaPortPath("");
  for (json& c : shrunk["clients"]) {
    if (!c.contains("algorithm") || !c["algorithm"].is_object()) continue;
    json& a = c["algorithm"];
    if (a.contains("lua") && a["lua"].get<std::string>().starts_with(ports)) {
      a["lua"] = "../../../examples/lua/" + a["lua"].get<std::string>().substr(ports.size());
    }
  }
  return shrunk;
}

}  // namespace lockstep::soundness
