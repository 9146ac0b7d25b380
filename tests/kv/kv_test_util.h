// Shared helpers for the sim/kv tests: run a command on a keyspace at a
// virtual time and compare its reply in redis-cli's rendering, which keeps
// the expectations close to the Tcl tests they reproduce.
#pragma once

#include <string>
#include <vector>

#include "sim/kv/dispatch.h"
#include "sim/kv/keyspace.h"

namespace lockstep::kv::testing {

class Server {
 public:
  // Runs argv at virtual time now (milliseconds) and renders the reply.
  std::string Run(Millis now, std::vector<std::string> argv) {
    return Execute(ks, argv, now, &last_effect).ToString();
  }

  Keyspace ks;
  Effect last_effect;
};

}  // namespace lockstep::kv::testing
