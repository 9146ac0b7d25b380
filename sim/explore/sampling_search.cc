// Sampling searches: many single executions, each chosen by a strategy.
#include <chrono>
#include <unordered_set>

#include "sim/explore/search.h"

namespace lockstep::explore {

SearchResult SampleExecutions(const world::WorldConfig& config, const Properties& properties,
                              const StrategyFactory& make_strategy, uint64_t executions,
                              int max_steps, const SearchOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_report = start;
  world::Model model(config, options.reductions.forget_history);
  Fingerprinter fingerprinter(model, options.reductions.symmetry, options.reductions.forget_history,
                              GhostOf(properties));
  std::unordered_set<Fingerprint, FingerprintHash> seen;
  SearchResult result;
  SearchStats& st = result.stats;
  std::vector<world::Action> enabled;
  for (uint64_t i = 0; i < executions; ++i) {
    if (options.interrupted && options.interrupted->load()) {
      result.verdict = Verdict::kIncomplete;
      result.incomplete = "interrupted";
      break;
    }
    std::unique_ptr<Strategy> strategy = make_strategy(i, st.max_depth);
    world::WorldState s = model.Initial();
    seen.insert(fingerprinter.Of(s, nullptr, nullptr));
    std::vector<world::Action> path;
    ++st.executions;
    for (;;) {
      model.EnabledActions(s, &enabled);
      if (enabled.empty()) {
        if (auto v = check::CheckAllEnd(properties, model, s, static_cast<int>(path.size()))) {
          result.verdict = Verdict::kViolation;
          result.violation = v;
          result.counterexample = path;
        }
        break;
      }
      if (static_cast<int>(path.size()) >= max_steps) break;
      // A stop is heeded at the next step, however long an execution is.
      if (options.interrupted && options.interrupted->load(std::memory_order_relaxed)) break;
      std::optional<world::Action> a = strategy->Next(model, s, enabled);
      if (!a) break;
      model.Apply(s, *a, nullptr);
      path.push_back(*a);
      ++st.transitions;
      seen.insert(fingerprinter.Of(s, nullptr, nullptr));
      if (auto v = check::CheckAll(properties, model, s, static_cast<int>(path.size()))) {
        result.verdict = Verdict::kViolation;
        result.violation = v;
        result.counterexample = path;
        break;
      }
    }
    st.max_depth = std::max(st.max_depth, static_cast<int>(path.size()));
    if (result.verdict == Verdict::kViolation) break;
    auto now = Clock::now();
    if (options.progress && now - last_report > std::chrono::milliseconds(250)) {
      last_report = now;
      st.states = seen.size();
      st.elapsed_s = std::chrono::duration<double>(now - start).count();
      options.progress(st);
    }
  }
  st.states = seen.size();
  st.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (result.verdict == Verdict::kSafe) {
    // Sampling proves nothing: no violation among the executions tried.
    result.verdict = Verdict::kIncomplete;
    result.incomplete = "no violation in " + std::to_string(st.executions) +
                        " sampled executions (sampling cannot show safety)";
  }
  return result;
}

}  // namespace lockstep::explore
