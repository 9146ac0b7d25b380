// Determinism soak: ten thousand seeded executions across every scenario,
// run in two separate processes, must give the same traces byte for byte;
// and a search gives the same verdict and the same counterexample on one
// thread and on two, and the counterexample it saves replays byte for byte.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "sim/run/output_file.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Under the sanitizers 3,000 (test_util.h).
constexpr int kExecutions = testing::kAddressSanitizer ? 3'000 : 10'000;
constexpr int kMaxSteps = 200;
// The child process writes its digest where this variable says.
constexpr const char* kDigestVariable = "LOCKSTEP_SOAK_DIGEST";
constexpr const char* kChildTest =
    "determinism soak digest (run by the soak test in a child process)";

// FNV-1a, 64 bits: a stable digest of one trace's bytes.
uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// One line per execution: "scenario seed digest verdict".
std::string Digest() {
  std::vector<std::string> files = testing::AllScenarioPaths();
  const int per_scenario =
      (kExecutions + static_cast<int>(files.size()) - 1) / static_cast<int>(files.size());
  std::string out;
  for (const std::string& file : files) {
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    std::string name = fs::path(file).stem().string();
    for (int seed = 0; seed < per_scenario; ++seed) {
      trace::Trace t = run::RunSeeded(s, static_cast<uint64_t>(seed), kMaxSteps);
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx",
                    static_cast<unsigned long long>(Fnv1a(trace::ToJsonText(t))));
      out += name + " " + std::to_string(seed) + " " + hex + " " +
             (t.violation ? t.violation->property : "-") + "\n";
    }
  }
  return out;
}

// Runs this test binary's child test in a new process, writing to `path`.
pid_t SpawnDigest(const std::string& path) {
  std::string self = fs::read_symlink("/proc/self/exe").string();
  pid_t pid = fork();
  if (pid == 0) {
    setenv(kDigestVariable, path.c_str(), 1);
    if (!freopen("/dev/null", "w", stdout)) _exit(127);
    std::string name = kChildTest;
    char* argv[] = {self.data(), name.data(), nullptr};
    execv(self.c_str(), argv);
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Hidden ("[.]"): ctest does not list it; the soak test runs it by name.
TEST_CASE(kChildTest, "[.][soak]") {
  const char* path = std::getenv(kDigestVariable);
  REQUIRE(path != nullptr);
  run::WriteOutput(path, Digest());
}

TEST_CASE("ten thousand seeded executions give the same traces in two separate processes",
          "[soak][sweep][long]") {
  testing::TempDir tmp;
  std::string a = tmp.File("a.digest"), b = tmp.File("b.digest");
  pid_t pa = SpawnDigest(a), pb = SpawnDigest(b);
  REQUIRE(pa > 0);
  REQUIRE(pb > 0);
  REQUIRE(Wait(pa) == 0);
  REQUIRE(Wait(pb) == 0);
  std::string da = testing::ReadText(a), db = testing::ReadText(b);
  CHECK(std::count(da.begin(), da.end(), '\n') >= kExecutions);
  CHECK(da.find(" mutual_exclusion\n") != std::string::npos);  // races were run too
  CHECK(da.find(" -\n") != std::string::npos);
  REQUIRE(da == db);
}

// Contending clients of a scenario file, capped so that each search takes
// seconds even under the sanitizers.
int SearchClients(const std::string& file) {
  json doc = json::parse(testing::ReadText(file));
  int contenders = 0;
  for (const auto& c : doc["clients"]) contenders += !c.value("crashed", false);
  return std::min(contenders, 4);
}

TEST_CASE(
    "a search on one thread and on two gives the same verdict and counterexample "
    "and the saved counterexample replays byte for byte",
    "[soak][sweep]") {
  int violations = 0;
  for (const std::string& file : testing::ScenarioSweep()) {
    INFO(file);
    // The counterexamples: that one and two threads search a safe space
    // alike is "a search on two threads gives the same verdict and the same
    // states as on one" and the reductions test's (--jobs 2 is a mode).
    const scenario::Scenario s = scenario::LoadScenarioFile(file);
    if (s.expect.safe) continue;
    testing::TempDir tmp;
    std::string clients = std::to_string(SearchClients(file));
    json reports[2];
    std::string saved[2];
    int codes[2];
    for (int jobs : {1, 2}) {
      std::string out = tmp.File("jobs" + std::to_string(jobs));
      auto r = testing::RunLockstep({"explore", file, "--clients", clients, "--jobs",
                                     std::to_string(jobs), "--out", out, "--json"});
      INFO(r.err);
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));
      codes[jobs - 1] = r.exit_code;
      json& report = reports[jobs - 1] = json::parse(r.out);
      if (report.contains("counterexample")) {
        std::string path = report["counterexample"]["file"];
        CHECK(fs::path(path).parent_path() == fs::path(out));
        saved[jobs - 1] = testing::ReadText(path);
        // Where it was saved may differ, and so may the first violation each
        // search ran into (found_steps): two threads race to it. The shrunk
        // counterexample is the shortest by breadth-first search, so it is
        // the same.
        report["counterexample"].erase("file");
        report["counterexample"].erase("replay");
        report["counterexample"].erase("found_steps");

        auto replay = testing::RunLockstep({"replay", path});
        CHECK(replay.exit_code == 1);
        CHECK(replay.out.find("replay reproduces the trace byte for byte\n") != std::string::npos);
      }
    }
    CHECK(codes[0] == codes[1]);
    CHECK(reports[0]["verdict"] == reports[1]["verdict"]);
    CHECK(reports[0].value("counterexample", json()) == reports[1].value("counterexample", json()));
    CHECK(saved[0] == saved[1]);
    violations += codes[0] == 1;
    // The verdict is the one the scenario expects.
    CHECK(reports[0]["verdict"] == "violation");
  }
  CHECK(violations >= 3);
}

}  // namespace
}  // namespace lockstep
