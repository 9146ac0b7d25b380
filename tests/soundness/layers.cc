// The harness's checks of what runs around the searches (harness.h,
// CompareLayers): run::Explore as `lockstep explore` runs a scenario (its
// vacuity check, stuck-state count, shrinking, recorded and replayed
// counterexamples and lassos), the sampling strategies, preemption bounds
// and bitstate storage, each against plain enumeration.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/check/liveness.h"
#include "sim/check/property.h"
#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/trace/trace.h"
#include "tests/soundness/harness.h"

namespace lockstep::soundness {
namespace {

// "Violated" once client `i` is inside the critical section: plain
// enumeration with it says whether the client enters in some schedule.
const check::PropertyInfo kEnters{.name = "enters", .reads = 0, .make = nullptr};
class Enters final : public check::Property {
 public:
  explicit Enters(int client) : Property(kEnters), client_(client) {}
  std::optional<check::Violation> Check(const world::Model&, const world::WorldState& s,
                                        int step) const override {
    if (!s.clients[static_cast<size_t>(client_)].in_critical_section) return std::nullopt;
    check::Violation v;
    v.property = std::string(name());
    v.step = step;
    return v;
  }

 private:
  int client_;
};

std::string ViolationText(const std::optional<check::Violation>& v) {
  return v ? "violation:" + v->property + " at step " + std::to_string(v->step) : "no violation";
}

class LayerChecks {
 public:
  LayerChecks(const scenario::Scenario& s, const PlainOracle& plain, const Limits& limits,
              std::vector<std::string>* checks)
      : s_(s), plain_(plain), limits_(limits), checks_(checks) {}

  std::vector<Disagreement> Run() {
    RunLayer();
    Sampling();
    Preemptions();
    Bitstate();
    return std::move(out_);
  }

 private:
  // A violation found by `mode`'s search must be one plain enumeration
  // reaches, and a SAFE plain enumeration's too; false: out of budget.
  bool Judge(const std::string& mode, explore::Verdict verdict,
             const std::optional<check::Violation>& violation) {
    const std::optional<bool> agree = plain_.Agrees(verdict, violation, false);
    if (!agree) return false;
    if (!*agree) {
      const std::string got = verdict == explore::Verdict::kViolation
                                  ? ViolationText(violation)
                                  : explore::VerdictText(verdict);
      out_.push_back({"verdict", mode, plain_.Verdict(), got});
    }
    return true;
  }

  // A recorded trace, saved and replayed as `lockstep replay` reads it,
  // shows the violation it was recorded with; and so does its schedule,
  // written into the scenario as a user would and replayed as `lockstep
  // run` does (a lasso's schedule is its prefix and the cycle twice).
  void Replays(const std::string& what, const trace::Trace& t) {
    const run::ReplayedTrace again = run::ReplaySavedTrace("harness", trace::ToJson(t));
    if (again.trace.violation != t.violation) {
      out_.push_back({"replay", what, ViolationText(t.violation),
                      ViolationText(again.trace.violation) + " replayed"});
    }
    if (t.lasso) return;
    nlohmann::json doc = s_.document;
    doc["schedule"] = t.schedule;
    const trace::Trace scheduled = run::ReplaySchedule(scenario::LoadScenario(doc, "harness"));
    checks_->push_back("schedules");
    if (scheduled.violation != t.violation) {
      out_.push_back({"replay", what + " as a scenario's schedule", ViolationText(t.violation),
                      ViolationText(scheduled.violation) + " replayed"});
    }
  }

  // Without a horizon, liveness is judged once the safety search ends,
  // which under a step bound it does not: searched for all time as well,
  // a lasso it finds is recorded, saved and replayed.
  void Lasso() {
    if (s_.world.horizon || check::LivenessIn(s_.properties).empty()) return;
    // The scenario's max_steps, which bounds the executions plain
    // enumeration walks, is here only where a runaway is called one: as
    // far as the harness's own all-time searches let executions run.
    scenario::Scenario whole = s_;
    whole.max_steps = kRunawaySteps;
    whole.document["max_steps"] = kRunawaySteps;  // as the trace records it
    run::ExploreOptions o;
    o.request.search.bounds.max_transitions = limits_.max_transitions;
    const run::ExploreResult r = run::Explore(whole, o);
    if (!r.counterexample || !r.counterexample->trace.lasso) return;
    const trace::Trace& t = r.counterexample->trace;
    checks_->push_back("lasso replayed");
    Replays("run::Explore's lasso", t);
    // And the property it breaks is one a fair cycle of the graph breaks,
    // as the liveness oracle judges it on its own.
    const std::string property = t.violation ? t.violation->property : "(none)";
    const std::string judged = LivenessOracle(s_.world, {property}, kLivenessStates);
    if (judged != "incomplete" && judged != "violation:" + property) {
      out_.push_back({"liveness", "run::Explore's lasso", judged, "violation:" + property});
    }
  }

  void RunLayer() {
    Lasso();
    run::ExploreOptions o;
    o.request.search.bounds.max_steps = s_.max_steps;
    o.request.search.bounds.max_transitions = limits_.max_transitions;
    const run::ExploreResult r = run::Explore(s_, o);
    if (r.search.verdict == explore::Verdict::kIncomplete) return;
    checks_->push_back("run::Explore");
    if (r.counterexample) {
      const trace::Trace& t = r.counterexample->trace;
      checks_->push_back(t.lasso ? "lasso replayed" : "counterexample replayed");
      Replays("run::Explore's counterexample", t);
      if (!t.lasso && !Judge("run::Explore", r.search.verdict, r.search.violation)) {
        return;
      }
      if (!t.lasso && r.counterexample->shrunk) Shortest(t);
    } else {
      Judge("run::Explore", r.search.verdict, r.search.violation);
    }
    if (r.known_vacuous()) WhoEnters(r);
    if (r.safe() && std::find(s_.properties.begin(), s_.properties.end(), "no_stuck_states") ==
                        s_.properties.end()) {
      Stuck(r);
    }
  }

  // A shrunk counterexample has the fewest steps: plain enumeration finds
  // no violation of any property in fewer.
  void Shortest(const trace::Trace& t) {
    const int steps = static_cast<int>(t.schedule.size());
    if (steps == 0) return;
    scenario::Scenario shorter = s_;
    shorter.max_steps = steps - 1;
    const Outcome fewer =
        Search(shorter, explore::MakeProperties(s_.properties), PlainEnumeration(), false, limits_);
    if (fewer.out_of_time) return;
    checks_->push_back("shrinking");
    if (fewer.result.verdict == explore::Verdict::kViolation) {
      out_.push_back({"shrinking", "run::Explore",
                      fewer.Verdict() + " within " + std::to_string(steps - 1) + " steps",
                      "shrunk to " + std::to_string(steps) + " steps"});
    }
  }

  // Who enters in some schedule, by plain enumeration one client at a time.
  void WhoEnters(const run::ExploreResult& r) {
    for (size_t i = 0; i < s_.world.clients.size(); ++i) {
      const std::string& name = s_.world.clients[i].name;
      const bool asked =
          std::find(r.entered.begin(), r.entered.end(), name) != r.entered.end() ||
          std::find(r.never_entered.begin(), r.never_entered.end(), name) != r.never_entered.end();
      if (!asked) continue;
      explore::Properties enters;
      enters.push_back(std::make_unique<Enters>(static_cast<int>(i)));
      const Outcome o = Search(s_, enters, PlainEnumeration(), false, limits_);
      if (o.out_of_time) return;
      const bool entered = o.result.verdict == explore::Verdict::kViolation;
      const bool said = std::find(r.entered.begin(), r.entered.end(), name) != r.entered.end();
      if (entered != said) {
        out_.push_back({"vacuity", "run::Explore", name + (entered ? " enters" : " never enters"),
                        name + (said ? " enters" : " never enters")});
      }
    }
    checks_->push_back("vacuity");
  }

  // Stuck end states counted iff plain enumeration reaches one.
  void Stuck(const run::ExploreResult& r) {
    const Outcome o = Search(s_, explore::MakeProperties({"no_stuck_states"}), PlainEnumeration(),
                             false, limits_);
    if (o.out_of_time) return;
    checks_->push_back("stuck states");
    const bool stuck = o.result.verdict == explore::Verdict::kViolation;
    if (stuck != (r.stuck_states > 0)) {
      out_.push_back({"stuck states", "run::Explore", stuck ? "some" : "none",
                      std::to_string(r.stuck_states)});
    }
    if (r.stuck) Replays("run::Explore's stuck execution", r.stuck->trace);
  }

  // Every violation a sampling strategy reports is a real one, and replays.
  void Sampling() {
    for (const char* strategy : {"random", "pct"}) {
      run::ExploreOptions o;
      o.strategy = strategy;
      o.request.executions = 40;
      o.request.depth = 2;
      o.request.seed = static_cast<uint64_t>(s_.max_steps) * 7919 + s_.world.clients.size();
      const run::ExploreResult r = run::Explore(s_, o);
      const std::string mode = std::string("--strategy ") + strategy;
      if (r.counterexample && !r.counterexample->trace.lasso) {
        Replays(mode, r.counterexample->trace);
        if (!Judge(mode, r.search.verdict, r.search.violation)) return;
      }
    }
    checks_->push_back("sampling");
  }

  // A preemption-bounded search against plain enumeration under the same
  // bound.
  void Preemptions() {
    for (int k : {0, 1}) {
      Mode bounded = PlainEnumeration();
      bounded.preemptions = k;
      const PlainOracle expected(s_, limits_, bounded);
      if (expected.outcome().out_of_time) return;
      const explore::Properties properties = explore::MakeProperties(s_.properties);
      for (bool por : {true, false}) {
        Mode m;
        m.reductions.por = por;
        m.preemptions = k;
        m.name = "--preemptions " + std::to_string(k) + (por ? "" : " --no-por");
        const Outcome got = Search(s_, properties, m, false, limits_);
        if (got.out_of_time) return;
        const std::optional<bool> agree =
            expected.Agrees(got.result.verdict, got.result.violation, true);
        if (!agree) return;
        if (!*agree) out_.push_back({"verdict", m.name, expected.Verdict(), got.Verdict()});
      }
    }
    checks_->push_back("preemption bounds");
  }

  // Bitstate storage (without a step bound, which it cannot keep) against
  // the exact table: the same states, but for those its own estimate says
  // it may miss. Without sleep sets: bitstate hashes a state's sleep set in
  // with it, and counts each pair.
  void Bitstate() {
    const explore::Properties ghost = GhostProperties(s_.properties);
    Mode exact;
    exact.step_bound = false;
    exact.reductions.por = false;
    exact.storage.kind = explore::Storage::kExact;
    exact.name = "--storage exact --no-por, no step bound";
    const Outcome expected = Search(s_, ghost, exact, false, limits_);
    if (expected.out_of_time || expected.result.verdict != explore::Verdict::kSafe) return;
    Mode bits = exact;
    bits.storage.kind = explore::Storage::kBitstate;
    bits.storage.bitstate_log2_bits = 26;
    bits.name = "--storage bitstate --no-por, no step bound";
    const Outcome got = Search(s_, ghost, bits, false, limits_);
    if (got.out_of_time || got.result.verdict == explore::Verdict::kIncomplete) return;
    checks_->push_back("bitstate");
    const uint64_t want = expected.result.stats.states, have = got.result.stats.states;
    const bool omissions_expected = got.result.stats.expected_omissions >= 0.001;
    if (have > want || (have < want && !omissions_expected)) {
      out_.push_back({"bitstate", bits.name, std::to_string(want) + " states",
                      std::to_string(have) + " states, " +
                          std::to_string(got.result.stats.expected_omissions) +
                          " expected omissions"});
    }
  }

  const scenario::Scenario& s_;
  const PlainOracle& plain_;
  const Limits& limits_;
  std::vector<std::string>* checks_;
  std::vector<Disagreement> out_;
};

}  // namespace

std::vector<Disagreement> CompareLayers(const scenario::Scenario& s, const PlainOracle& plain,
                                        const Limits& limits, std::vector<std::string>* checks) {
  return LayerChecks(s, plain, limits, checks).Run();
}

}  // namespace lockstep::soundness
