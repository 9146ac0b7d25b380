// Command-line overrides of a scenario (explore's --clients, --horizon,
// --max-arg-delay, --faults, --probabilistic), applied in one place.
//
// A scenario has one form, its document: the typed Scenario is what
// LoadScenario derives from it. An override edits the document and derives
// the typed scenario again, so the scenario a trace embeds is always the one
// that was searched, and an overridden value is checked as a file's is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/scenario/scenario.h"

namespace lockstep::scenario {

struct Overrides {
  std::optional<int> clients;                // keep the first N contending clients
  std::optional<std::string> horizon;        // an integer the clock never passes, or "none"
  std::optional<std::string> max_arg_delay;  // an integer, or "none"
  std::optional<std::string> faults;         // "crash=1,stall=1,...", per world::kFaultKinds
  bool probabilistic = false;                // random back-offs are draws (--probabilistic)

  bool empty() const { return !clients && !horizon && !max_arg_delay && !faults && !probabilistic; }
};

// Applies `o` to `s`. Throws base::InputError naming the option for a value
// the scenario cannot take. The schedule and the warnings of the file as
// written are kept.
void ApplyOverrides(Scenario& s, const Overrides& o);

}  // namespace lockstep::scenario
