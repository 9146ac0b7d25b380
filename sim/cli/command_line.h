// The lockstep command line: its subcommands and options, parsed and run.
// main() calls it; so does the command-line fuzz target.
#pragma once

#include <string>
#include <vector>

namespace lockstep::cli {

// Parses `args` (without the program's name), runs the subcommand and
// returns the process's exit code (commands.h).
int RunCommandLine(const std::vector<std::string>& args);

}  // namespace lockstep::cli
