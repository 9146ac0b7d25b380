// An independent judge of liveness for small state graphs: explore::FindLasso
// finds fair cycles with Tarjan's algorithm over a restricted graph and
// builds one; this oracle decides, per state, by plain reachability (the
// states a state reaches and is reached from are its component) whether a
// fair violating cycle passes through it. What each property forbids is
// written again here from its definition (sim/check/liveness.h).
#include <deque>
#include <functional>
#include <unordered_map>

#include "sim/check/liveness.h"
#include "sim/explore/fingerprint.h"
#include "tests/soundness/harness.h"

namespace lockstep::soundness {
namespace {

// Fairness classes: a client's steps, the clock, a master's replication.
// Faults have none.
uint32_t ClassOf(const world::Action& a) {
  switch (a.kind) {
    case world::Action::Kind::kStep:
      return 1u << a.client;
    case world::Action::Kind::kTick:
      return 1u << 16;
    case world::Action::Kind::kReplicate:
      return 1u << (17 + a.server);
    default:
      return 0;
  }
}

uint32_t InCriticalSection(const world::WorldState& s) {
  uint32_t in = 0;
  for (size_t i = 0; i < s.clients.size(); ++i)
    in |= uint32_t{s.clients[i].in_critical_section} << i;
  return in;
}

struct Graph {
  struct Edge {
    int from, to;
    uint32_t fair;
    uint32_t entered;  // clients that entered the critical section
  };
  std::vector<world::WorldState> states;
  std::vector<uint32_t> enabled;  // classes enabled in each state
  std::vector<Edge> edges;
  std::vector<std::vector<int>> out, in;  // edge indices
};

// What a cycle may pass through, and what it must pass through once.
struct Goal {
  std::function<bool(int)> state;
  std::function<bool(const Graph::Edge&)> edge;
  std::function<bool(int)> witness;
};

// Whether a fair cycle of allowed states and edges passes through a witness.
bool FairCycle(const Graph& g, const Goal& goal) {
  const int n = static_cast<int>(g.states.size());
  auto allowed = [&](int e) {
    const Graph::Edge& edge = g.edges[e];
    return goal.state(edge.from) && goal.state(edge.to) && goal.edge(edge);
  };
  auto reach = [&](int from, bool forward) {
    std::vector<char> seen(n, 0);
    std::deque<int> queue{from};
    seen[from] = 1;
    while (!queue.empty()) {
      const int v = queue.front();
      queue.pop_front();
      for (int e : forward ? g.out[v] : g.in[v]) {
        if (!allowed(e)) continue;
        const int w = forward ? g.edges[e].to : g.edges[e].from;
        if (!seen[w]) {
          seen[w] = 1;
          queue.push_back(w);
        }
      }
    }
    return seen;
  };
  std::vector<char> judged(n, 0);
  for (int w = 0; w < n; ++w) {
    if (judged[w] || !goal.state(w) || !goal.witness(w)) continue;
    const std::vector<char> ahead = reach(w, true), behind = reach(w, false);
    uint32_t taken = 0, everywhere = ~0u;
    bool cycle = false;
    for (int v = 0; v < n; ++v) {
      if (!ahead[v] || !behind[v]) continue;
      judged[v] = 1;
      everywhere &= g.enabled[v];
      for (int e : g.out[v]) {
        const int to = g.edges[e].to;
        if (allowed(e) && ahead[to] && behind[to]) {
          cycle = true;
          taken |= g.edges[e].fair;
        }
      }
    }
    // Weak fairness: a class enabled in every state of the component is
    // taken inside it (a cycle through all of it is then fair).
    if (cycle && (everywhere & ~taken) == 0) return true;
  }
  return false;
}

}  // namespace

std::string LivenessOracle(const world::WorldConfig& config,
                           const std::vector<std::string>& liveness, uint64_t max_states) {
  world::Model model(config, /*use_forget_history=*/true);
  const explore::Fingerprinter identity(model, /*symmetry=*/false, /*abstract=*/true,
                                        check::Property::kWriters);
  Graph g;
  std::unordered_map<explore::Fingerprint, int, explore::FingerprintHash> index;
  auto add = [&](const world::WorldState& s) {
    auto [it, fresh] = index.try_emplace(identity.Of(s, nullptr, nullptr), g.states.size());
    if (fresh) {
      g.states.push_back(s);
      g.out.emplace_back();
      g.in.emplace_back();
    }
    return it->second;
  };
  add(model.Initial());
  std::vector<world::Action> actions;
  for (size_t v = 0; v < g.states.size(); ++v) {
    if (g.states.size() > max_states) return "incomplete";
    model.EnabledActions(g.states[v], &actions);
    uint32_t enabled = 0;
    for (const world::Action& a : actions) {
      enabled |= ClassOf(a);
      world::WorldState next = g.states[v];
      model.Apply(next, a, nullptr);
      const uint32_t entered = InCriticalSection(next) & ~InCriticalSection(g.states[v]);
      const int to = add(next);
      g.edges.push_back({static_cast<int>(v), to, ClassOf(a), entered});
      g.out[v].push_back(static_cast<int>(g.edges.size()) - 1);
      g.in[static_cast<size_t>(to)].push_back(static_cast<int>(g.edges.size()) - 1);
    }
    g.enabled.push_back(enabled);
  }

  const int clients = model.client_count();
  auto anywhere = [](int) { return true; };
  for (const std::string& property : liveness) {
    std::vector<Goal> goals;
    if (property == "deadlock_free") {
      // Someone wants the lock, and no one ever enters again.
      goals.push_back({anywhere, [](const Graph::Edge& e) { return e.entered == 0; },
                       [&](int v) {
                         for (int i = 0; i < clients; ++i) {
                           if (check::Wants(g.states[v], i)) return true;
                         }
                         return false;
                       }});
    } else if (property == "starvation_free") {
      // One client wants the lock and never enters.
      for (int i = 0; i < clients; ++i) {
        goals.push_back({anywhere, [i](const Graph::Edge& e) { return !(e.entered >> i & 1); },
                         [&, i](int v) { return check::Wants(g.states[v], i); }});
      }
    } else if (property == "no_orphaned_lock") {
      // One orphaned value stays for ever.
      std::vector<std::vector<check::Orphan>> orphans;
      for (const world::WorldState& s : g.states) orphans.push_back(check::Orphans(model, s));
      std::vector<check::Orphan> all;
      for (const auto& o : orphans) all.insert(all.end(), o.begin(), o.end());
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      for (const check::Orphan& o : all) {
        auto stays = [&orphans, o](int v) {
          const auto& here = orphans[static_cast<size_t>(v)];
          return std::find(here.begin(), here.end(), o) != here.end();
        };
        if (FairCycle(g, {stays, [](const Graph::Edge&) { return true; }, anywhere})) {
          return "violation:" + property;
        }
      }
    }
    for (const Goal& goal : goals) {
      if (FairCycle(g, goal)) return "violation:" + property;
    }
  }
  return "safe";
}

}  // namespace lockstep::soundness
