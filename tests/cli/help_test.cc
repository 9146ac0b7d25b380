// What --help says beyond the options, which the man pages are written
// from: each subcommand's examples name files that exist, its exit status
// lists the codes it returns and its related pages exist, the program's
// exit status is the README's table, and an unknown option is named.
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "sim/cli/help_text.h"
#include "tests/test_util.h"

namespace lockstep::help_test {

using testing::Has;
using testing::RunLockstep;

// Text the program prints, a process each: Release only.
TEST_CASE("every --help has examples, and the files they name exist", "[cli][help][sweep]") {
  for (const std::string sub :
       {"", "replay", "run", "explore", "list", "demo", "render", "allow"}) {
    INFO(sub);
    const testing::ProcessResult r =
        sub.empty() ? RunLockstep({"--help"}) : RunLockstep({sub, "--help"});
    CHECK(r.exit_code == 0);
    CHECK(Has(r.out, "\nExamples:\n"));
    const std::regex scenario("scenarios/[a-z0-9-]+\\.json");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), scenario);
         it != std::sregex_iterator(); ++it) {
      CHECK(std::filesystem::exists(testing::SourceDir() + "/" + it->str()));
    }
  }
}

// The section of `help` that starts with the line `title`, to its first
// empty line.
std::string Section(const std::string& help, const std::string& title) {
  const size_t at = help.find("\n" + title + "\n");
  if (at == std::string::npos) return "";
  const size_t end = help.find("\n\n", at + 1);
  return help.substr(at + 1, end == std::string::npos ? std::string::npos : end - at);
}

// The codes an "Exit status:" section lists: "0", "1", ..., "128+N".
std::set<std::string> CodesIn(const std::string& section) {
  std::set<std::string> codes;
  const std::regex code("\n  ([0-9]+|128\\+N) +[^ ]");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), code);
       it != std::sregex_iterator(); ++it) {
    codes.insert((*it)[1]);
  }
  return codes;
}

// The pages a "See also:" section names: "lockstep-replay(1)", ...
std::set<std::string> PagesIn(const std::string& section) {
  std::set<std::string> pages;
  const std::regex page("[a-z0-9-]+\\([0-9]\\)");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), page);
       it != std::sregex_iterator(); ++it) {
    pages.insert(it->str());
  }
  return pages;
}

TEST_CASE("every subcommand's --help lists the exit codes it returns and pages that exist",
          "[cli][help][sweep]") {
  // What each command's code can return (sim/cli/commands.cc, explore_command.cc, ...):
  // list, render and allow find no violation, only explore says vacuous,
  // only replay compares real replies.
  const std::map<std::string, std::set<std::string>> returns = {
      {"replay", {"0", "1", "2", "3", "4", "128+N"}},
      {"run", {"0", "1", "2", "3", "128+N"}},
      {"explore", {"0", "1", "2", "3", "5", "128+N"}},
      {"test", {"0", "1", "2", "3", "128+N"}},
      {"list", {"0", "2", "128+N"}},
      {"demo", {"0", "1", "2", "128+N"}},
      {"render", {"0", "2", "128+N"}},
      {"allow", {"0", "2", "128+N"}}};
  // The pages lockstep installs, and the other programs' it names.
  std::set<std::string> pages = {"lockstep(1)", "lockstep-viewer(1)", "redis-server(1)",
                                 "mpirun(1)"};
  for (const auto& [sub, codes] : returns) pages.insert("lockstep-" + sub + "(1)");
  for (const auto& [sub, codes] : returns) {
    INFO(sub);
    const std::string help = RunLockstep({sub, "--help"}).out;
    CHECK(CodesIn(Section(help, "Exit status:")) == codes);
    const std::set<std::string> named = PagesIn(Section(help, "See also:"));
    CHECK(named.count("lockstep(1)") == 1);
    CHECK_FALSE(named.count("lockstep-" + sub + "(1)"));
    for (const std::string& page : named) {
      INFO(page);
      CHECK(pages.count(page) == 1);
    }
  }
  const std::set<std::string> from_program =
      PagesIn(Section(RunLockstep({"--help"}).out, "See also:"));
  for (const auto& [sub, codes] : returns) CHECK(from_program.count("lockstep-" + sub + "(1)"));
}

TEST_CASE("the test command's footer: its examples, its exit codes and related pages",
          "[cli][help]") {
  const std::string footer = cli::HelpFooter("test");
  CHECK(CodesIn(Section(footer, "Exit status:")) ==
        std::set<std::string>{"0", "1", "2", "3", "128+N"});
  CHECK(Has(footer,
            "\n  1       some scenario failed (an unexpected outcome, an error, or a search\n"
            "          that did not end within --max-seconds)\n"));
  CHECK(Has(footer, "\n    lockstep test scenarios/\n"));
  CHECK(Has(footer,
            "\n    lockstep test --jobs 2 --report junit:lockstep.xml --report "
            "sarif:lockstep.sarif my-locks/\n"));
  CHECK(PagesIn(Section(footer, "See also:")) ==
        std::set<std::string>{"lockstep-explore(1)", "lockstep(1)"});
}

TEST_CASE("the exit status in --help is the README's table", "[cli][help][sweep]") {
  const std::string help = RunLockstep({"--help"}).out;
  const std::string readme = testing::ReadText(testing::SourceDir() + "/README.md");
  const std::regex row("\n\\| ([0-9]) \\| ");
  std::set<std::string> codes;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), row);
       it != std::sregex_iterator(); ++it) {
    codes.insert((*it)[1]);
  }
  CHECK(codes.size() == 6);
  for (const std::string& code : codes) {
    INFO(code);
    CHECK(std::regex_search(help, std::regex("\n  " + code + " +[a-z]")));
  }
  CHECK(Has(help, "\n  128+N   stopped by signal N"));
  CHECK(Has(help, "\nExit status:\n"));
  CHECK(Has(help, "\nFiles:\n"));
  CHECK(Has(help, "\nSee also:\n"));
}

TEST_CASE("an unknown option is named with the command it was given to", "[cli][help][sweep]") {
  const testing::ProcessResult r = RunLockstep({"explore", "--frob", "x.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep explore: unknown option or argument --frob; `lockstep explore --help` lists the "
        "options\n");
  const testing::ProcessResult first = RunLockstep({"--frob"});
  CHECK(first.exit_code == 2);
  CHECK(Has(first.err, "lockstep: unknown option \"--frob\""));
}

}  // namespace lockstep::help_test
