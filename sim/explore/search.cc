#include "sim/explore/search.h"

#include <algorithm>

namespace lockstep::explore {

const char* VerdictText(Verdict v) {
  switch (v) {
    case Verdict::kSafe:
      return "safe";
    case Verdict::kViolation:
      return "violation";
    case Verdict::kIncomplete:
      return "incomplete";
  }
  return "?";
}

std::string RunawayText(int steps) {
  return "an execution reached " + std::to_string(steps) +
         " steps (max_steps), and the search stopped there: a client may loop for ever without "
         "the clock moving, or remember every reply it saw; give a larger "
         "max_steps (or --max-steps) for executions that long";
}

std::string StateBudgetText(uint64_t states) {
  return "stopped after " + std::to_string(states) + " states";
}

std::string TransitionBudgetText(uint64_t transitions) {
  return "stopped after " + std::to_string(transitions) + " transitions";
}

void AddGrowthWarnings(const world::Model& model, std::vector<std::string>* warnings) {
  for (int i = 0; i < model.client_count(); ++i) {
    std::string w = model.automaton(i).GrowthWarning();
    if (!w.empty() && std::find(warnings->begin(), warnings->end(), w) == warnings->end()) {
      warnings->push_back(std::move(w));
    }
  }
}

void SetAutomata(const world::Model& model, SearchStats* stats) {
  stats->automata_bytes = stats->automata_states = stats->automata_transitions =
      stats->automata_forgets = 0;
  for (int i = 0; i < model.client_count(); ++i) {
    const world::ClientAutomaton& a = model.automaton(i);
    stats->automata_bytes += a.bytes();
    stats->automata_states += a.states();
    stats->automata_transitions += a.transitions();
    stats->automata_forgets += a.forgets();
  }
}

}  // namespace lockstep::explore
