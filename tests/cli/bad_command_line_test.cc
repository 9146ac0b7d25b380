// Bad command lines: a seed, a folder, a subcommand or an option that is not
// what was expected, and limits refused before any work: exit code 2 and one
// message saying what was expected.
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::RunLockstep;
using testing::TempDir;

TEST_CASE("a seed is accepted exactly when a trace can carry it: 0..2^63-1, digits only") {
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  for (const std::string seed :
       {"-1", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "100000000000000000000000", "", "1e3", " 1", "+1", "0x10"}) {
    INFO("--seed '" << seed << "'");
    for (std::vector<std::string> args :
         {std::vector<std::string>{"run", race, "--seed", seed},
          std::vector<std::string>{"explore", race, "--strategy", "random", "--seed", seed}}) {
      auto r = RunLockstep(args);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find("--seed: expected an integer in [0, 9223372036854775807], got \"" + seed +
                       "\"") != std::string::npos);
      CHECK(r.out.empty());
    }
  }
  // The largest seed runs, and its trace replays.
  TempDir tmp;
  const std::string trace = tmp.File("t.json");
  auto r = RunLockstep({"run", race, "--seed", "9223372036854775807", "--trace-out", trace});
  REQUIRE(r.exit_code <= 1);
  r = RunLockstep({"replay", trace});
  CHECK(r.exit_code <= 1);
  CHECK(r.out.find("replay reproduces the trace byte for byte") != std::string::npos);
}

TEST_CASE("list --dir names a folder that does not exist, or is not a folder, and exits 2") {
  auto r = RunLockstep({"list", "--dir", "/nonexistent-lockstep-dir"});
  CHECK(r.exit_code == 2);
  CHECK(
      r.err ==
      "lockstep: --dir /nonexistent-lockstep-dir: not a folder of scenarios (no such directory)\n");
  r = RunLockstep({"list", "--dir", testing::ScenarioPath("setnx-docs-race.json")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a folder of scenarios (not a directory)") != std::string::npos);
}

TEST_CASE("an unknown subcommand is named, with the valid ones") {
  auto r = RunLockstep({"launch", "x.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep: unknown subcommand \"launch\"; expected one of replay, run, explore, test, "
        "list, demo, allow, render\n");
}

TEST_CASE("an option before any subcommand is named, with the subcommands") {
  auto r = RunLockstep({"--frob"});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep: unknown option \"--frob\"; expected a subcommand first, one of replay, run, "
        "explore, test, list, demo, allow, render\n");
  CHECK(RunLockstep({"--version"}).exit_code == 0);
}

TEST_CASE("a bit array larger than the memory bound is refused before it is allocated") {
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  for (const auto& [bits, bound, size] :
       std::vector<std::tuple<const char*, const char*, const char*>>{{"40", "1G", "128 GiB"},
                                                                      {"36", "2G", "8 GiB"}}) {
    INFO(bits);
    auto r = RunLockstep(
        {"explore", race, "--storage", "bitstate", "--bitstate-bits", bits, "--max-memory", bound});
    CHECK(r.exit_code == 2);
    CHECK(r.err == std::string("lockstep: at --bitstate-bits: an array of 2^") + bits +
                       " bits takes " + size + ", more than the memory bound (--max-memory " +
                       (std::string(bound) == "1G" ? "1 GiB" : "2 GiB") +
                       "); give fewer bits or a larger bound\n");
  }
}

TEST_CASE("a picture too large for a PNG is refused, pointing to --steps") {
  testing::TempDir tmp;
  const std::string trace = tmp.File("long.json");
  RunLockstep({"run", testing::WriteEndlessRun(tmp), "--seed", "1", "--max-steps", "1500",
               "--trace-out", trace});
  REQUIRE(std::filesystem::exists(trace));
  auto r = RunLockstep({"render", trace, "--png", tmp.File("long.png")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains(
                        "pixels, more than a PNG can be drawn at (32767 each way); draw a part "
                        "of the trace (--steps FROM..TO) or write --svg"));
  CHECK_FALSE(std::filesystem::exists(tmp.File("long.png")));
  CHECK(
      RunLockstep({"render", trace, "--png", tmp.File("part.png"), "--steps", "1..40"}).exit_code ==
      0);
}
}  // namespace
}  // namespace lockstep
