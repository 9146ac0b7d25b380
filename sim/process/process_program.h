// A client that is a process: what the scenario says to run, and the body
// that runs it (docs/design.md, "Processes as clients").
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/world/client.h"

namespace lockstep::process {

struct ProcessProgram {
  std::vector<std::string> command;        // argv as the scenario gives it
  std::string program;                     // command[0] as found (FindProgram)
  std::map<std::string, std::string> env;  // added to the environment lockstep gives it
  std::string cwd;                         // where it runs: absolute
  int timeout_seconds = 10;                // real time it may take to do anything
  std::string label;                       // how traces name its steps: "lock_demo.py"
  // false: it declares that it draws no random numbers of its own. Its
  // random bytes are then one stream shared by every client that runs it,
  // and such clients are interchangeable for symmetry.
  bool draws_numbers = true;
  // The user said it may start (scenario/program_trust.h): set where the
  // scenario is loaded, checked again where it would start.
  bool allowed = false;
};

// The seed of that shared stream.
inline constexpr uint64_t kSharedRandomSeed = 0x6c6f636b73746570;

// Processes kept parked per client (world::ClientSetup::max_parked): each is a
// whole program, not a fiber's stack.
inline constexpr size_t kParkedProcesses = 16;

// The body of client `client` (its name) that runs `program`, serving it
// the scenario's servers, with `settings` (the lock settings, as a Lua
// algorithm's lock.settings) in its environment.
std::function<void(world::Client&)> MakeProcessBody(std::shared_ptr<const ProcessProgram> program,
                                                    nlohmann::json settings, std::string client);

// liblockstep_client.so: $LOCKSTEP_CLIENT_SHIM, else beside this program,
// else in ../lib/lockstep or ../lib/<multiarch>/lockstep from it; "" if none.
std::string FindClientShim();

}  // namespace lockstep::process
