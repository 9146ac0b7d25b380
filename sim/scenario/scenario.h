// Scenario files: JSON documents in scenarios/ that describe one simulated
// system (clients and their algorithms, the lock's settings, the initial
// keyspace, the clock, the assumptions, the fault budget), the outcome
// expected, and optionally a schedule to replay.
//
// Loading validates every field: a bad file is a ScenarioError naming the
// file, the JSON pointer and what was expected there. The field reference is
// FieldReference() below (also printed by `lockstep list --fields`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/algo/algorithm.h"
#include "sim/base/input_error.h"
#include "sim/base/limits.h"
#include "sim/scenario/program_trust.h"
#include "sim/world/world.h"

namespace lockstep::scenario {

// "scenarios/x.json: at /clients/1/algorithm: expected one of ...": the
// file, then the message (`expected`), which names the place when there is one.
struct ScenarioError : base::InputError {
  ScenarioError(const std::string& file_in, const std::string& message_in)
      : base::InputError(file_in, "", message_in) {}
};

// The programs of a scenario that may not start (program_trust.h): what()
// says each program, exactly, and how to allow it.
struct ProgramsNotAllowed : ScenarioError {
  ProgramsNotAllowed(const std::string& file_in, const std::string& place_in,
                     const std::vector<NamedProgram>& refused_in);
  std::vector<NamedProgram> refused;
};

// The outcome a scenario expects, if it says ("expect" is optional: a new
// scenario's author does not know it yet, and the outcome is reported
// either way).
struct Expectation {
  bool safe = true;      // false: a violation of `property` is expected
  std::string property;  // when !safe
  bool stated = true;    // false: the scenario expects nothing (safe is then true)
  // With `safe`: no violation, and some client expected to enter the
  // critical section enters it in no schedule ("expect": "vacuous").
  bool vacuous = false;
  std::string Text() const {
    return !stated ? "not stated" : vacuous ? "vacuous" : safe ? "safe" : "violation:" + property;
  }
  // Whether an outcome violating `violated` ("": none) is the one expected;
  // any outcome is, when none is stated. One run cannot tell a vacuous
  // SAFE from another: "vacuous" expects no violation of it.
  bool Matches(const std::string& violated) const {
    return !stated || (violated.empty() ? safe : !safe && property == violated);
  }
  // The same for an exhaustive search, which tells them apart: `vacuous`,
  // a SAFE in which some client expected to enter never did.
  bool MatchesSearch(const std::string& violated, bool vacuous_safe) const {
    return Matches(violated) && (!stated || !violated.empty() || vacuous == vacuous_safe);
  }
};

struct Scenario {
  std::string file;  // where it was read from, for messages
  std::string name;
  std::string description;
  nlohmann::json document;  // the scenario as written, without "schedule"
  world::WorldConfig world;
  std::vector<std::string> algorithms;  // per client; "" if crashed at start
  // Per client: the scenario says it may enter the critical section in no
  // schedule (a SAFE is then not vacuous for it).
  std::vector<bool> may_never_enter;
  std::vector<std::string> properties;
  Expectation expect;
  std::vector<std::string> schedule_text;  // empty if none given
  std::vector<world::Action> schedule;
  bool has_schedule = false;
  int max_steps = base::Limits::kDefaultMaxSteps;
  // "at /pointer: what": valid but likely not what was meant; the CLI
  // prints them on stderr.
  std::vector<std::string> warnings;
  // The programs it starts (process clients), each only with the user's
  // say (program_trust.h); where the first is named.
  std::vector<NamedProgram> programs;
  std::string first_program_place;
};

// Reads and validates a scenario file. Throws ScenarioError, and
// ProgramsNotAllowed for a scenario to run whose programs the user did not
// allow (program_trust.h).
Scenario LoadScenarioFile(const std::string& path, LoadPurpose purpose = LoadPurpose::kRun);

// Validates a scenario document. `file` and `pointer_prefix` locate it in
// messages (a trace embeds its scenario at "/scenario"). Throws as
// LoadScenarioFile does.
Scenario LoadScenario(const nlohmann::json& document, const std::string& file,
                      const std::string& pointer_prefix = "",
                      LoadPurpose purpose = LoadPurpose::kRun);

// The largest file lockstep reads, scenario or trace; it writes no trace
// larger than this either.
inline constexpr size_t kMaxInputBytes = size_t{16} << 20;

// Reads a whole file; throws ScenarioError if it cannot be read or is larger
// than kMaxInputBytes.
std::string ReadFile(const std::string& path);

std::string FieldReference();

}  // namespace lockstep::scenario
