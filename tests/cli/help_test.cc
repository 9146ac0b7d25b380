// What --help says beyond the options, which the man pages are written
// from: each subcommand's examples name files that exist, the program's
// exit status is the README's table, and an unknown option is named.
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <catch2/catch.hpp>

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
