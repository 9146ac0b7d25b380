// A finite Markov decision process, as a search of random choices sees its
// state graph (docs/design.md, "Probabilistic choices"): in each state the
// adversary picks one of the state's choices (which client steps, a tick, a
// fault); a choice's outcomes are then drawn at random, each with its
// weight's share. A choice with one outcome is the adversary's alone.
//
// Each choice carries its fairness classes (bits: which client steps, the
// clock ticks, ...), as the liveness graph's transitions do: weak fairness
// asks that a class enabled in every state of a run's end is taken there.
//
// States are numbered from 0 in the order they are added; the choices of a
// state are added right after it, before the next state.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace lockstep::mdp {

struct Outcome {
  int to = 0;           // the state it leads to
  uint32_t weight = 1;  // its share of the choice's total weight (> 0)
};

class Mdp {
 public:
  struct Choice {
    uint32_t fair = 0;  // its fairness classes
    int first = 0;      // its outcomes: outcomes()[first, first + count)
    int count = 0;
    uint64_t total = 0;  // the sum of its outcomes' weights
  };

  // A new state, numbered size() before the call.
  int AddState() {
    first_choice_.push_back(static_cast<int>(choices_.size()));
    return static_cast<int>(first_choice_.size()) - 2;
  }
  // A choice of the last state added. REQUIRES: a state was added; at
  // least one outcome, each of weight > 0. Outcomes may name states not
  // added yet; Check() sees they exist in the end.
  void AddChoice(uint32_t fair, std::span<const Outcome> outcomes) {
    if (size() == 0 || outcomes.empty()) throw std::logic_error("Mdp::AddChoice: nothing to add");
    Choice c{.fair = fair,
             .first = static_cast<int>(outcomes_.size()),
             .count = static_cast<int>(outcomes.size())};
    for (const Outcome& o : outcomes) {
      if (o.weight == 0) throw std::logic_error("Mdp::AddChoice: an outcome of weight 0");
      c.total += o.weight;
      outcomes_.push_back(o);
    }
    choices_.push_back(c);
    ++first_choice_.back();
  }
  // Throws std::logic_error unless every outcome names a state.
  void Check() const {
    for (const Outcome& o : outcomes_) {
      if (o.to < 0 || o.to >= size()) throw std::logic_error("Mdp: an outcome names no state");
    }
  }

  int size() const { return static_cast<int>(first_choice_.size()) - 1; }
  // The choices of state v: choice(k) for k in [ChoicesBegin(v), ChoicesEnd(v)).
  int ChoicesBegin(int v) const { return first_choice_[v]; }
  int ChoicesEnd(int v) const { return first_choice_[v + 1]; }
  // The state whose choice c is.
  int StateOf(int c) const;
  const Choice& choice(int c) const { return choices_[c]; }
  int choice_count() const { return static_cast<int>(choices_.size()); }
  std::span<const Outcome> OutcomesOf(int c) const {
    const Choice& ch = choices_[c];
    return {outcomes_.data() + ch.first, static_cast<size_t>(ch.count)};
  }
  // The fairness classes some choice of v has: those enabled in v.
  uint32_t Enabled(int v) const {
    uint32_t on = 0;
    for (int c = ChoicesBegin(v); c < ChoicesEnd(v); ++c) on |= choices_[c].fair;
    return on;
  }

 private:
  // first_choice_[v]: state v's first choice; one more entry ends the last.
  std::vector<int> first_choice_{0};
  std::vector<Choice> choices_;
  std::vector<Outcome> outcomes_;
};

inline int Mdp::StateOf(int c) const {
  // The last state whose first choice is at or before c.
  int lo = 0, hi = size() - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (first_choice_[mid] <= c) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace lockstep::mdp
