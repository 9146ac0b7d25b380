// The lockstep program as a user runs it.
#include <iostream>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;
using testing::ScenarioPath;

TEST_CASE("lockstep --version prints the version and the commit built, and exits 0") {
  testing::ProcessResult r = RunLockstep({"--version"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Matches("lockstep [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit "
                                   "([0-9a-f]{12}(\\+changes)?|unknown)\\)\n"));
}

TEST_CASE("replaying the documented race exits 1 naming mutual exclusion, C1, C2 and the step") {
  auto r = RunLockstep({"replay", ScenarioPath("setnx-docs-race.json")});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("VIOLATION of mutual_exclusion at step 8: C1 and C2 are in the critical "
                   "section at once") != std::string::npos);

  r = RunLockstep({"replay", ScenarioPath("setnx-docs-race.json"), "--json"});
  CHECK(r.exit_code == 1);
  json j = json::parse(r.out);
  CHECK(j["verdict"] == "violation");
  CHECK(j["steps"] == 8);
  CHECK(j["violation"]["property"] == "mutual_exclusion");
  CHECK(j["violation"]["clients"] == json({"C1", "C2"}));
  CHECK(j["violation"]["step"] == 8);
  CHECK(j["matches_expectation"] == true);
}

TEST_CASE("replaying the documented GETSET fix exits 0") {
  auto r = RunLockstep({"replay", ScenarioPath("getset-docs-fix.json")});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("no violation (schedule finished, 14 steps)") != std::string::npos);
}

TEST_CASE("a saved trace replays byte for byte") {
  testing::TempDir tmp;
  for (const char* name : {"setnx-docs-race.json", "getset-docs-fix.json"}) {
    std::string first = tmp.File(std::string("first-") + name);
    std::string second = tmp.File(std::string("second-") + name);
    int code = RunLockstep({"replay", ScenarioPath(name), "--trace-out", first}).exit_code;
    auto r = RunLockstep({"replay", first, "--trace-out", second});
    CHECK(r.exit_code == code);
    CHECK(r.out.find("replay reproduces the trace byte for byte") != std::string::npos);
    CHECK(testing::ReadText(first) == testing::ReadText(second));
  }
}

TEST_CASE("run --seed gives the same trace in separate processes") {
  testing::TempDir tmp;
  for (int seed : {1, 2, 3, 42, 1000}) {
    std::string a = tmp.File("a.json"), b = tmp.File("b.json");
    auto ra = RunLockstep({"run", ScenarioPath("setnx-docs-race.json"), "--seed",
                           std::to_string(seed), "--trace-out", a, "--json"});
    auto rb = RunLockstep({"run", ScenarioPath("setnx-docs-race.json"), "--seed",
                           std::to_string(seed), "--trace-out", b, "--json"});
    CHECK(ra.exit_code == rb.exit_code);
    CHECK((ra.exit_code == 0 || ra.exit_code == 1));
    CHECK(testing::ReadText(a) == testing::ReadText(b));
    CHECK(ra.out == rb.out);
    // And the saved run replays to itself.
    auto replay = RunLockstep({"replay", a});
    CHECK(replay.exit_code == ra.exit_code);
    CHECK(replay.out.find("byte for byte") != std::string::npos);
  }
}

TEST_CASE("list names the algorithms and every scenario with its expectation") {
  auto r = RunLockstep({"list", "--json", "--dir", testing::SourceDir() + "/scenarios"});
  CHECK(r.exit_code == 0);
  json j = json::parse(r.out);
  // By name, every built-in, then the Lua algorithms the scenarios hold.
  CHECK(j["algorithms"].size() == 11);
  CHECK(j["algorithms"][0]["name"] == "fenced-set-px");
  CHECK(j["algorithms"][9]["name"] == "setnx-naive");
  CHECK(j["algorithms"][10]["name"] == "lua:inline");
  bool found = false;
  for (const auto& s : j["scenarios"]) {
    CHECK_FALSE(s.contains("error"));
    if (s["name"] == "setnx-docs-race") {
      found = true;
      CHECK(s["expect"] == "violation:mutual_exclusion");
    }
  }
  CHECK(found);
}

TEST_CASE("demo shows the race and the fix, each as expected") {
  auto r = RunLockstep({"demo", "--dir", testing::SourceDir() + "/scenarios"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("VIOLATION of mutual_exclusion at step 8") != std::string::npos);
  size_t first = r.out.find("as expected");
  CHECK(first != std::string::npos);
  CHECK(r.out.find("as expected", first + 1) != std::string::npos);
  CHECK(r.out.find("NOT AS EXPECTED") == std::string::npos);
  // One name for the crashed holder; counts with separators; the fix for
  // all time as the search reports it; no lane for a client that never acts;
  // the translator's step in words. Piped: no pause.
  CHECK(r.out.find("C0") == std::string::npos);
  CHECK(std::regex_search(r.out, std::regex("[0-9],[0-9]{3}\\s+distinct states")));
  CHECK(std::regex_search(r.out, std::regex("SAFE: no violation of [a-z_,\\s]+ in\\s+any\\s+"
                                            "schedule\\s+for\\s+all\\s+time\n")));
  const size_t part5 = r.out.find("=== 5.");
  REQUIRE(part5 != std::string::npos);
  CHECK(r.out.find("C6", part5) == std::string::npos);
  CHECK_THAT(r.out, Catch::Matchers::Contains("replaced C5's newer timestamp 14 with an older 13"));
  CHECK(r.out.find("press Enter") == std::string::npos);
}

TEST_CASE("demo --part shows that part alone, and refuses a part it does not have") {
  const std::string dir = testing::SourceDir() + "/scenarios";
  auto r = RunLockstep({"demo", "--dir", dir, "--part", "3"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Matchers::Contains("=== 3. "));
  for (const char* other : {"=== 1.", "=== 2.", "=== 4.", "=== 5.", "Next:"}) {
    CHECK(r.out.find(other) == std::string::npos);
  }
  for (const char* bad : {"0", "6", "two"}) {
    auto refused = RunLockstep({"demo", "--dir", dir, "--part", bad});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Matchers::Contains("--part"));
  }
}

TEST_CASE("demo pauses between parts for a reader, and reads nothing for one part") {
  // What the command line passes when stdin and stdout are a terminal.
  std::istringstream enter("\n\n\n\n");
  std::ostringstream out;
  std::streambuf* was = std::cout.rdbuf(out.rdbuf());
  const int code = cli::Demo(testing::SourceDir() + "/scenarios", {}, 0, &enter);
  std::cout.rdbuf(was);
  CHECK(code == 0);
  for (int n = 2; n <= cli::kDemoParts; ++n) {
    const size_t pause = out.str().find("press Enter for part " + std::to_string(n));
    REQUIRE(pause != std::string::npos);
    CHECK(pause < out.str().find("=== " + std::to_string(n) + "."));
  }
  CHECK(out.str().find("press Enter for part 1") == std::string::npos);
  CHECK(enter.peek() == std::char_traits<char>::eof());
}

}  // namespace
}  // namespace lockstep
