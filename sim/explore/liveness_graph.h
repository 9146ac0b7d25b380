// The liveness graph (docs/design.md, "Liveness"): the explored states, each
// once, and every transition, with the fairness class of each; and what a
// liveness property allows a violating cycle to use. The lasso search
// (liveness.h) and the probabilistic one (probabilistic.h) judge it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/base/limits.h"
#include "sim/check/liveness.h"
#include "sim/explore/state_space.h"

namespace lockstep::explore {

// The fairness class of an action, as a bit: a client's step (bits 0-7),
// the clock's tick (bit 8), a master's replication (bits 9-16). Faults
// have none: nothing obliges them to happen.
inline constexpr uint32_t kTickBit = 1u << 8;
inline uint32_t ReplicateBit(int server) { return 1u << (9 + server); }
static_assert(base::kMaxClients <= 8 && base::kMaxServers <= 8, "fairness classes fit 17 bits");

inline uint32_t FairClass(const world::Action& a) {
  switch (a.kind) {
    case world::Action::Kind::kStep:
      return 1u << a.client;
    case world::Action::Kind::kTick:
      return kTickBit;
    case world::Action::Kind::kReplicate:
      return ReplicateBit(a.server);
    default:
      return 0;
  }
}

// The explored states, each once (by fingerprint), and every transition.
class LivenessGraph {
 public:
  struct Edge {
    int from, to;
    world::Action action;
    uint32_t fair;    // FairClass(action)
    uint8_t entered;  // clients (bits) that entered the critical section in it
  };

  // No property is checked step by step here; the identity keeps the
  // ghost state the liveness properties judged read.
  LivenessGraph(const world::WorldConfig& config, bool forget_history,
                const std::vector<std::string>& liveness)
      : space_(config, kNoProperties,
               {.forget_history = forget_history,
                .abstract_identity = forget_history,
                .symmetry = false,
                .max_steps = std::nullopt,
                .ghost = check::ReadsOf(liveness)}) {}

  world::Model& model() { return space_.model(); }
  const world::Model& model() const { return space_.model(); }
  size_t size() const { return states_.size(); }
  const world::WorldState& state(int v) const { return states_[v]; }
  uint32_t enabled(int v) const { return enabled_[v]; }
  const std::vector<Edge>& edges() const { return edges_; }
  const std::vector<int>& out(int v) const { return out_[v]; }
  int parent(int v) const { return parent_[v]; }  // the edge that first reached v; -1: initial

  // The node of `s`, added if new (then true).
  std::pair<int, bool> Add(const world::WorldState& s, int via) {
    const Fingerprint f = space_.Identity(s);
    auto [it, fresh] = index_.try_emplace(f, static_cast<int>(states_.size()));
    if (!fresh) return {it->second, false};
    states_.push_back(s);
    Offers(s, &scratch_);
    uint32_t on = 0;
    for (const world::Action& a : scratch_) on |= FairClass(a);
    enabled_.push_back(on);
    out_.emplace_back();
    parent_.push_back(via);
    return {it->second, true};
  }

  // The actions `s` offers (none at an end: no step bound applies here).
  void Offers(const world::WorldState& s, std::vector<world::Action>* actions) {
    std::optional<check::Violation> end;  // none: no property is checked here
    if (space_.Offers(s, 0, actions, &end) != Offer::kActions) actions->clear();
  }

  int Link(int from, int to, const world::Action& a, uint8_t entered) {
    edges_.push_back({from, to, a, FairClass(a), entered});
    out_[from].push_back(static_cast<int>(edges_.size()) - 1);
    return static_cast<int>(edges_.size()) - 1;
  }

  // Applies `a` to `s`; returns the clients that entered the critical section.
  uint8_t Apply(world::WorldState& s, const world::Action& a) {
    uint8_t before = 0, after = 0;
    for (size_t i = 0; i < s.clients.size(); ++i)
      before |= uint8_t{s.clients[i].in_critical_section} << i;
    space_.Step(s, a, 0);
    for (size_t i = 0; i < s.clients.size(); ++i)
      after |= uint8_t{s.clients[i].in_critical_section} << i;
    return static_cast<uint8_t>(after & ~before);
  }

  const std::vector<check::Orphan>& OrphansOf(int v) {
    if (orphans_.size() < states_.size()) orphans_.resize(states_.size());
    if (!orphans_[v]) orphans_[v] = check::Orphans(space_.model(), states_[v]);
    return *orphans_[v];
  }

 private:
  static inline const Properties kNoProperties;
  StateSpace space_;
  std::vector<world::Action> scratch_;
  std::unordered_map<Fingerprint, int, FingerprintHash> index_;
  std::vector<world::WorldState> states_;
  std::vector<uint32_t> enabled_;
  std::vector<Edge> edges_;
  std::vector<std::vector<int>> out_;
  std::vector<int> parent_;
  std::vector<std::optional<std::vector<check::Orphan>>> orphans_;
};

// One thing a liveness property can be violated about.
struct LivenessGoal {
  std::string property;
  int client = -1;                      // starvation_free
  std::optional<check::Orphan> orphan;  // no_orphaned_lock
};

// The states and transitions a violating cycle may use, and the states one
// of which it must pass through.
class Restriction {
 public:
  Restriction(LivenessGraph& g, const LivenessGoal& goal) : g_(g), goal_(goal) {}

  bool State(int v) {
    if (!goal_.orphan) return true;
    const auto& o = g_.OrphansOf(v);
    return std::binary_search(o.begin(), o.end(), *goal_.orphan);
  }
  // Only the transitions `within` marks, from here on (an end component's).
  void Within(const std::vector<char>* within) { within_ = within; }
  bool Edge(int e) {
    if (within_ && !(*within_)[e]) return false;
    const LivenessGraph::Edge& edge = g_.edges()[e];
    if (goal_.property == "deadlock_free" && edge.entered) return false;
    if (goal_.property == "starvation_free" && (edge.entered >> goal_.client & 1)) return false;
    return State(edge.from) && State(edge.to);
  }
  bool Witness(int v) {
    const world::WorldState& s = g_.state(v);
    if (goal_.property == "deadlock_free") {
      for (size_t i = 0; i < s.clients.size(); ++i) {
        if (check::Wants(s, static_cast<int>(i))) return true;
      }
      return false;
    }
    if (goal_.property == "starvation_free") return check::Wants(s, goal_.client);
    return true;  // an orphan that stays is the violation
  }

 private:
  LivenessGraph& g_;
  const LivenessGoal& goal_;
  const std::vector<char>* within_ = nullptr;
};

// The goals of `liveness` (check::LivenessNames) in order: per property,
// per client, per orphan.
std::vector<LivenessGoal> LivenessGoals(LivenessGraph& g, const std::vector<std::string>& liveness);

}  // namespace lockstep::explore
