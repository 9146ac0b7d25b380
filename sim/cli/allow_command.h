// Starting the programs a file names (scenario/program_trust.h): the
// --allow-programs flag of the commands that can start one, and
// `lockstep allow FILE...`, which trusts exactly what those files would start.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace lockstep::cli {

// Gives `command` the flag --allow-programs.
void AddAllowPrograms(CLI::App* command);

// `lockstep allow FILE...`: each file's programs (a scenario's, or a
// trace's scenario's) printed and added to the trusted list. Returns the
// exit code; throws base::InputError for a file that is no scenario or trace.
int Allow(const std::vector<std::string>& files);

}  // namespace lockstep::cli
