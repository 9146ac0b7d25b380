#include "sim/cli/help_text.h"

#include <utility>
#include <vector>

#include "sim/cli/commands.h"

namespace lockstep::cli {
namespace {

// "  2         bad input...": descriptions start at column 10, as help2man
// reads a tagged paragraph.
std::string Code(int code) {
  std::string text = "  " + std::to_string(code);
  return text + std::string(10 - text.size(), ' ');
}

// "Examples:", then each example's purpose and, under it, the command.
std::string Examples(const std::vector<std::pair<std::string, std::string>>& examples) {
  std::string text = "\nExamples:\n";
  for (const auto& [what, command] : examples) text += "  " + what + ":\n    " + command + "\n";
  return text;
}

std::string ProgramFooter() {
  return "\nExit status:\n" + Code(kExitSafe) +
         "no violation (on real servers: none, and every reply matched)\n" + Code(kExitViolation) +
         "violation found (on real servers: reproduced, every reply matching)\n" +
         Code(kExitBadInput) + "bad input or usage; nothing was written\n" + Code(kExitBound) +
         "stopped at a bound before finishing: a search bound, --max-memory, a\n"
         "          trace larger than lockstep reads, or a stop signal during explore\n" +
         Code(kExitReplayDiffers) + "replay --redis-server or --redis: a real reply differed\n" +
         Code(kExitVacuous) +
         "explore: no violation, but vacuous: a client expected to enter the\n"
         "          critical section entered it in no schedule\n"
         "  128+N   stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129,\n"
         "          SIGUSR1 138), any command but explore\n"
         "\nFiles:\n"
         "  SCENARIO.json     a scenario: clients, algorithms, lock settings, keyspace,\n"
         "                    clock, assumptions, faults, properties, the outcome\n"
         "                    expected and a schedule (both optional); `lockstep list\n"
         "                    --fields` is the reference\n"
         "  TRACE.json        a run or counterexample, \"format\": \"lockstep-trace/2\" (a\n"
         "                    liveness lasso: lockstep-trace/3); replays byte for byte\n"
         "  share/lockstep/   under the install prefix: scenarios/ and examples/, the\n"
         "                    shipped scenarios and examples\n"
         "  lib/lockstep/     under the install prefix: liblockstep_clock.so, the clock\n"
         "                    shim preloaded into the redis-servers of replay\n"
         "                    --redis-server ($LOCKSTEP_CLOCK_SHIM names another)\n" +
         Examples(
             {{"The documented SETNX race found, then the GETSET fix verified", "lockstep demo"},
              {"Every schedule of five contenders searched for a violation",
               "lockstep explore scenarios/setnx-naive.json --clients 5"},
              {"The counterexample it saved, step by step",
               "lockstep replay counterexamples/setnx-naive-mutual_exclusion-5clients.json"}}) +
         "\nSee also:\n"
         "  lockstep-replay(1), lockstep-run(1), lockstep-explore(1), lockstep-list(1),\n"
         "  lockstep-demo(1), lockstep-render(1), lockstep-viewer(1), redis-server(1)\n";
}

// The commands that can start a program a file names say when they do.
std::string ProgramsNote() {
  return "\nPrograms a file names:\n"
         "  A scenario's process clients, and a trace's, name programs to run. lockstep\n"
         "  starts none of them without --allow-programs, LOCKSTEP_ALLOW_PROGRAMS=1 in\n"
         "  the environment, or `lockstep allow FILE`, which trusts exactly what FILE\n"
         "  would start (the program, its argv, the environment the file adds, the\n"
         "  folder). Otherwise it prints what it would start and exits 2; replay of\n"
         "  such a trace shows the steps it records, not replayed.\n";
}

}  // namespace

std::string HelpFooter(const std::string& subcommand) {
  if (subcommand.empty()) return ProgramFooter();
  if (subcommand == "replay") {
    return ProgramsNote() +
           Examples({{"The documented race, step by step",
                      "lockstep replay scenarios/setnx-docs-race.json"},
                     {"A saved trace, one line per step, checked to reproduce byte for byte",
                      "lockstep replay TRACE.json --compact"},
                     {"Its commands on real redis-servers lockstep starts, every reply compared",
                      "lockstep replay TRACE.json --redis-server"},
                     {"The documented race with the timeline's words in Chinese",
                      "lockstep replay scenarios/setnx-docs-race.json --lang zh"}});
  }
  if (subcommand == "run") {
    return ProgramsNote() +
           Examples({{"One random schedule, its trace saved",
                      "lockstep run scenarios/setnx-naive.json --seed 7 --trace-out run.json"}});
  }
  if (subcommand == "explore") {
    return ProgramsNote() +
           Examples(
               {{"Every schedule of five contenders; the counterexample is saved, with the line "
                 "that pins it in a test (lockstep::HasCounterexample)",
                 "lockstep explore scenarios/setnx-naive.json --clients 5"},
                {"The GETSET fix for all time: a scenario without a horizon",
                 "lockstep explore scenarios/getset-all-time.json"},
                {"On two threads, the report as JSON",
                 "lockstep explore scenarios/redlock-safe.json --jobs 2 --json"},
                {"On four processes of Open MPI",
                 "mpirun -np 4 lockstep explore scenarios/redlock-safe.json --distributed"}});
  }
  if (subcommand == "allow") {
    return "\nFiles:\n"
           "  $XDG_CONFIG_HOME/lockstep/allowed-programs (~/.config/lockstep/ without\n"
           "                    it): a line for each program trusted, its SHA-1 then\n"
           "                    what it is; delete a line to take the trust back\n" +
           Examples({{"Trust the programs of a scenario you wrote, then search it",
                      "lockstep allow my-lock.json && lockstep explore my-lock.json"}});
  }
  if (subcommand == "list") {
    return Examples({{"The algorithms and the shipped scenarios", "lockstep list"},
                     {"The scenario file reference, and the Lua API", "lockstep list --fields"}});
  }
  if (subcommand == "demo") {
    return Examples(
        {{"The documented race found, then the GETSET fix holding", "lockstep demo --width 100"}});
  }
  if (subcommand == "render") {
    return ProgramsNote() +
           Examples(
               {{"The race as a space-time diagram",
                 "lockstep render scenarios/setnx-docs-race.json --svg race.svg"},
                {"A slide's worth of a trace",
                 "lockstep render TRACE.json --png slide.png --steps 5..8 --hide-idle"},
                {"The scheduler game as one web page",
                 "lockstep render scenarios/setnx-docs-race.json --play-html game.html"},
                {"A Redlock game cut to fit a page",
                 "lockstep render scenarios/redlock-restart.json --play-html g.html "
                 "--horizon 0"},
                {"The course: an index and a page per level", "lockstep render --course course/"},
                {"The course in Chinese, from a teacher's own course file",
                 "lockstep render --course course/ --levels my-course.json --lang zh"}});
  }
  return "";
}

}  // namespace lockstep::cli
