// Breadth-first search from a prefix's state, as ShortestCounterexample does
// from the initial state: states are cached, so the first violation found
// is a shortest one.
#include "sim/explore/continuation.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_set>

#include "sim/explore/replay_strategy.h"
#include "sim/explore/state_space.h"

namespace lockstep::explore {

Continuation ShortestContinuation(const world::WorldConfig& config, const Properties& properties,
                                  const std::vector<world::Action>& prefix, int max_steps,
                                  uint64_t max_states, const std::atomic<bool>* stop,
                                  const std::function<void(const SearchStats&)>& progress,
                                  bool symmetry) {
  const auto start = std::chrono::steady_clock::now();
  Continuation result;

  const int base = static_cast<int>(prefix.size());
  StateSpace space(config, properties,
                   {.forget_history = true,
                    .abstract_identity = true,
                    .symmetry = symmetry,
                    .max_steps = max_steps > std::numeric_limits<int>::max() - base
                                     ? std::nullopt
                                     : std::optional<int>(base + max_steps)});
  world::Model& model = space.model();
  result.symmetry_classes = space.symmetry_classes();
  std::deque<std::pair<world::WorldState, int64_t>> queue;
  std::optional<world::Millis> clock_reached;  // of the states queued
  // The gauges of the stats: the queue, the clock, the automata.
  auto gauges = [&] {
    SearchStats& st = result.stats;
    st.waiting = queue.size();
    st.clock_reached = clock_reached;
    SetAutomata(model, &st);
  };
  auto finish = [&](Continuation::Outcome outcome) {
    result.outcome = outcome;
    gauges();
    result.stats.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  world::WorldState s0;
  if ((result.violation = space.Initial(&s0))) return finish(Continuation::Outcome::kFound);
  for (size_t i = 0; i < prefix.size(); ++i) {
    std::string why;
    if (!model.IsEnabled(s0, prefix[i], &why)) {
      throw ScheduleError(
          i, "'" + world::FormatAction(prefix[i], model.client_names(), model.server_names()) +
                 "' is not possible here: " + why);
    }
    if ((result.violation = space.Step(s0, prefix[i], static_cast<int>(i) + 1))) {
      return finish(Continuation::Outcome::kFound);
    }
  }

  struct Node {
    int64_t parent;
    world::Action action;
    int depth;
  };
  std::vector<Node> nodes;
  std::unordered_set<Fingerprint, FingerprintHash> seen;
  seen.insert(space.Identity(s0));
  clock_reached = s0.now;
  queue.emplace_back(std::move(s0), -1);
  std::vector<world::Action> enabled;
  auto last_report = start;
  // The path from the initial state to `node`, then `last` if given.
  auto path_to = [&](int64_t node, const world::Action* last) {
    for (int64_t at = node; at >= 0; at = nodes[static_cast<size_t>(at)].parent) {
      result.actions.push_back(nodes[static_cast<size_t>(at)].action);
    }
    std::reverse(result.actions.begin(), result.actions.end());
    if (last) result.actions.push_back(*last);
  };
  for (uint64_t popped = 0; !queue.empty(); ++popped) {
    // A stop is heeded at the next state however long states take; the
    // clock, for progress, is read every 64.
    if (stop && stop->load(std::memory_order_relaxed)) {
      result.stats.states = seen.size();
      result.why = "interrupted";
      return finish(Continuation::Outcome::kGaveUp);
    }
    if (popped % 64 == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (progress && now - last_report > std::chrono::milliseconds(250)) {
        last_report = now;
        result.stats.states = seen.size();
        result.stats.elapsed_s = std::chrono::duration<double>(now - start).count();
        gauges();
        progress(result.stats);
      }
    }
    auto [s, node] = std::move(queue.front());
    queue.pop_front();
    const int depth = node < 0 ? 0 : nodes[static_cast<size_t>(node)].depth;
    std::optional<check::Violation> end;
    const Offer offer = space.Offers(s, base + depth, &enabled, &end);
    if (offer == Offer::kEnd) {
      // Nothing more can happen: properties of the end.
      if (end) {
        path_to(node, nullptr);
        result.violation = std::move(end);
        result.stats.states = seen.size();
        return finish(Continuation::Outcome::kFound);
      }
      continue;
    }
    if (offer == Offer::kStepBound) {
      result.step_bound_reached = true;
      continue;
    }
    for (const world::Action& a : enabled) {
      world::WorldState next = s;
      std::optional<check::Violation> v = space.Step(next, a, base + depth + 1);
      ++result.stats.transitions;
      result.stats.max_depth = std::max(result.stats.max_depth, depth + 1);
      if (v) {
        path_to(node, &a);
        result.violation = std::move(v);
        result.stats.states = seen.size();
        return finish(Continuation::Outcome::kFound);
      }
      if (!seen.insert(space.Identity(next)).second) continue;
      // Only a new state needs its way back: a node per state, not per
      // transition.
      nodes.push_back({node, a, depth + 1});
      const int64_t id = static_cast<int64_t>(nodes.size()) - 1;
      if (seen.size() > max_states) {
        result.stats.states = seen.size();
        result.why = StateBudgetText(max_states);
        return finish(Continuation::Outcome::kGaveUp);
      }
      clock_reached = std::max(*clock_reached, next.now);
      queue.emplace_back(std::move(next), id);
    }
  }
  result.stats.states = seen.size();
  return finish(Continuation::Outcome::kUnreachable);
}

}  // namespace lockstep::explore
