// The choices a scheduler makes: run a client's next step, tick the global
// clock, or inject a fault. A schedule is a sequence of actions; its text
// form ("C1", "C2~1", "tick", "crash C3") is what scenario and trace files
// store.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/keyspace.h"

namespace lockstep::world {

struct Action {
  enum class Kind { kStep, kTick, kCrash };

  Kind kind = Kind::kTick;
  int client = -1;     // kStep, kCrash: index into the world's clients
  kv::Millis age = 0;  // kStep: how many ticks before this step the client's
                       // timestamp arguments were read (0: in this step)

  static Action Step(int client, kv::Millis age = 0) {
    return {Kind::kStep, client, age};
  }
  static Action Tick() { return {Kind::kTick, -1, 0}; }
  static Action Crash(int client) { return {Kind::kCrash, client, 0}; }

  friend bool operator==(const Action&, const Action&) = default;
};

// Text form, with client names: "C1", "C1~2", "tick", "crash C3".
std::string FormatAction(const Action& a,
                         const std::vector<std::string>& client_names);

// Parses the text form. Returns nullopt, with a reason in *error, iff the
// text is not an action over these client names.
std::optional<Action> ParseAction(std::string_view text,
                                  const std::vector<std::string>& client_names,
                                  std::string* error);

}  // namespace lockstep::world
