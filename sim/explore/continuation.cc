// Breadth-first search from a prefix's state, as ShortestCounterexample does
// from the initial state: states are cached (with symmetry, since a
// violation's distance does not depend on which of two interchangeable
// clients is which), so the first violation found is a shortest one.
#include "sim/explore/continuation.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <unordered_set>

#include "sim/explore/replay_strategy.h"

namespace lockstep::explore {

Continuation ShortestContinuation(const world::WorldConfig& config, const Properties& properties,
                                  const std::vector<world::Action>& prefix, int max_steps,
                                  uint64_t max_states, const std::atomic<bool>* stop,
                                  const std::function<void(const SearchStats&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  Continuation result;
  auto finish = [&](Continuation::Outcome outcome) {
    result.outcome = outcome;
    result.stats.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };

  world::Model model(config, /*use_forget_history=*/true);
  world::WorldState s0 = model.Initial();
  const int base = static_cast<int>(prefix.size());
  for (size_t i = 0; i < prefix.size(); ++i) {
    std::string why;
    if (!model.IsEnabled(s0, prefix[i], &why)) {
      throw ScheduleError(
          i, "'" + world::FormatAction(prefix[i], model.client_names(), model.server_names()) +
                 "' is not possible here: " + why);
    }
    model.Apply(s0, prefix[i], nullptr);
    if (auto v = check::CheckAll(properties, model, s0, static_cast<int>(i) + 1)) {
      result.violation = v;
      return finish(Continuation::Outcome::kFound);
    }
  }

  Fingerprinter fingerprinter(model, /*symmetry=*/true, /*abstract=*/true, GhostOf(properties));
  struct Node {
    int64_t parent;
    world::Action action;
    int depth;
  };
  std::vector<Node> nodes;
  std::deque<std::pair<world::WorldState, int64_t>> queue;
  std::unordered_set<Fingerprint, FingerprintHash> seen;
  seen.insert(fingerprinter.Of(s0, nullptr, nullptr));
  queue.emplace_back(std::move(s0), -1);
  std::vector<world::Action> enabled;
  auto last_report = start;
  // The path from the initial state to `node`, then `last`.
  auto path_to = [&](int64_t node, const world::Action& last) {
    for (int64_t at = node; at >= 0; at = nodes[static_cast<size_t>(at)].parent) {
      result.actions.push_back(nodes[static_cast<size_t>(at)].action);
    }
    std::reverse(result.actions.begin(), result.actions.end());
    result.actions.push_back(last);
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
        progress(result.stats);
      }
    }
    auto [s, node] = std::move(queue.front());
    queue.pop_front();
    const int depth = node < 0 ? 0 : nodes[static_cast<size_t>(node)].depth;
    model.EnabledActions(s, &enabled);
    if (enabled.empty()) {
      // Nothing more can happen: properties of the end (bounded liveness).
      if (auto v = check::CheckAllEnd(properties, model, s, base + depth)) {
        for (int64_t at = node; at >= 0; at = nodes[static_cast<size_t>(at)].parent) {
          result.actions.push_back(nodes[static_cast<size_t>(at)].action);
        }
        std::reverse(result.actions.begin(), result.actions.end());
        result.violation = v;
        result.stats.states = seen.size();
        return finish(Continuation::Outcome::kFound);
      }
      continue;
    }
    if (depth >= max_steps) {
      result.step_bound_reached = true;
      continue;
    }
    for (const world::Action& a : enabled) {
      world::WorldState next = s;
      model.Apply(next, a, nullptr);
      ++result.stats.transitions;
      result.stats.max_depth = std::max(result.stats.max_depth, depth + 1);
      if (auto v = check::CheckAll(properties, model, next, base + depth + 1)) {
        path_to(node, a);
        result.violation = v;
        result.stats.states = seen.size();
        return finish(Continuation::Outcome::kFound);
      }
      if (!seen.insert(fingerprinter.Of(next, nullptr, nullptr)).second) continue;
      // Only a new state needs its way back: a node per state, not per
      // transition.
      nodes.push_back({node, a, depth + 1});
      const int64_t id = static_cast<int64_t>(nodes.size()) - 1;
      if (seen.size() > max_states) {
        result.stats.states = seen.size();
        result.why = StateBudgetText(max_states);
        return finish(Continuation::Outcome::kGaveUp);
      }
      queue.emplace_back(std::move(next), id);
    }
  }
  result.stats.states = seen.size();
  return finish(Continuation::Outcome::kUnreachable);
}

}  // namespace lockstep::explore
