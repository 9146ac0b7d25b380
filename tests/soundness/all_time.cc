// The all-time oracle (harness.h, CompareAllTime): a verdict for all time
// against the same scenario searched at horizons.
#include <string>
#include <vector>

#include "sim/world/model.h"
#include "tests/soundness/harness.h"

namespace lockstep::soundness {
namespace {

// Horizons past the start a SAFE for all time is checked at. Small
// scenarios show a violation within a few ticks, if they have one.
constexpr world::Millis kHorizonsChecked = 6;

// The clock when `counterexample` ends.
world::Millis EndTime(const world::WorldConfig& config,
                      const std::vector<world::Action>& counterexample) {
  world::Model model(config, true);
  world::WorldState s = model.Initial();
  for (const world::Action& a : counterexample) model.Apply(s, a, nullptr);
  return s.now;
}

}  // namespace

std::vector<Disagreement> CompareAllTime(const scenario::Scenario& s,
                                         const std::string& plain_verdict, const Limits& limits,
                                         bool* compared) {
  std::vector<Disagreement> out;
  const explore::Properties properties = explore::MakeProperties(s.properties);
  Mode all_time;
  all_time.name = "all time";
  all_time.step_bound = false;
  const Outcome whole = Search(s, properties, all_time, false, limits);
  if (whole.out_of_time || whole.result.verdict == explore::Verdict::kIncomplete) return out;
  *compared = true;
  const bool violated = whole.result.verdict == explore::Verdict::kViolation;
  // A violation within the step bound is one for all time.
  if (plain_verdict.starts_with("violation:") && !violated) {
    out.push_back({"all time", "all time", plain_verdict + " within max_steps", whole.Verdict()});
  }
  auto at_horizon = [&](world::Millis horizon) {
    scenario::Scenario bounded = s;
    bounded.world.horizon = horizon;
    Mode m;
    m.name = "horizon-bounded search";
    m.step_bound = false;
    return Search(bounded, properties, m, false, limits);
  };
  if (violated) {
    // The counterexample fits within a horizon past its end (at the
    // horizon itself the clock stops for everyone: no state is stuck).
    const world::Millis horizon = EndTime(s.world, whole.result.counterexample) + 1;
    const Outcome bounded = at_horizon(horizon);
    if (!bounded.out_of_time && bounded.result.verdict != explore::Verdict::kViolation) {
      out.push_back({"all time", "horizon-bounded search",
                     whole.Verdict() + " within horizon " + std::to_string(horizon),
                     bounded.Verdict() + " at horizon " + std::to_string(horizon)});
    }
    return out;
  }
  for (world::Millis h = s.world.start_time; h <= s.world.start_time + kHorizonsChecked; ++h) {
    const Outcome bounded = at_horizon(h);
    if (bounded.out_of_time) break;
    if (bounded.result.verdict == explore::Verdict::kViolation) {
      out.push_back({"all time", "horizon-bounded search", "safe for all time",
                     bounded.Verdict() + " at horizon " + std::to_string(h)});
      break;
    }
  }
  return out;
}

}  // namespace lockstep::soundness
