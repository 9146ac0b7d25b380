// Small Markov decision processes drawn at random, and answers for them
// found by enumeration, written apart from sim/mdp: the end components by
// trying every set of choices, the odds by trying every memoryless
// deterministic strategy (which suffice for reachability) and solving the
// Markov chain each gives exactly, by Gaussian elimination over rationals.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "sim/mdp/mdp.h"
#include "sim/mdp/odds.h"

namespace lockstep::testing {

struct SmallMdp {
  mdp::Mdp m;
  std::vector<char> target;   // for the odds
  std::vector<char> keep;     // for end components: the states a run may stay in
  std::vector<char> witness;  // ... and one of which it must pass
};

// Up to 6 states, each with 0 to 2 choices (the first 1 to 3) of 1 to 3 outcomes (weights 1
// to 3) and fairness classes among 3. `acyclic`: every outcome goes to a
// later state.
inline SmallMdp DrawMdp(uint64_t seed, bool acyclic) {
  std::mt19937_64 rng(seed);
  auto below = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  SmallMdp out;
  const int n = 1 + below(6);
  for (int v = 0; v < n; ++v) {
    out.m.AddState();
    const bool last = v == n - 1;
    const int choices = acyclic && last ? 0 : below(3) + (v == 0);
    for (int k = 0; k < choices; ++k) {
      std::vector<mdp::Outcome> outs(1 + below(3));
      for (mdp::Outcome& o : outs) {
        o.to = acyclic ? v + 1 + below(n - v - 1) : below(n);
        o.weight = 1 + static_cast<uint32_t>(below(3));
      }
      out.m.AddChoice(1u << below(3), outs);
    }
    out.target.push_back(v > 0 && below(4) == 0);
    out.keep.push_back(below(5) != 0);
    out.witness.push_back(below(3) == 0);
  }
  return out;
}

// Whether choice set `set` (bit k: choice k) is an end component among the
// kept states; `fair_witnessed`: one that is weakly fair and passes a
// witness.
inline bool IsEndComponent(const SmallMdp& s, uint32_t set, bool fair_witnessed) {
  const mdp::Mdp& m = s.m;
  const int n = m.size();
  std::vector<char> in(n, 0);
  for (int v = 0; v < n; ++v) {
    for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
      if (set >> c & 1) in[v] = 1;
    }
  }
  uint32_t always = ~0u, taken = 0;
  bool witnessed = false;
  for (int v = 0; v < n; ++v) {
    if (!in[v]) continue;
    if (!s.keep[v]) return false;
    always &= m.Enabled(v);
    witnessed = witnessed || s.witness[v];
  }
  // Closed: every outcome of a chosen choice stays among its states.
  for (int c = 0; c < m.choice_count(); ++c) {
    if (!(set >> c & 1)) continue;
    taken |= m.choice(c).fair;
    for (const mdp::Outcome& o : m.OutcomesOf(c)) {
      if (!in[o.to]) return false;
    }
  }
  // Strongly connected: every state reaches every other by chosen choices.
  for (int from = 0; from < n; ++from) {
    if (!in[from]) continue;
    std::vector<char> seen(n, 0);
    std::vector<int> stack{from};
    seen[from] = 1;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int c = m.ChoicesBegin(v); c < m.ChoicesEnd(v); ++c) {
        if (!(set >> c & 1)) continue;
        for (const mdp::Outcome& o : m.OutcomesOf(c)) {
          if (!seen[o.to]) {
            seen[o.to] = 1;
            stack.push_back(o.to);
          }
        }
      }
    }
    for (int v = 0; v < n; ++v) {
      if (in[v] && !seen[v]) return false;
    }
  }
  return !fair_witnessed || (witnessed && (always & ~taken) == 0);
}

// Whether some set of choices is such an end component.
inline bool HasFairWitnessedEndComponent(const SmallMdp& s) {
  const uint32_t sets = 1u << s.m.choice_count();
  for (uint32_t set = 1; set < sets; ++set) {
    if (IsEndComponent(s, set, true)) return true;
  }
  return false;
}

// The probability of reaching a target from each state of the Markov chain
// that `pick` (a choice per state, -1 where there is none) leaves.
inline std::vector<mdp::Rational> ChainReach(const SmallMdp& s, const std::vector<int>& pick) {
  const mdp::Mdp& m = s.m;
  const int n = m.size();
  // The states with a path to a target under `pick`.
  std::vector<char> reaches(s.target);
  for (bool grew = true; grew;) {
    grew = false;
    for (int v = 0; v < n; ++v) {
      if (reaches[v] || pick[v] < 0) continue;
      for (const mdp::Outcome& o : m.OutcomesOf(pick[v])) {
        if (reaches[o.to]) {
          reaches[v] = 1;
          grew = true;
          break;
        }
      }
    }
  }
  // x = A x + b over the states that reach a target and are none: a
  // system with one solution (Gauss-Jordan on [I - A | b]).
  std::vector<int> unknowns;
  std::vector<int> slot(n, -1);
  for (int v = 0; v < n; ++v) {
    if (reaches[v] && !s.target[v]) {
      slot[v] = static_cast<int>(unknowns.size());
      unknowns.push_back(v);
    }
  }
  const int k = static_cast<int>(unknowns.size());
  std::vector<std::vector<mdp::Rational>> rows(k, std::vector<mdp::Rational>(k + 1, 0));
  for (int r = 0; r < k; ++r) {
    const int v = unknowns[r];
    rows[r][r] += 1;
    const mdp::Rational total = m.choice(pick[v]).total;
    for (const mdp::Outcome& o : m.OutcomesOf(pick[v])) {
      const mdp::Rational p = mdp::Rational(o.weight) / total;
      if (s.target[o.to]) {
        rows[r][k] += p;
      } else if (slot[o.to] >= 0) {
        rows[r][slot[o.to]] -= p;
      }
    }
  }
  for (int col = 0; col < k; ++col) {
    int pivot = col;
    while (rows[pivot][col] == 0) ++pivot;
    std::swap(rows[pivot], rows[col]);
    for (int r = 0; r < k; ++r) {
      if (r == col || rows[r][col] == 0) continue;
      const mdp::Rational f = rows[r][col] / rows[col][col];
      for (int c = col; c <= k; ++c) rows[r][c] -= f * rows[col][c];
    }
  }
  std::vector<mdp::Rational> x(n, 0);
  for (int v = 0; v < n; ++v) {
    if (s.target[v]) x[v] = 1;
    if (slot[v] >= 0) x[v] = rows[slot[v]][k] / rows[slot[v]][slot[v]];
  }
  return x;
}

// The least or greatest value from each state, over every memoryless
// deterministic strategy.
inline std::vector<mdp::Rational> EnumeratedOdds(const SmallMdp& s, mdp::Objective objective) {
  const mdp::Mdp& m = s.m;
  const int n = m.size();
  std::vector<int> pick(n);
  for (int v = 0; v < n; ++v)
    pick[v] = m.ChoicesBegin(v) < m.ChoicesEnd(v) ? m.ChoicesBegin(v) : -1;
  std::vector<mdp::Rational> best;
  for (;;) {
    const std::vector<mdp::Rational> x = ChainReach(s, pick);
    if (best.empty()) best = x;
    for (int v = 0; v < n; ++v) {
      const bool better = objective == mdp::Objective::kLeast ? x[v] < best[v] : x[v] > best[v];
      if (better) best[v] = x[v];
    }
    // The next strategy, as an odometer over the states' choices.
    int v = 0;
    for (; v < n; ++v) {
      if (pick[v] < 0) continue;
      if (++pick[v] < m.ChoicesEnd(v)) break;
      pick[v] = m.ChoicesBegin(v);
    }
    if (v == n) return best;
  }
}

}  // namespace lockstep::testing
