// Breadth-first search for the violation reachable in the fewest steps.
// States are cached (with symmetry: a violation's distance does not depend
// on which of two interchangeable clients is which), so the first violation
// found is a shortest one.
#include <chrono>
#include <deque>
#include <unordered_set>

#include "sim/explore/search.h"

namespace lockstep::explore {

std::optional<SearchResult> ShortestCounterexample(const world::WorldConfig& config,
                                                   const Properties& properties, int max_steps,
                                                   uint64_t max_states) {
  const auto start = std::chrono::steady_clock::now();
  world::Model model(config, /*use_forget_history=*/true);
  Fingerprinter fingerprinter(model, /*symmetry=*/true, /*abstract=*/true, GhostOf(properties));
  struct Node {
    int64_t parent;
    world::Action action;
  };
  std::vector<Node> nodes;
  std::deque<std::pair<world::WorldState, int64_t>> queue;
  std::unordered_set<Fingerprint, FingerprintHash> seen;
  SearchResult result;
  world::WorldState s0 = model.Initial();
  seen.insert(fingerprinter.Of(s0, {}, nullptr));
  queue.emplace_back(std::move(s0), -1);
  std::vector<int> depth_of = {0};  // of queue entries, by node index + 1
  std::vector<world::Action> enabled;
  // The result for a violation at `node` (the path to it) and `depth`.
  auto found = [&](int64_t node, const check::Violation& v, int depth) {
    for (int64_t at = node; at >= 0; at = nodes[at].parent) {
      result.counterexample.push_back(nodes[at].action);
    }
    std::reverse(result.counterexample.begin(), result.counterexample.end());
    result.verdict = Verdict::kViolation;
    result.violation = v;
    result.stats.states = seen.size();
    result.stats.max_depth = depth;
    result.stats.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::optional<SearchResult>(result);
  };
  while (!queue.empty()) {
    auto [s, node] = std::move(queue.front());
    queue.pop_front();
    int depth = node < 0 ? 0 : depth_of[static_cast<size_t>(node) + 1];
    model.EnabledActions(s, &enabled);
    if (enabled.empty()) {
      if (auto v = check::CheckAllEnd(properties, model, s, depth)) return found(node, *v, depth);
      continue;
    }
    if (depth >= max_steps) continue;
    for (const world::Action& a : enabled) {
      world::WorldState next = s;
      model.Apply(next, a, nullptr);
      ++result.stats.transitions;
      nodes.push_back({node, a});
      depth_of.push_back(depth + 1);
      const int64_t id = static_cast<int64_t>(nodes.size()) - 1;
      if (auto v = check::CheckAll(properties, model, next, depth + 1)) {
        return found(id, *v, depth + 1);
      }
      if (!seen.insert(fingerprinter.Of(next, {}, nullptr)).second) continue;
      if (seen.size() > max_states) return std::nullopt;
      queue.emplace_back(std::move(next), id);
    }
  }
  return std::nullopt;
}

}  // namespace lockstep::explore
