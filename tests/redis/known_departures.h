// Every deliberate difference between the model (sim/kv) and a real Redis
// 7.0 server, in one place. The conformance test consults this list and
// nothing else: a difference not listed here is a model bug.
//
// Not a departure, but how the test avoids one: the model has no clock and
// real Redis reads its own. The test reads the server's clock (TIME) just
// before and just after each command and runs the model at that instant; in
// the rare case the two readings straddle a millisecond and the outcome
// depends on which, every instant in between is a correct answer, and the
// test accepts the one the server's reply and keyspace show.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lockstep::conformance {

struct Departure {
  std::string_view id;
  std::string_view what;
};

inline constexpr Departure kKnownDepartures[] = {
    {"empty-command",
     "An empty command (argv with no name): the model answers \"ERR unknown command ''\"; "
     "a real server reads *0 as nothing and sends no reply at all."},
};

// The id of the departure `argv` falls under, or an empty view if none. The
// test sends such a command to neither side and counts it under the id.
inline std::string_view DepartureFor(const std::vector<std::string>& argv) {
  if (argv.empty()) return kKnownDepartures[0].id;
  return {};
}

}  // namespace lockstep::conformance
