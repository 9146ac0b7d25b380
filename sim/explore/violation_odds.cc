#include "sim/explore/violation_odds.h"

#include <chrono>
#include <deque>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "sim/explore/end_component_search.h"
#include "sim/explore/state_space.h"

namespace lockstep::explore {
namespace {

using world::Action;

// The state graph, numbered breadth first, as the process the solver
// weighs; each property's violation is a state of its own that ends the
// run, and an end that violates one is marked its target.
struct OddsGraph {
  mdp::Mdp mdp;
  std::vector<std::vector<char>> target;  // target[p][v]
};

std::string Interval(double lower, double upper) {
  std::ostringstream text;
  text.precision(10);
  text << lower << " to " << upper;
  return text.str();
}

}  // namespace

OddsSearch FindViolationOdds(const world::WorldConfig& config,
                             const std::vector<std::string>& properties, bool forget_history,
                             const std::vector<world::Action>& schedule, uint64_t max_states,
                             const std::atomic<bool>* interrupted) {
  const auto started = std::chrono::steady_clock::now();
  OddsSearch out;
  // The safety properties among them (MakeProperties leaves out liveness,
  // which has no odds here).
  const Properties checked = MakeProperties(properties);
  std::vector<std::string> names;
  for (const auto& p : checked) names.emplace_back(p->name());
  StateSpace space(config, checked,
                   {.forget_history = forget_history,
                    .abstract_identity = forget_history,
                    .symmetry = false,
                    .max_steps = std::nullopt});
  const int n_properties = static_cast<int>(names.size());
  auto property_index = [&](const std::string& name) {
    for (int p = 0; p < n_properties; ++p) {
      if (names[p] == name) return p;
    }
    return -1;
  };
  OddsGraph g;
  g.target.assign(n_properties, {});
  // Breadth first: a node is expanded in the order it was found, so its
  // choices follow it in the process (mdp::Mdp's order). A violation's node
  // has no state and no choice.
  std::deque<std::optional<world::WorldState>> queue;
  std::unordered_map<Fingerprint, int, FingerprintHash> index;
  std::vector<int> violation_node(n_properties, -1);
  int nodes = 0;
  auto mark = [&](int p, int v) {
    if (g.target[p].size() <= static_cast<size_t>(v)) g.target[p].resize(v + 1, 0);
    g.target[p][v] = 1;
  };
  auto node_of_violation = [&](const check::Violation& v) {
    const int p = property_index(v.property);
    if (violation_node[p] < 0) {
      violation_node[p] = nodes++;
      queue.emplace_back(std::nullopt);
      mark(p, violation_node[p]);
    }
    return violation_node[p];
  };
  auto node_of = [&](const world::WorldState& s) {
    auto [it, fresh] = index.try_emplace(space.Identity(s), nodes);
    if (fresh) {
      ++nodes;
      queue.emplace_back(s);
    }
    return it->second;
  };
  world::WorldState initial;
  if (std::optional<check::Violation> v = space.Initial(&initial)) {
    node_of_violation(*v);
  } else {
    node_of(initial);
  }
  std::vector<Action> actions;
  std::vector<int> to;
  std::vector<mdp::Outcome> outcomes;
  for (int v = 0; !queue.empty(); ++v) {
    if (interrupted && *interrupted) {
      out.verdict = Verdict::kIncomplete;
      out.incomplete = "stopped";
      break;
    }
    if (static_cast<uint64_t>(nodes) > max_states) {
      out.verdict = Verdict::kIncomplete;
      out.incomplete = "weighing the odds keeps every state, and there are more than " +
                       std::to_string(max_states);
      break;
    }
    std::optional<world::WorldState> s = std::move(queue.front());
    queue.pop_front();
    g.mdp.AddState();
    if (!s) continue;
    std::optional<check::Violation> end;
    if (space.Offers(*s, 0, &actions, &end) != Offer::kActions) {
      if (end) mark(property_index(end->property), v);
      continue;
    }
    to.clear();
    for (const Action& a : actions) {
      world::WorldState next = *s;
      const std::optional<check::Violation> violated = space.Step(next, a, 0);
      to.push_back(violated ? node_of_violation(*violated) : node_of(next));
      ++out.stats.transitions;
    }
    for (const std::vector<int>& choice :
         DrawChoices(static_cast<int>(actions.size()),
                     [&](int k) -> const Action& { return actions[k]; })) {
      outcomes.clear();
      for (int k : choice) outcomes.push_back({.to = to[k], .weight = 1});
      g.mdp.AddChoice(0, outcomes);
    }
  }
  out.stats.states = static_cast<uint64_t>(nodes);
  if (out.verdict == Verdict::kSafe) {
    g.mdp.Check();
    // The nodes of the schedule's states before its last step, in order (at
    // its end the violation is certain by definition), as far as the graph
    // has them.
    std::vector<int> along;
    world::WorldState at = initial;
    for (size_t k = 0; k < schedule.size(); ++k) {
      const auto found = index.find(space.Identity(at));
      if (found == index.end()) break;
      along.push_back(found->second);
      if (space.Step(at, schedule[k], 0)) break;
    }
    for (int p = 0; p < n_properties; ++p) {
      g.target[p].resize(g.mdp.size(), 0);
      const mdp::Probabilities least =
          mdp::ReachProbabilities(g.mdp, g.target[p], mdp::Objective::kLeast);
      const mdp::Probabilities greatest =
          mdp::ReachProbabilities(g.mdp, g.target[p], mdp::Objective::kGreatest);
      PropertyOdds o;
      o.property = names[p];
      o.exact = least.exact && greatest.exact;
      if (least.exact) o.least = least.value[0];
      if (greatest.exact) o.greatest = greatest.value[0];
      o.least_lower = least.lower[0];
      o.least_upper = least.upper[0];
      o.greatest_lower = greatest.lower[0];
      o.greatest_upper = greatest.upper[0];
      for (size_t k = 0; least.exact && k < along.size(); ++k) {
        if (least.value[along[k]] == 1) {
          o.certain_after = static_cast<int>(k);
          break;
        }
      }
      out.odds.push_back(std::move(o));
    }
  }
  out.stats.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

std::string LeastText(const PropertyOdds& o) {
  return o.exact ? o.least.str() : Interval(o.least_lower, o.least_upper);
}

std::string GreatestText(const PropertyOdds& o) {
  return o.exact ? o.greatest.str() : Interval(o.greatest_lower, o.greatest_upper);
}

}  // namespace lockstep::explore
