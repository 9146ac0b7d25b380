// `lockstep test`: the scenarios under the paths that state "expect", each
// explored and held to it; a wrong expectation, a file that is no scenario
// and a search that does not end are failures naming their file.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/explore/never_enters.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Has;

// A shipped scenario, its "expect" replaced.
std::string WithExpect(const testing::TempDir& tmp, const std::string& name,
                       const std::string& shipped, const std::string& expect) {
  json doc = json::parse(testing::ReadText(testing::ScenarioPath(shipped)));
  doc["expect"] = expect;
  return tmp.Write(name, doc.dump(2));
}

TEST_CASE("lockstep test passes every shipped scenario each explored as written", "[sweep]") {
  const testing::ProcessResult r =
      testing::RunLockstep({"test", "--jobs", "2", testing::SourceDir() + "/scenarios"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  size_t expecting = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    const json doc = json::parse(testing::ReadText(file));
    if (!doc.contains("expect")) continue;
    ++expecting;
    CHECK(Has(r.out, "PASS " + file + ": "));
  }
  CHECK(expecting > 30);
  CHECK(Has(r.out, "\n" + std::to_string(expecting) + " passed, 0 failed\n"));
}

TEST_CASE("a wrong expect fails and names the file with what was expected and what was found",
          "[cli][test_command]") {
  testing::TempDir tmp;
  fs::create_directories(tmp.path() / "locks" / "sub");
  const std::string right =
      WithExpect(tmp, "locks/right.json", "setnx-docs-race.json", "violation:mutual_exclusion");
  const std::string wrong = WithExpect(tmp, "locks/sub/wrong.json", "setnx-docs-race.json", "safe");
  tmp.Write("locks/package.json", R"({"name": "not a scenario"})");
  tmp.Write("locks/node_modules/x/bad.json", "{");  // npm's folders are not walked
  const std::string out = tmp.File("cx");
  const testing::ProcessResult r =
      testing::RunLockstep({"test", tmp.File("locks"), "--jobs", "2", "--out", out});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "PASS " + right + ": violation of mutual_exclusion: "));
  CHECK(Has(r.out, ", as expected"));
  CHECK(Has(r.out, "FAIL " + wrong + ": expected safe, found violation of mutual_exclusion: "));
  CHECK(Has(r.out, "  replay it: lockstep replay " + out + "/"));
  CHECK(Has(r.out, "  pin: "));
  CHECK(r.out.substr(r.out.size() - 19) == "1 passed, 1 failed\n");
  // In the files' order, whichever search ended first.
  CHECK(r.out.find("PASS " + right) < r.out.find("FAIL " + wrong));
  // Each counterexample under its scenario's folders: two of one name never meet.
  CHECK(fs::is_directory(fs::path(out) / fs::path(wrong).parent_path().relative_path()));
}

TEST_CASE("a scenario that cannot be read is a failure naming it and is never skipped",
          "[cli][test_command]") {
  testing::TempDir tmp;
  tmp.Write("broken.json", "{\"clients\": [\n  {\"name\": \"C1\",}\n]}");
  WithExpect(tmp, "ok.json", "getset-docs-fix.json", "safe");
  const testing::ProcessResult r = testing::RunLockstep({"test", tmp.path().string()});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "FAIL " + tmp.File("broken.json") + ": " + tmp.File("broken.json") + ": "));
  CHECK(Has(r.out, "line 2"));
  CHECK(Has(r.out, "PASS " + tmp.File("ok.json") + ": SAFE ("));
  CHECK(Has(r.out, "\n1 passed, 1 failed\n"));
}

TEST_CASE("a scenario named that states no expect fails and a path that is not there is bad input",
          "[cli][test_command]") {
  testing::TempDir tmp;
  json doc = json::parse(testing::ReadText(testing::ScenarioPath("getset-docs-fix.json")));
  doc.erase("expect");
  const std::string file = tmp.Write("unsaid.json", doc.dump());
  testing::ProcessResult r = testing::RunLockstep({"test", file});
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "FAIL " + file + ": " + file + ": states no \"expect\""));
  // In a folder it is not a test at all: none there is bad input.
  r = testing::RunLockstep({"test", tmp.path().string()});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "found no scenario stating \"expect\" under " + tmp.path().string()));
  r = testing::RunLockstep({"test", tmp.File("nothing-here")});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, tmp.File("nothing-here") + ": expected a scenario file or a folder of them"));
}

TEST_CASE("a search that does not end within --max-seconds fails and says so",
          "[cli][test_command]") {
  testing::TempDir tmp;
  json doc = json::parse(testing::ReadText(testing::WriteEndlessRun(tmp)));
  doc["expect"] = "safe";
  const std::string file = tmp.Write("endless.json", doc.dump());
  const testing::ProcessResult r =
      testing::RunLockstep({"test", file, "--max-seconds", "1", "--out", tmp.File("cx")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "FAIL " + file + ": did not end within --max-seconds 1: "));
  CHECK(Has(r.out, "\n0 passed, 1 failed\n"));
}

// The searches `pid` runs now (its children).
std::string ChildrenOf(pid_t pid) {
  const std::string id = std::to_string(pid);
  return testing::ReadText("/proc/" + id + "/task/" + id + "/children");
}

TEST_CASE("a stop signal to lockstep test stops its searches and reports them as failures",
          "[cli][test_command]") {
  testing::TempDir tmp;
  json doc = json::parse(testing::ReadText(testing::WriteEndlessRun(tmp)));
  doc["expect"] = "safe";
  const std::string file = tmp.Write("endless.json", doc.dump());
  const pid_t pid =
      testing::SpawnProgram({testing::LockstepBinary(), "test", file, "--out", tmp.File("cx")},
                            tmp.File("out"), tmp.File("err"));
  // Its search has started once it has a child: lockstep test is then
  // past installing its handling of stop signals.
  std::string children;
  for (int i = 0; i < 6000 && (children = ChildrenOf(pid)).empty(); ++i) usleep(10'000);
  REQUIRE_FALSE(children.empty());
  kill(pid, SIGINT);
  CHECK(testing::Wait(pid) == 3);
  const std::string out = testing::ReadText(tmp.File("out"));
  INFO(out << testing::ReadText(tmp.File("err")));
  CHECK(Has(out, "FAIL " + file + ": stopped by SIGINT: "));
  CHECK(Has(out, "stopped by SIGINT: the scenarios not searched to their end are failures\n"));
  CHECK(Has(out, "\n0 passed, 1 failed\n"));
  // Its search was waited for: nothing of it is left.
  // (A process of that pid now is another one, not lockstep test's.)
  const std::string child = children.substr(0, children.find(' '));
  const std::string status = testing::ReadText("/proc/" + child + "/status");
  CHECK_FALSE(Has(status, "\nPPid:\t" + std::to_string(pid) + "\n"));
}

// A lock whose clients never enter.
json NeverEnters(const std::string& expect) {
  const char* lua = testing::kNeverEntersLua;
  return {{"name", "never"},
          {"clients",
           {{{"name", "C1"}, {"algorithm", {{"lua_inline", lua}}}},
            {{"name", "C2"}, {"algorithm", {{"lua_inline", lua}}}}}},
          {"lock", {{"key", "lock"}, {"ttl", 3}}},
          {"clock", {{"start", 0}, {"horizon", 4}}},
          {"expect", expect}};
}

TEST_CASE("expect vacuous pins a lock nobody enters and expect safe then fails",
          "[cli][test_command]") {
  testing::TempDir tmp;
  const std::string vacuous = tmp.Write("vacuous.json", NeverEnters("vacuous").dump());
  const std::string safe = tmp.Write("safe.json", NeverEnters("safe").dump());
  const testing::ProcessResult r = testing::RunLockstep({"test", vacuous, safe});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "PASS " + vacuous + ": vacuous SAFE: C1 and C2 never entered"));
  CHECK(Has(r.out, "FAIL " + safe + ": expected safe, found vacuous SAFE: C1 and C2 never"));
  // explore says the same of each.
  const testing::ProcessResult e = testing::RunLockstep({"explore", safe});
  CHECK(e.exit_code == 5);
  CHECK(Has(e.err, "at /expect: expected safe, but the SAFE is vacuous"));
  const testing::ProcessResult v = testing::RunLockstep({"explore", vacuous});
  CHECK(v.exit_code == 5);
  CHECK_FALSE(Has(v.err, "at /expect"));
}

TEST_CASE(
    "a report option with a bad format or the same file twice or an input is refused before any "
    "search",
    "[cli][test_command]") {
  testing::TempDir tmp;
  const std::string file = WithExpect(tmp, "a.json", "getset-docs-fix.json", "safe");
  const std::string before = testing::ReadText(file);
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--report", "xml:r.xml"},
            "expected the format junit, github or sarif before the colon"},
           {{"--report", "junit"}, "expected FORMAT:FILE"},
           {{"--report", "junit:" + tmp.File("r"), "--report", "sarif:" + tmp.File("r")},
            "two reports name the same file"},
           {{"--report", "sarif:" + file}, "--report sarif"}}) {
    std::vector<std::string> command = {"test", file};
    command.insert(command.end(), args.begin(), args.end());
    const testing::ProcessResult r = testing::RunLockstep(command);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, message));
    CHECK_FALSE(Has(r.out, "PASS"));
  }
  CHECK(testing::ReadText(file) == before);
  CHECK_FALSE(fs::exists(tmp.File("r")));
}

}  // namespace
}  // namespace lockstep
