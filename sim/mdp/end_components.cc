#include "sim/mdp/end_components.h"

#include <algorithm>

namespace lockstep::mdp {
namespace {

// The strongly connected components of the graph whose nodes are the live
// states and whose edges are the live choices' outcomes (Tarjan's
// algorithm without recursion): component[v] for a live v, -1 for others.
std::vector<int> Components(const Mdp& m, const std::vector<char>& live_state,
                            const std::vector<char>& live_choice) {
  const int n = m.size();
  std::vector<int> index(n, -1), low(n, 0), component(n, -1);
  std::vector<char> on_stack(n, 0);
  std::vector<int> stack;
  struct Frame {
    int v;
    int choice;   // the choice being followed
    int outcome;  // its next outcome
  };
  std::vector<Frame> frames;
  int counter = 0, components = 0;
  auto open = [&](int v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack[v] = 1;
    frames.push_back({v, m.ChoicesBegin(v), 0});
  };
  for (int root = 0; root < n; ++root) {
    if (index[root] >= 0 || !live_state[root]) continue;
    open(root);
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.choice < m.ChoicesEnd(f.v)) {
        if (!live_choice[f.choice] || f.outcome >= m.choice(f.choice).count) {
          ++f.choice;
          f.outcome = 0;
          continue;
        }
        const int w = m.OutcomesOf(f.choice)[f.outcome++].to;
        if (!live_state[w]) continue;
        if (index[w] < 0) {
          open(w);
        } else if (on_stack[w]) {
          low[f.v] = std::min(low[f.v], index[w]);
        }
        continue;
      }
      const int v = f.v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().v] = std::min(low[frames.back().v], low[v]);
      if (low[v] != index[v]) continue;
      for (int w = -1; w != v;) {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = 0;
        component[w] = components;
      }
      ++components;
    }
  }
  return component;
}

}  // namespace

std::vector<EndComponent> MaximalEndComponents(const Mdp& m,
                                               const std::function<bool(int)>& keep_state,
                                               const std::function<bool(int)>& keep_choice) {
  const int n = m.size();
  std::vector<char> live_state(n), live_choice(m.choice_count(), 0);
  for (int v = 0; v < n; ++v) {
    live_state[v] = keep_state(v);
    if (!live_state[v]) continue;
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) live_choice[c] = keep_choice(c);
  }
  // Drop, until nothing changes, every choice that may leave its state's
  // component (an outcome in another, or in a state dropped), and every
  // state left without a choice.
  std::vector<int> component;
  for (bool changed = true; changed;) {
    changed = false;
    component = Components(m, live_state, live_choice);
    for (int v = 0; v < n; ++v) {
      if (!live_state[v]) continue;
      bool any = false;
      for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
        if (!live_choice[c]) continue;
        for (const Outcome& o : m.OutcomesOf(c)) {
          if (!live_state[o.to] || component[o.to] != component[v]) {
            live_choice[c] = 0;
            changed = true;
            break;
          }
        }
        any = any || live_choice[c];
      }
      if (!any) {
        live_state[v] = 0;
        changed = true;
      }
    }
  }
  // What is left: each component is a maximal end component.
  std::vector<EndComponent> found;
  std::vector<int> slot(n, -1);  // a component's place in `found`
  for (int v = 0; v < n; ++v) {
    if (!live_state[v]) continue;
    int& k = slot[component[v]];
    if (k < 0) {
      k = static_cast<int>(found.size());
      found.emplace_back();
    }
    found[k].states.push_back(v);
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
      if (live_choice[c]) found[k].choices.push_back(c);
    }
  }
  return found;
}

bool WeaklyFair(const Mdp& m, const EndComponent& ec) {
  uint32_t always = ~0u, taken = 0;
  for (int v : ec.states) always &= m.Enabled(v);
  for (int c : ec.choices) taken |= m.choice(c).fair;
  return (always & ~taken) == 0;
}

}  // namespace lockstep::mdp
