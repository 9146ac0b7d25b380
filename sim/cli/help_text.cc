#include "sim/cli/help_text.h"

#include <utility>
#include <vector>

#include "sim/cli/commands.h"

namespace lockstep::cli {
namespace {

// `text`'s words in lines of at most 78 columns, the first after `first`
// (padded to `indent` columns), the others indented by `indent`.
std::string Wrapped(const std::string& first, size_t indent, const std::string& text) {
  // A '\n' in `text` ends a line there.
  const size_t newline = text.find('\n');
  if (newline != std::string::npos) {
    return Wrapped(first, indent, text.substr(0, newline)) +
           Wrapped("", indent, text.substr(newline + 1));
  }
  constexpr size_t kWidth = 78;
  std::string line = first + std::string(first.size() < indent ? indent - first.size() : 0, ' ');
  std::string out;
  bool empty = true;  // no word on `line` yet
  for (size_t from = 0; from < text.size();) {
    size_t to = text.find(' ', from);
    if (to == std::string::npos) to = text.size();
    const std::string word = text.substr(from, to - from);
    if (!empty && line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      line = std::string(indent, ' ');
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
    from = to + 1;
  }
  return out + line + "\n";
}

// "  2         bad input...": the code at column 2, its meaning from column
// 10, as help2man reads a tagged paragraph.
std::string Code(const std::string& code, const std::string& meaning) {
  return Wrapped("  " + code, 10, meaning);
}
std::string Code(int code, const std::string& meaning) {
  return Code(std::to_string(code), meaning);
}

// "Examples:", then each example's purpose and, under it, the command.
std::string Examples(const std::vector<std::pair<std::string, std::string>>& examples) {
  std::string text = "\nExamples:\n";
  for (const auto& [what, command] : examples) text += "  " + what + ":\n    " + command + "\n";
  return text;
}

// "Exit status:", then a line for each code the command returns. Each
// code's meaning is written once, in the functions below; what they are
// given says which bounds, signals or outcomes are the command's own.
std::string ExitStatus(const std::vector<std::string>& codes) {
  std::string text = "\nExit status:\n";
  for (const std::string& code : codes) text += code;
  return text;
}
// `real_servers`: the command replays on real servers too.
std::string NoViolation(bool real_servers) {
  return Code(kExitSafe,
              std::string("no violation") +
                  (real_servers ? " (on real servers: none, and every reply matched)" : ""));
}
std::string ViolationFound(bool real_servers) {
  return Code(kExitViolation,
              std::string("violation found") +
                  (real_servers ? " (on real servers: reproduced, every reply matching)" : ""));
}
// `writes_nothing`: the command checks its input before it writes anything.
std::string BadInput(bool writes_nothing = true) {
  return Code(kExitBadInput,
              std::string("bad input or usage") + (writes_nothing ? "; nothing was written" : ""));
}
// `bounds`: the bounds that stop this command.
std::string StoppedAtBound(const std::string& bounds) {
  return Code(kExitBound, "stopped at a bound before finishing: " + bounds);
}
std::string ReplayDiffers(const std::string& command) {
  return Code(kExitReplayDiffers, command + "a real reply differed");
}
std::string Vacuous(const std::string& command) {
  return Code(kExitVacuous, command +
                                "no violation, but vacuous: a client expected to enter the "
                                "critical section entered it in no schedule");
}
// `when`: the signals that end this command so.
std::string StoppedBySignal(const std::string& when) {
  return Code("128+N", "stopped by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129,\nSIGUSR1 138)" +
                           (when.empty() ? "" : ": " + when));
}
// What 0 is for a command that looks for no violation: it did what it was asked.
std::string Done(const std::string& what) { return Code(kExitSafe, what); }

// "See also:", then the related pages.
std::string SeeAlso(const std::vector<std::string>& pages) {
  std::string list;
  for (const std::string& page : pages) list += (list.empty() ? "" : " ") + page + ",";
  list.pop_back();
  return "\nSee also:\n" + Wrapped("  ", 2, list);
}

std::string ProgramFooter() {
  return ExitStatus({NoViolation(true), ViolationFound(true), BadInput(),
                     StoppedAtBound("a search bound, --max-memory, a trace larger than lockstep "
                                    "reads, or a stop signal during explore or test"),
                     ReplayDiffers("replay --redis-server or --redis: "), Vacuous("explore: "),
                     StoppedBySignal("any command but explore and test")}) +
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
         SeeAlso({"lockstep-replay(1)", "lockstep-run(1)", "lockstep-explore(1)",
                  "lockstep-test(1)", "lockstep-list(1)", "lockstep-demo(1)", "lockstep-render(1)",
                  "lockstep-allow(1)", "lockstep-viewer(1)", "redis-server(1)"});
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
           ExitStatus({NoViolation(true), ViolationFound(true), BadInput(),
                       StoppedAtBound("a trace larger than lockstep reads (--trace-out)"),
                       ReplayDiffers("--redis-server or --redis: "), StoppedBySignal("")}) +
           Examples({{"The documented race, step by step",
                      "lockstep replay scenarios/setnx-docs-race.json"},
                     {"A saved trace, one line per step, checked to reproduce byte for byte",
                      "lockstep replay TRACE.json --compact"},
                     {"Its commands on real redis-servers lockstep starts, every reply compared",
                      "lockstep replay TRACE.json --redis-server"},
                     {"The documented race with the timeline's words in Chinese",
                      "lockstep replay scenarios/setnx-docs-race.json --lang zh"}}) +
           SeeAlso({"lockstep-explore(1)", "lockstep-run(1)", "lockstep-render(1)", "lockstep(1)",
                    "redis-server(1)"});
  }
  if (subcommand == "run") {
    return ProgramsNote() +
           ExitStatus({NoViolation(false), ViolationFound(false), BadInput(),
                       StoppedAtBound("--max-memory, or a trace larger than lockstep reads "
                                      "(--trace-out)"),
                       StoppedBySignal("")}) +
           Examples({{"One random schedule, its trace saved",
                      "lockstep run scenarios/setnx-naive.json --seed 7 --trace-out run.json"}}) +
           SeeAlso({"lockstep-replay(1)", "lockstep-explore(1)", "lockstep(1)"});
  }
  if (subcommand == "explore") {
    return ProgramsNote() +
           ExitStatus({NoViolation(false), ViolationFound(false), BadInput(),
                       StoppedAtBound("a search bound, --max-memory, or a stop signal; the "
                                      "report gives the counts so far"),
                       Vacuous(""),
                       StoppedBySignal("one before the search starts, or a second one "
                                       "(another signal, or the same one a second or more "
                                       "after the first)")}) +
           Examples(
               {{"Every schedule of five contenders; the counterexample is saved, with the line "
                 "that pins it in a test (lockstep::HasCounterexample)",
                 "lockstep explore scenarios/setnx-naive.json --clients 5"},
                {"The GETSET fix for all time: a scenario without a horizon",
                 "lockstep explore scenarios/getset-all-time.json"},
                {"On two threads, the report as JSON",
                 "lockstep explore scenarios/redlock-safe.json --jobs 2 --json"},
                {"On four processes of Open MPI",
                 "mpirun -np 4 lockstep explore scenarios/redlock-safe.json --distributed"}}) +
           SeeAlso({"lockstep-replay(1)", "lockstep-render(1)", "lockstep-list(1)", "lockstep(1)",
                    "mpirun(1)"});
  }
  if (subcommand == "allow") {
    return ExitStatus(
               {Done("the programs trusted, or none to trust"), BadInput(), StoppedBySignal("")}) +
           "\nFiles:\n"
           "  $XDG_CONFIG_HOME/lockstep/allowed-programs (~/.config/lockstep/ without\n"
           "                    it): a line for each program trusted, its SHA-1 then\n"
           "                    what it is; delete a line to take the trust back\n" +
           Examples({{"Trust the programs of a scenario you wrote, then search it",
                      "lockstep allow my-lock.json && lockstep explore my-lock.json"}}) +
           SeeAlso({"lockstep-explore(1)", "lockstep-run(1)", "lockstep-replay(1)",
                    "lockstep-render(1)", "lockstep(1)"});
  }
  if (subcommand == "list") {
    return ExitStatus({Done("listed (a scenario that does not load is listed with its error)"),
                       BadInput(), StoppedBySignal("")}) +
           Examples({{"The algorithms and the shipped scenarios", "lockstep list"},
                     {"The scenario file reference, and the Lua API", "lockstep list --fields"}}) +
           SeeAlso({"lockstep-explore(1)", "lockstep-demo(1)", "lockstep(1)"});
  }
  if (subcommand == "demo") {
    return ExitStatus({Done("every part came out as the demo expects"),
                       Code(kExitViolation,
                            "a part came out otherwise (the scenarios in --dir are not the "
                            "shipped ones)"),
                       BadInput(), StoppedBySignal("")}) +
           Examples({{"The documented race found, then the GETSET fix holding",
                      "lockstep demo --width 100"}}) +
           SeeAlso(
               {"lockstep-explore(1)", "lockstep-replay(1)", "lockstep-list(1)", "lockstep(1)"});
  }
  if (subcommand == "render") {
    return ProgramsNote() +
           ExitStatus({Done("the pictures, the game or the course written"), BadInput(),
                       StoppedBySignal("")}) +
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
                 "lockstep render --course course/ --levels my-course.json --lang zh"}}) +
           SeeAlso({"lockstep-replay(1)", "lockstep-viewer(1)", "lockstep(1)"});
  }
  if (subcommand == "test") {
    return ExitStatus({Code(kExitSafe, "every scenario's outcome is the one it expects"),
                       Code(kExitViolation,
                            "some scenario failed (an unexpected outcome, an error, or a search "
                            "that did not end within --max-seconds)"),
                       BadInput(false),
                       StoppedAtBound("a stop signal; the scenarios not searched to their end "
                                      "are failures"),
                       StoppedBySignal("a second stop signal")}) +
           Examples({{"Every scenario in a folder, each against the outcome it expects",
                      "lockstep test scenarios/"},
                     {"On two threads, with JUnit and SARIF reports for CI",
                      "lockstep test --jobs 2 --report junit:lockstep.xml --report "
                      "sarif:lockstep.sarif my-locks/"}}) +
           SeeAlso({"lockstep-explore(1)", "lockstep(1)"});
  }
  return "";
}

}  // namespace lockstep::cli
