// Sampling searches: many single executions, each chosen by a strategy.
#include <chrono>
#include <unordered_set>

#include "sim/explore/search.h"
#include "sim/explore/state_space.h"

namespace lockstep::explore {

SearchResult SampleExecutions(const world::WorldConfig& config, const Properties& properties,
                              const StrategyFactory& make_strategy, uint64_t executions,
                              int max_steps, const SearchOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_report = start;
  StateSpace space(config, properties,
                   {.forget_history = options.reductions.forget_history,
                    .abstract_identity = options.reductions.forget_history,
                    .symmetry = options.reductions.symmetry,
                    .max_steps = max_steps});
  std::unordered_set<Fingerprint, FingerprintHash> seen;
  SearchResult result;
  SearchStats& st = result.stats;
  // Counts the states an execution meets and heeds a stop at its next
  // step, however long it is; the execution itself is RunExecution's.
  class Sampled final : public StepObserver {
   public:
    Sampled(StateSpace& space, std::unordered_set<Fingerprint, FingerprintHash>& seen,
            SearchStats& st)
        : space_(space), seen_(seen), st_(st) {}
    void Applied(const world::Model&, const world::WorldState& s, int, const world::Action&,
                 world::StepEffects) override {
      ++st_.transitions;
      seen_.insert(space_.Identity(s));
    }
    bool wants_effects() const override { return false; }

   private:
    StateSpace& space_;
    std::unordered_set<Fingerprint, FingerprintHash>& seen_;
    SearchStats& st_;
  } sampled(space, seen, st);
  for (uint64_t i = 0; i < executions; ++i) {
    if (options.interrupted && options.interrupted->load()) {
      result.verdict = Verdict::kIncomplete;
      result.incomplete = "interrupted";
      break;
    }
    std::unique_ptr<Strategy> strategy = make_strategy(i, st.max_depth);
    world::WorldState s0;
    space.Initial(&s0);
    seen.insert(space.Identity(s0));
    ++st.executions;
    const ExecutionResult run = RunExecution(space, *strategy, options.interrupted, &sampled);
    if (run.violation) {
      result.verdict = Verdict::kViolation;
      result.violation = run.violation;
      result.counterexample = run.schedule;
    }
    const std::vector<world::Action>& path = run.schedule;
    st.max_depth = std::max(st.max_depth, static_cast<int>(path.size()));
    if (result.verdict == Verdict::kViolation) break;
    auto now = Clock::now();
    if (options.progress && now - last_report > std::chrono::milliseconds(250)) {
      last_report = now;
      st.states = seen.size();
      st.elapsed_s = std::chrono::duration<double>(now - start).count();
      SetAutomata(space.model(), &st);
      options.progress(st);
    }
  }
  st.states = seen.size();
  st.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  SetAutomata(space.model(), &st);
  if (result.verdict == Verdict::kSafe) {
    // Sampling proves nothing: no violation among the executions tried.
    result.verdict = Verdict::kIncomplete;
    result.incomplete = "no violation in " + std::to_string(st.executions) +
                        " sampled executions (sampling cannot show safety)";
  }
  return result;
}

}  // namespace lockstep::explore
