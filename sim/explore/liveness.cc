#include "sim/explore/liveness.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <unordered_map>
#include <utility>

#include "sim/base/printable.h"
#include "sim/check/liveness.h"
#include "sim/explore/end_component_search.h"
#include "sim/explore/liveness_graph.h"
#include "sim/explore/state_space.h"

namespace lockstep::explore {
namespace {

using world::Action;

// The strongly connected components of the restricted graph that hold a
// fair cycle through a witness, by Tarjan's algorithm without recursion; in
// the order of their least state.
std::vector<std::vector<int>> FairComponents(LivenessGraph& g, Restriction& r) {
  const int n = static_cast<int>(g.size());
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<int> stack;
  std::vector<std::vector<int>> found;
  int counter = 0;
  struct Frame {
    int v;
    size_t next;  // position in g.out(v)
  };
  std::vector<Frame> frames;
  for (int root = 0; root < n; ++root) {
    if (index[root] >= 0 || !r.State(root)) continue;
    frames.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!frames.empty()) {
      Frame& f = frames.back();
      const std::vector<int>& out = g.out(f.v);
      if (f.next < out.size()) {
        const int e = out[f.next++];
        if (!r.Edge(e)) continue;
        const int w = g.edges()[e].to;
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          frames.push_back({w, 0});
        } else if (on_stack[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        }
        continue;
      }
      const int v = f.v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().v] = std::min(low[frames.back().v], low[v]);
      if (low[v] != index[v]) continue;
      std::vector<int> component;
      for (int w = -1; w != v;) {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = 0;
        component.push_back(w);
      }
      std::sort(component.begin(), component.end());
      // Fair iff every class enabled in all its states is taken inside it.
      uint32_t always = ~0u, taken = 0;
      bool inner = false, witness = false;
      for (int u : component) {
        always &= g.enabled(u);
        witness = witness || r.Witness(u);
        for (int e : g.out(u)) {
          if (!r.Edge(e)) continue;
          const int to = g.edges()[e].to;
          if (std::binary_search(component.begin(), component.end(), to)) {
            inner = true;
            taken |= g.edges()[e].fair;
          }
        }
      }
      if (inner && witness && (always & ~taken) == 0) found.push_back(std::move(component));
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Edges of a shortest path inside `component` from `from` to a state where
// `arrived` holds (empty if `from` is one).
template <typename Arrived>
std::vector<int> PathWithin(LivenessGraph& g, Restriction& r, const std::vector<int>& component,
                            int from, Arrived arrived) {
  if (arrived(from)) return {};
  std::unordered_map<int, int> via{{from, -1}};
  std::deque<int> queue{from};
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    for (int e : g.out(v)) {
      const int w = g.edges()[e].to;
      if (!r.Edge(e) || via.count(w) ||
          !std::binary_search(component.begin(), component.end(), w)) {
        continue;
      }
      via[w] = e;
      if (arrived(w)) {
        std::vector<int> path;
        for (int at = w; via[at] >= 0; at = g.edges()[via[at]].from) path.push_back(via[at]);
        std::reverse(path.begin(), path.end());
        return path;
      }
      queue.push_back(w);
    }
  }
  return {};  // unreachable inside a strongly connected component
}

// A cycle from the component's least state through a witness, back to
// where it began, that is fair by itself: every class enabled in all the
// states the cycle passes through labels one of its transitions. (Fair in
// the component is not enough: a cycle through part of it may pass only
// states where a client is enabled and never take that client's step.)
// Each round adds a transition of a class the cycle leaves out; the
// classes so left out only shrink, since more states enable fewer classes
// in common, so the rounds end, at worst having passed every state.
std::vector<int> CycleThrough(LivenessGraph& g, Restriction& r, const std::vector<int>& component) {
  const int start = component.front();
  std::vector<int> cycle;
  int at = start;
  auto go = [&](const std::vector<int>& path) {
    for (int e : path) cycle.push_back(e);
    if (!path.empty()) at = g.edges()[path.back()].to;
  };
  // The nearest state with a transition of class `bit` inside, then it.
  auto take = [&](uint32_t bit) {
    auto inner_edge = [&](int v) {
      for (int e : g.out(v)) {
        if (r.Edge(e) && (g.edges()[e].fair & bit) &&
            std::binary_search(component.begin(), component.end(), g.edges()[e].to)) {
          return e;
        }
      }
      return -1;
    };
    go(PathWithin(g, r, component, at, [&](int v) { return inner_edge(v) >= 0; }));
    go({inner_edge(at)});
  };
  go(PathWithin(g, r, component, at, [&](int v) { return r.Witness(v); }));
  if (cycle.empty()) {
    // At least one step: any transition inside.
    for (int e : g.out(at)) {
      if (r.Edge(e) && std::binary_search(component.begin(), component.end(), g.edges()[e].to)) {
        go({e});
        break;
      }
    }
  }
  for (;;) {
    const size_t open = cycle.size();
    const int open_at = at;
    go(PathWithin(g, r, component, at, [&](int v) { return v == start; }));
    uint32_t always = ~0u, taken = 0;
    for (int e : cycle) {
      always &= g.enabled(g.edges()[e].from);
      taken |= g.edges()[e].fair;
    }
    const uint32_t missing = always & ~taken;
    if (missing == 0) return cycle;
    cycle.resize(open);  // not closed yet: take the lowest class left out first
    at = open_at;
    take(missing & -missing);
  }
}

std::string Names(const world::Model& m, const std::vector<int>& clients) {
  std::string s;
  for (size_t i = 0; i < clients.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == clients.size() ? " and " : ", ") + m.client_names()[clients[i]];
  }
  return s;
}

// The violation a lasso shows: `states` are the cycle's, in order.
check::Violation Describe(LivenessGraph& g, Restriction& r, const LivenessGoal& goal,
                          const std::vector<int>& states, size_t start, size_t length) {
  const world::Model& m = g.model();
  check::Violation v;
  v.property = goal.property;
  v.step = static_cast<int>(start + 2 * length);
  std::string repeat = "steps " + std::to_string(start + 1) + " to " +
                       std::to_string(start + length) + " repeat for ever, and are fair";
  if (g.model().config().probabilistic) {
    repeat +=
        "; whatever a random draw among them gives, the scheduler can come back to them, so "
        "this happens with positive probability";
  }
  int witness = states.front();
  for (int u : states) {
    if (r.Witness(u)) {
      witness = u;
      break;
    }
  }
  if (goal.property == "deadlock_free") {
    std::vector<int> wanting;
    for (int i = 0; i < m.client_count(); ++i) {
      if (check::Wants(g.state(witness), i)) wanting.push_back(i);
    }
    for (int i : wanting) v.clients.push_back(m.client_names()[i]);
    v.message = Names(m, wanting) + (wanting.size() == 1 ? " wants" : " want") +
                " the lock, and no client ever acquires it: " + repeat;
  } else if (goal.property == "starvation_free") {
    v.clients = {m.client_names()[goal.client]};
    v.message = m.client_names()[goal.client] + " wants the lock and never acquires it: " + repeat;
  } else {
    const check::Orphan& o = *goal.orphan;
    const std::string writer = base::Printable(m.writer_names()[o.writer]);
    std::string why = " wrote it before the start";
    if (o.writer < m.client_count()) {
      v.clients = {writer};
      const world::ClientSlot& c = g.state(witness).clients[o.writer];
      why = c.status == world::ClientStatus::kCrashed  ? " crashed"
            : c.status == world::ClientStatus::kDone   ? " has finished"
            : c.status == world::ClientStatus::kFailed ? " has failed"
                                                       : " no longer holds the lock";
    }
    const std::string server = m.server_count() > 1 ? " on " + m.server_names()[o.server] : "";
    v.message = base::Printable(o.key) + server + " keeps the value " + writer + " wrote, though " +
                writer + why +
                "; it never expires, is never deleted and never taken over: " + repeat;
  }
  return v;
}

}  // namespace

LassoSearch FindLasso(const world::WorldConfig& config, const std::vector<std::string>& liveness,
                      bool forget_history, uint64_t max_states,
                      const std::atomic<bool>* interrupted) {
  const auto started = std::chrono::steady_clock::now();
  LassoSearch out;
  LivenessGraph g(config, forget_history, liveness);
  g.Add(g.model().Initial(), -1);
  std::vector<Action> actions;
  // Breadth first: the first edge to reach a state lies on a shortest path.
  for (size_t v = 0; v < g.size(); ++v) {
    if (interrupted && *interrupted) {
      out.verdict = Verdict::kIncomplete;
      out.incomplete = "stopped";
      break;
    }
    if (g.size() > max_states) {
      out.verdict = Verdict::kIncomplete;
      out.incomplete = "the liveness search keeps every state, and there are more than " +
                       std::to_string(max_states);
      break;
    }
    g.Offers(g.state(static_cast<int>(v)), &actions);
    for (const Action& a : actions) {
      world::WorldState next = g.state(static_cast<int>(v));
      const uint8_t entered = g.Apply(next, a);
      const int to = g.Add(next, static_cast<int>(g.edges().size())).first;
      g.Link(static_cast<int>(v), to, a, entered);
      ++out.stats.transitions;
    }
  }
  out.stats.states = g.size();
  if (out.verdict == Verdict::kSafe) {
    // With probabilistic draws, a cycle's draws must keep the run where the
    // adversary can come back whatever they give: the cycle lies in a fair
    // end component (end_component_search.h).
    std::optional<GraphChoices> choices;
    if (config.probabilistic) choices = ChoicesOf(g);
    for (const LivenessGoal& goal : LivenessGoals(g, liveness)) {
      Restriction r(g, goal);
      std::vector<int> component;
      std::vector<char> within;
      if (choices) {
        within.assign(g.edges().size(), 0);
        std::optional<std::vector<int>> found = FairEndComponent(*choices, r, &within);
        if (!found) continue;
        component = std::move(*found);
        r.Within(&within);
      } else {
        std::vector<std::vector<int>> components = FairComponents(g, r);
        if (components.empty()) continue;
        component = std::move(components.front());
      }
      const std::vector<int> cycle = CycleThrough(g, r, component);
      for (int at = component.front(); g.parent(at) >= 0; at = g.edges()[g.parent(at)].from) {
        out.prefix.push_back(g.edges()[g.parent(at)].action);
      }
      std::reverse(out.prefix.begin(), out.prefix.end());
      std::vector<int> states;
      for (int e : cycle) {
        out.cycle.push_back(g.edges()[e].action);
        states.push_back(g.edges()[e].from);
      }
      out.violation = Describe(g, r, goal, states, out.prefix.size(), out.cycle.size());
      out.verdict = Verdict::kViolation;
      break;
    }
  }
  out.stats.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

std::optional<check::Violation> JudgeLasso(const world::WorldConfig& config,
                                           const std::vector<world::Action>& schedule, size_t start,
                                           size_t length,
                                           const std::vector<std::string>& liveness) {
  if (length == 0 || start + length > schedule.size()) return std::nullopt;
  LivenessGraph g(config, true, liveness);
  world::WorldState s = g.model().Initial();
  std::vector<int> at = {g.Add(s, -1).first};
  std::string why;
  for (const Action& a : schedule) {
    if (!g.model().IsEnabled(s, a, &why)) return std::nullopt;
    const uint8_t entered = g.Apply(s, a);
    const int to = g.Add(s, static_cast<int>(g.edges().size())).first;
    g.Link(at.back(), to, a, entered);
    at.push_back(to);
  }
  if (at[start] != at[start + length]) return std::nullopt;  // not back where it began
  std::vector<int> states(at.begin() + static_cast<long>(start),
                          at.begin() + static_cast<long>(start + length));
  for (const LivenessGoal& goal : LivenessGoals(g, liveness)) {
    Restriction r(g, goal);
    for (const std::vector<int>& component : FairComponents(g, r)) {
      if (std::binary_search(component.begin(), component.end(), at[start])) {
        return Describe(g, r, goal, states, start, length);
      }
    }
  }
  return std::nullopt;
}

}  // namespace lockstep::explore
