// A scenario or a trace is data: a program it names starts only with the
// user's say (README, "Reliability"). The say is --allow-programs (on every
// command that can start one), LOCKSTEP_ALLOW_PROGRAMS=1 in the environment
// (for CI), or `lockstep allow FILE`, which pins trust to exactly what would
// start: the program found, its argv, the environment the scenario adds and
// the folder, as direnv pins an .envrc to its hash. A file changed in any of
// them, or a trace someone sent that names another program, is asked about
// again.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace lockstep::process {
struct ProcessProgram;  // process/process_program.h
}  // namespace lockstep::process

namespace lockstep::scenario {

// A program a scenario would start, with the client that runs it.
struct NamedProgram {
  std::string client;
  std::shared_ptr<process::ProcessProgram> program;
};

// What a load is for: to run (programs start only with the user's say), or
// only to describe (lockstep list, lockstep allow): then no program may start.
enum class LoadPurpose { kRun, kDescribe };

// The user said, for this process, that the programs files name may start
// (--allow-programs). LOCKSTEP_ALLOW_PROGRAMS=1 says the same.
void SetProgramsAllowed(bool allowed);
bool ProgramsAllowedByUser();

// Where `lockstep allow` keeps the programs trusted:
// $XDG_CONFIG_HOME/lockstep/allowed-programs, else ~/.config/lockstep/...
std::string AllowedProgramsFile();
// The line that file keeps for `p`: its hash (SHA-1 of what would start),
// then what it is, for a reader.
std::string TrustLine(const process::ProcessProgram& p);
// Whether `p` may start: the user's say, or its hash in the file.
bool MayStart(const process::ProcessProgram& p);

// "C1 would run /usr/bin/python3 [\"python3\",\"x.py\"] in /home/me/x, ..."
// (escaped where the text is shown).
std::string DescribeStart(const NamedProgram& p);

// Marks each program as allowed or not; for kRun, throws ProgramsNotAllowed
// (scenario.h) if any is not. `place`: the first process client's JSON pointer.
void GatePrograms(const std::vector<NamedProgram>& programs, LoadPurpose purpose,
                  const std::string& file, const std::string& place);

}  // namespace lockstep::scenario
