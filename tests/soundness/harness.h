// Differential soundness checking of the explorer's reductions.
//
// A seeded generator writes small random scenarios over every feature of the
// scenario format; each is searched in every combination of the explore
// command's switches (--no-cache, --no-symmetry, --no-por, --jobs 2) and by
// true plain enumeration (no caching, no ForgetHistory, no symmetry, no
// sleep sets), which is the oracle: the same verdict and violated property
// are expected from every mode, and the same set of reachable states (ghost
// data included) from a cached search as from plain enumeration. A
// disagreement is shrunk to a minimal scenario that still shows it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"

namespace lockstep::soundness {

// A small scenario document, valid or not (the loader decides), drawn from
// `seed`; the same seed gives the same document.
// A quarter of them run the Lua ports of examples/lua/ in place of the
// built-ins they port; some run a random Lua algorithm (a small grammar).
nlohmann::json RandomScenario(uint64_t seed);
// The built-in algorithms examples/lua/ ports, and what each declares as
// its built-in does.
struct LuaPort {
  const char* built_in;
  const char* file;  // in examples/lua/
  bool never_reads_tokens;
  bool timestamp_lock;
};
std::span<const LuaPort> LuaPorts();
// Every client of a built-in with a port runs the port instead (with
// relative_time, as the built-ins declare), declared as the built-in is;
// false if no client has one.
bool SwapForLuaPorts(nlohmann::json& doc);
// Whether a client of `doc` runs a Lua algorithm.
bool RunsLua(const nlohmann::json& doc);
// The absolute path of examples/lua/`file`.
std::string LuaPortPath(const std::string& file);

// One way of running `lockstep explore`.
struct Mode {
  std::string name;  // the explore command's switches, e.g. "--no-por --jobs 2"
  explore::Reductions reductions;
  int jobs = 1;
  explore::StorageOptions storage;
  // The distributed search on this many ranks (threads of this process),
  // instead of the depth-first search; 0: depth-first.
  int ranks = 0;
  // Under the scenario's max_steps; false: no step bound (a verdict for
  // all time, or up to the horizon).
  bool step_bound = true;
  // Each client's automaton forgets its transitions past this many bytes
  // (world::ClientSetup::max_memo_bytes); 0: its default.
  uint64_t max_memo_bytes = 0;
  // Switches away from a client that could go on (Bounds::preemptions).
  std::optional<int> preemptions;
};
// Every combination of the explore command's switches, normalised as the
// command does (without caching: no sleep sets, one job), and hash
// compaction with and without sleep sets (its table keeps sleep sets and
// depths as the exact one does), and the distributed search on one, two
// and three ranks, and the default with automata that forget their
// transitions almost at once. Bitstate is not among them: it cannot bound the steps,
// and every search here runs under max_steps.
std::vector<Mode> ExploreModes();
// No caching, no ForgetHistory, no symmetry, no sleep sets.
Mode PlainEnumeration();

struct Disagreement {
  std::string check;     // "verdict", "states", "error" or "all time"
  std::string mode;      // the mode that disagrees with plain enumeration
  std::string expected;  // plain enumeration's (all time: what the oracle expects)
  std::string got;
  std::string Text() const;
};

struct Comparison {
  bool loaded = false;        // false: the loader refused the document
  bool finished = false;      // false: a search ran out of time (nothing compared)
  std::string plain_verdict;  // "safe", "incomplete" or "violation:PROPERTY"
  std::vector<Disagreement> disagreements;
  // Without a horizon: the all-time verdict was compared with
  // horizon-bounded ones (CompareAllTime).
  bool all_time_compared = false;
  // Liveness properties: explore::FindLasso was compared with
  // LivenessOracle (both within the liveness state budget).
  bool liveness_compared = false;
  // What else was compared (CompareLayers' checks, "all time", "liveness"),
  // for the run's summary of what it covered (Covered).
  std::vector<std::string> checks;
};

// How long an execution of a search without a step bound may grow before
// the search calls it a runaway (Bounds::runaway_steps).
inline constexpr int kRunawaySteps = 500;
// The states the liveness oracle and the lasso search it is compared with
// may visit (CompareLiveness).
inline constexpr uint64_t kLivenessStates = 5'000;

struct Limits {
  // Per search (Bounds::max_transitions, counted exactly): beyond it the
  // scenario is "too large" and skipped, the same scenarios on every machine.
  uint64_t max_transitions = 300'000;
  // Distinct states a cached depth-first search may visit, counted exactly
  // (Bounds::max_states): a budget every machine meets at the same place.
  std::optional<uint64_t> max_states;
  // Lockstep run in processes of its own as well (CompareProcesses).
  bool processes = true;
};

// One search of `s` in `mode` under the scenario's max_steps, stopped past
// `limits` (out_of_time); the states collected are sorted.
struct Outcome {
  explore::SearchResult result;
  bool out_of_time = false;
  std::string Verdict() const;  // "safe", "incomplete" or "violation:PROPERTY"
};
// The distributed search with `ranks` ranks, each a thread of this
// process; rank 0's result (every rank returns the same).
explore::SearchResult DistributedOnThreads(const world::WorldConfig& config,
                                           const explore::Properties& properties,
                                           const explore::SearchOptions& options, int ranks);

Outcome Search(const scenario::Scenario& s, const explore::Properties& properties, const Mode& mode,
               bool collect_states, const Limits& limits);

// The named properties' ghost state without their checks: a search with
// them collects every reachable state, ghost data in its fingerprint, and
// no violation cuts it short.
explore::Properties GhostProperties(const std::vector<std::string>& names);

// For a scenario without a horizon: searches it for all time (default
// reductions, no step bound) and compares. A violation plain enumeration
// found within max_steps (`plain_verdict`) must be found; a SAFE for all
// time must be SAFE at the first horizons; a violation must be found at
// a horizon past its counterexample's end. Sets `*compared` unless a search
// ran out of budget or the all-time search was incomplete.
std::vector<Disagreement> CompareAllTime(const scenario::Scenario& s,
                                         const std::string& plain_verdict, const Limits& limits,
                                         bool* compared);

// Liveness judged independently of explore::FindLasso, on the same graph
// (states named as FindLasso names them, with ForgetHistory): "safe",
// "violation:PROPERTY" (the first of `liveness` a fair cycle violates) or
// "incomplete" past `max_states` states.
std::string LivenessOracle(const world::WorldConfig& config,
                           const std::vector<std::string>& liveness, uint64_t max_states);

// For a scenario with liveness properties: explore::FindLasso's verdict
// against LivenessOracle's, within kLivenessStates states. Sets `*compared` unless
// either ran out of states, and then `*verdict` to the oracle's if given.
std::optional<Disagreement> CompareLiveness(const scenario::Scenario& s, bool* compared,
                                            std::string* verdict = nullptr);

// With draws weighed (WorldConfig::probabilistic): the worst-case odds of
// each safety property's violation (explore/violation_odds.h) with
// ForgetHistory against those without, above 0 for some property iff
// `plain_verdict` (plain enumeration's) is a violation, and each 0 or 1
// without draws; then, for a scenario with liveness properties and no
// horizon, explore::FindLasso against LivenessOracle on the same world: a
// violation with positive probability must be one of some fair run;
// without draws the two must give the same verdict; and FindLasso's verdict
// with ForgetHistory is the one without. Sets `*compared` if
// either comparison was made within kLivenessStates states.
std::optional<Disagreement> CompareProbabilistic(const scenario::Scenario& s,
                                                 const std::string& plain_verdict, bool* compared);

// Plain enumeration of a scenario with its properties (or `mode`, plain
// enumeration under a further bound), and whether it reaches a violation
// of one property (searched once each, when asked).
class PlainOracle {
 public:
  PlainOracle(const scenario::Scenario& s, const Limits& limits, Mode mode = PlainEnumeration());
  const Outcome& outcome() const { return plain_; }
  std::string Verdict() const { return plain_.Verdict(); }
  // Whether plain enumeration reaches a violation of `property`; nullopt:
  // past the limits.
  std::optional<bool> Reaches(const std::string& property) const;
  // Whether another search's verdict (and the property it found violated)
  // is plain enumeration's: a violation one it reaches, a SAFE only where
  // it finds none, and with `must_find` a violation wherever it finds
  // one and a SAFE wherever it is SAFE; nullopt: past the limits.
  std::optional<bool> Agrees(explore::Verdict verdict,
                             const std::optional<check::Violation>& violation,
                             bool must_find) const;

 private:
  const scenario::Scenario& s_;
  const Limits& limits_;
  Mode mode_;
  Outcome plain_;
  mutable std::map<std::string, bool> reachable_;
};

// What runs around the searches, each against plain enumeration (out of
// the limits: not compared): run::Explore (its verdict, its counterexample
// or lasso recorded, saved and replayed, a shrunk one the shortest, who
// enters against plain enumeration per client, stuck end states counted
// iff plain enumeration reaches one), the sampling strategies (each
// violation real and replayed), preemption bounds against plain
// enumeration under the same bound, bitstate storage against the exact
// table (the same states but those its estimate says it may miss). Adds
// the name of each check made to `*checks`.
std::vector<Disagreement> CompareLayers(const scenario::Scenario& s, const PlainOracle& plain,
                                        const Limits& limits, std::vector<std::string>* checks);

// Lockstep as its users run it, in processes of its own, for some of the
// scenarios small enough: the Python port of setnx-naive and setnx-getset
// (tests/process/setnx_port.py) as process clients against the built-ins
// (verdict, states, transitions, reductions, shortest counterexample), and
// `mpirun -np 2 explore --distributed` against the distributed search in
// one process; every verdict against plain enumeration.
std::vector<Disagreement> CompareProcesses(const nlohmann::json& doc, const PlainOracle& plain,
                                           std::vector<std::string>* checks);

// The features of the format and the checks a run counts (Covered), in the
// order its summary prints them.
std::vector<std::string> FeatureNames();
// Those of FeatureNames() that `doc` uses, and the checks `c` made.
std::vector<std::string> Covered(const nlohmann::json& doc, const Comparison& c);

// Searches `document` in every mode and compares with plain enumeration.
Comparison Compare(const nlohmann::json& document, const Limits& limits);

// The smallest document found (dropping clients, servers, faults, keys,
// settings; lowering bounds) on which `Compare` still reports a
// disagreement of the same check and mode as `found`. `progress` is told of
// each smaller document kept.
nlohmann::json Shrink(const nlohmann::json& document, const Disagreement& found,
                      const Limits& limits,
                      const std::function<void(const nlohmann::json&)>& progress = {});

// A regression file: the shrunk document, named, expecting plain
// enumeration's verdict, its description saying what disagreed.
nlohmann::json RegressionDocument(nlohmann::json shrunk, const Disagreement& d,
                                  const std::string& plain_verdict, uint64_t seed);

}  // namespace lockstep::soundness
