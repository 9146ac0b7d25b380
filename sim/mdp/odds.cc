#include "sim/mdp/odds.h"

#include <algorithm>
#include <deque>

#include "sim/mdp/end_components.h"

namespace lockstep::mdp {
namespace {

// owner[c]: the state whose choice c is.
std::vector<int> Owners(const Mdp& m) {
  std::vector<int> owner(m.choice_count());
  for (int v = 0; v < m.size(); ++v) {
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) owner[c] = v;
  }
  return owner;
}

// into[w]: the choices with an outcome in w, once per such outcome.
std::vector<std::vector<int>> ChoicesInto(const Mdp& m) {
  std::vector<std::vector<int>> into(m.size());
  for (int c = 0; c < m.choice_count(); ++c) {
    for (const Outcome& o : m.OutcomesOf(c)) into[o.to].push_back(c);
  }
  return into;
}

// The states whose greatest value is 0: no path from them reaches a target.
std::vector<char> CannotReach(const Mdp& m, const std::vector<char>& target,
                              const std::vector<int>& owner,
                              const std::vector<std::vector<int>>& into) {
  std::vector<char> reaches(target);
  std::deque<int> queue;
  for (int v = 0; v < m.size(); ++v) {
    if (target[v]) queue.push_back(v);
  }
  while (!queue.empty()) {
    const int w = queue.front();
    queue.pop_front();
    for (int c : into[w]) {
      if (!reaches[owner[c]]) {
        reaches[owner[c]] = 1;
        queue.push_back(owner[c]);
      }
    }
  }
  std::vector<char> zero(m.size());
  for (int v = 0; v < m.size(); ++v) zero[v] = !reaches[v];
  return zero;
}

// The states whose least value is 0: the greatest set of non-target states
// in each of which the run ends or some choice stays in the set.
std::vector<char> CanAvoid(const Mdp& m, const std::vector<char>& target,
                           const std::vector<int>& owner,
                           const std::vector<std::vector<int>>& into) {
  std::vector<char> avoid(m.size());
  std::vector<int> leaving(m.choice_count(), 0);  // a choice's outcomes outside the set
  std::vector<int> staying(m.size(), 0);          // a state's choices with none outside
  for (int v = 0; v < m.size(); ++v) avoid[v] = !target[v];
  for (int c = 0; c < m.choice_count(); ++c) {
    for (const Outcome& o : m.OutcomesOf(c)) leaving[c] += !avoid[o.to];
    staying[owner[c]] += leaving[c] == 0;
  }
  std::deque<int> queue;
  auto check = [&](int v) {
    if (avoid[v] && m.ChoicesBegin(v) < m.ChoicesEnd(v) && staying[v] == 0) {
      avoid[v] = 0;
      queue.push_back(v);
    }
  };
  for (int v = 0; v < m.size(); ++v) check(v);
  while (!queue.empty()) {
    const int w = queue.front();
    queue.pop_front();
    for (int c : into[w]) {
      if (leaving[c]++ == 0) {
        --staying[owner[c]];
        check(owner[c]);
      }
    }
  }
  return avoid;
}

// The undetermined states in an order where every edge between two of them
// goes from an earlier to a later one, or nothing if their graph has a
// cycle (Kahn's algorithm).
std::vector<int> TopologicalOrder(const Mdp& m, const std::vector<char>& open) {
  std::vector<int> incoming(m.size(), 0), order;
  int count = 0;
  for (int v = 0; v < m.size(); ++v) {
    if (!open[v]) continue;
    ++count;
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
      for (const Outcome& o : m.OutcomesOf(c)) incoming[o.to] += open[o.to];
    }
  }
  for (int v = 0; v < m.size(); ++v) {
    if (open[v] && incoming[v] == 0) order.push_back(v);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const int v = order[k];
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
      for (const Outcome& o : m.OutcomesOf(c)) {
        if (open[o.to] && --incoming[o.to] == 0) order.push_back(o.to);
      }
    }
  }
  if (static_cast<int>(order.size()) != count) order.clear();
  return order;
}

bool Better(Objective objective, const auto& candidate, const auto& best) {
  return objective == Objective::kLeast ? candidate < best : candidate > best;
}

// Backwards from the ends along `order`: exact.
void SolveExactly(const Mdp& m, const std::vector<char>& target, const std::vector<int>& order,
                  Objective objective, Probabilities* out) {
  out->value.assign(m.size(), Rational(0));
  for (int v = 0; v < m.size(); ++v) {
    if (target[v]) out->value[v] = 1;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    Rational best;
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
      Rational sum = 0;
      for (const Outcome& o : m.OutcomesOf(c)) sum += out->value[o.to] * o.weight;
      sum /= m.choice(c).total;
      if (c == m.ChoicesBegin(v) || Better(objective, sum, best)) best = sum;
    }
    out->value[v] = best;
  }
  out->exact = true;
  for (int v = 0; v < m.size(); ++v) {
    out->lower[v] = out->upper[v] = out->value[v].convert_to<double>();
  }
}

// Interval iteration. For the greatest value, the end components among the
// undetermined states are merged first (each into its least state, keeping
// only the choices that may leave it): otherwise staying in one for ever
// is a fixed point above the least one, and the upper bound stops there.
void SolveByIteration(const Mdp& m, const std::vector<char>& target, const std::vector<char>& open,
                      Objective objective, const OddsOptions& options, Probabilities* out) {
  const int n = m.size();
  std::vector<int> rep(n);
  for (int v = 0; v < n; ++v) rep[v] = v;
  if (objective == Objective::kGreatest) {
    const auto ecs = MaximalEndComponents(
        m, [&](int v) { return open[v] != 0; }, [](int) { return true; });
    for (const EndComponent& ec : ecs) {
      for (int v : ec.states) rep[v] = ec.states.front();
    }
  }
  // The merged states' choices: a choice all of whose outcomes come back
  // to its own merged state cannot raise the greatest value.
  std::vector<std::vector<int>> choices(n);
  for (int v = 0; v < n; ++v) {
    if (!open[v]) continue;
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
      const auto outs = m.OutcomesOf(c);
      const bool loops = objective == Objective::kGreatest &&
                         std::all_of(outs.begin(), outs.end(),
                                     [&](const Outcome& o) { return rep[o.to] == rep[v]; });
      if (!loops) choices[rep[v]].push_back(c);
    }
  }
  std::vector<double> lo(n, 0.0), hi(n, 1.0);
  for (int v = 0; v < n; ++v) {
    if (!open[v]) lo[v] = hi[v] = target[v] ? 1.0 : 0.0;
  }
  auto update = [&](int r, std::vector<double>& x) {
    double best = 0;
    bool first = true;
    for (int c : choices[r]) {
      double sum = 0;
      for (const Outcome& o : m.OutcomesOf(c)) sum += x[rep[o.to]] * o.weight;
      sum /= static_cast<double>(m.choice(c).total);
      if (first || Better(objective, sum, best)) best = sum;
      first = false;
    }
    x[r] = best;
  };
  out->converged = false;
  while (out->iterations < options.max_iterations) {
    ++out->iterations;
    double widest = 0;
    // Backwards in the order found: a search numbers a state's successors
    // after it, so values flow towards the start in one sweep.
    for (int r = n - 1; r >= 0; --r) {
      if (!open[r] || rep[r] != r) continue;
      update(r, lo);
      update(r, hi);
      widest = std::max(widest, hi[r] - lo[r]);
    }
    if (widest <= options.precision) {
      out->converged = true;
      break;
    }
  }
  for (int v = 0; v < n; ++v) {
    out->lower[v] = lo[rep[v]];
    out->upper[v] = hi[rep[v]];
  }
}

}  // namespace

Probabilities ReachProbabilities(const Mdp& m, const std::vector<char>& target, Objective objective,
                                 const OddsOptions& options) {
  const std::vector<int> owner = Owners(m);
  const std::vector<std::vector<int>> into = ChoicesInto(m);
  const std::vector<char> zero = objective == Objective::kGreatest
                                     ? CannotReach(m, target, owner, into)
                                     : CanAvoid(m, target, owner, into);
  std::vector<char> open(m.size());
  for (int v = 0; v < m.size(); ++v) open[v] = !target[v] && !zero[v];
  Probabilities out;
  out.lower.assign(m.size(), 0.0);
  out.upper.assign(m.size(), 0.0);
  const std::vector<int> order = TopologicalOrder(m, open);
  const bool any_open = std::find(open.begin(), open.end(), 1) != open.end();
  if (!any_open || !order.empty()) {
    SolveExactly(m, target, order, objective, &out);
  } else {
    SolveByIteration(m, target, open, objective, options, &out);
  }
  return out;
}

}  // namespace lockstep::mdp
