#include "sim/scenario/overrides.h"

#include <exception>
#include <stdexcept>
#include <vector>

#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/world/fault_kind.h"

namespace lockstep::scenario {
namespace {

using nlohmann::json;

[[noreturn]] void Refuse(const std::string& message) { throw base::InputError("", "", message); }

// The document's clients without the contenders past the first n.
json KeepContenders(const Scenario& s, int n) {
  int contenders = 0;
  for (const auto& c : s.world.clients) contenders += !c.crashed;
  if (n < 1 || n > contenders) {
    Refuse("--clients " + std::to_string(n) + ": the scenario has " + std::to_string(contenders) +
           " contending clients");
  }
  json kept = json::array();
  int taken = 0;
  for (const json& c : s.document.at("clients")) {
    const bool crashed = c.value("crashed", false);
    if (crashed || taken < n) {
      taken += !crashed;
      kept.push_back(c);
    }
  }
  return kept;
}

json Horizon(const Scenario& s, const std::string& text) {
  if (text == "none") return nullptr;  // all time
  const int64_t start = s.world.start_time;
  long long horizon = 0;
  try {
    size_t used = 0;
    horizon = std::stoll(text, &used);
    if (used != text.size()) throw std::invalid_argument("");
  } catch (const std::exception&) {
    horizon = -1;
  }
  if (horizon < start || horizon > start + base::Limits::kMaxSpan) {
    Refuse("--horizon " + text + ": expected " + std::to_string(start) +
           " (the clock's start) to " + std::to_string(start + base::Limits::kMaxSpan) +
           ", or none (all time)");
  }
  return horizon;
}

json MaxArgDelay(const std::string& text) {
  if (text == "none") return nullptr;
  try {
    size_t used = 0;
    long long d = std::stoll(text, &used);
    if (used != text.size() || d < 0) throw std::invalid_argument("");
    return d;
  } catch (const std::exception&) {
    Refuse("--max-arg-delay: expected a non-negative integer or \"none\", got \"" + text + "\"");
  }
}

// The budgets after "KIND=N,...": every kind, as the scenario had it unless
// named.
json Faults(const Scenario& s, const std::string& spec) {
  world::FaultBudget b = s.world.faults;
  size_t at = 0;
  while (at <= spec.size()) {
    size_t comma = spec.find(',', at);
    std::string item = spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    size_t eq = item.find('=');
    std::string kind = item.substr(0, eq);
    int* slot = nullptr;
    for (const world::FaultKind& k : world::kFaultKinds) {
      if (k.name == kind) slot = &(b.*k.count);
    }
    int n = -1;
    if (eq != std::string::npos) {
      try {
        size_t used = 0;
        n = std::stoi(item.substr(eq + 1), &used);
        if (used != item.size() - eq - 1) n = -1;
      } catch (const std::exception&) {
        n = -1;
      }
    }
    if (!slot || n < 0 || n > world::kMaxFaultBudget) {
      Refuse("--faults: expected KIND=N items separated by commas, KIND one of " +
             world::FaultKindNames() + " and N in 0.." + std::to_string(world::kMaxFaultBudget) +
             "; got \"" + item + "\"");
    }
    *slot = n;
  }
  if (b.jump > 0 && b.jump_by.empty()) {
    Refuse("--faults: jump faults need the scenario's \"jump_by\" sizes");
  }
  json f = s.document.contains("faults") ? s.document.at("faults") : json::object();
  for (const world::FaultKind& k : world::kFaultKinds) f[std::string(k.name)] = b.*k.count;
  return f;
}

}  // namespace

void ApplyOverrides(Scenario& s, const Overrides& o) {
  if (o.empty()) return;
  json doc = s.document;
  if (o.clients) doc["clients"] = KeepContenders(s, *o.clients);
  if (o.horizon) doc["clock"]["horizon"] = Horizon(s, *o.horizon);
  if (o.max_arg_delay) doc["assumptions"]["max_arg_delay"] = MaxArgDelay(*o.max_arg_delay);
  if (o.faults) doc["faults"] = Faults(s, *o.faults);
  if (o.probabilistic) doc["probabilistic"] = true;
  Scenario derived = LoadScenario(doc, s.file);
  derived.schedule_text = std::move(s.schedule_text);
  derived.schedule = std::move(s.schedule);
  derived.has_schedule = s.has_schedule;
  derived.warnings = std::move(s.warnings);
  s = std::move(derived);
}

}  // namespace lockstep::scenario
