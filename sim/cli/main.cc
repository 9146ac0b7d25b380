// lockstep: a deterministic simulator and race explorer for Redis locks.
#include <string>
#include <vector>

#include "sim/cli/command_line.h"
#include "sim/run/stop_signals.h"

int main(int argc, char** argv) {
  lockstep::run::InstallStopSignals();
  return lockstep::cli::RunCommandLine(std::vector<std::string>(argv + 1, argv + argc));
}
