// Ctrl-C on a long search: lockstep prints the counts so far and exits 3,
// and leaves no file behind (outputs are written to a temporary file and
// renamed into place, so nothing is ever half written).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// Starts lockstep with `args`, its output in `out` and `err`.
pid_t Spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string bin = LOCKSTEP_BINARY;
    std::vector<std::string> copy = args;
    std::vector<char*> argv = {bin.data()};
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// The exit code, or 128 + the signal that ended it.
int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A search that runs for hours: five clients, no reductions (no state
// caching either: with it, this search ends in about a second), a far horizon.
std::vector<std::string> LongSearch(const std::string& out_dir) {
  return {"explore", testing::ScenarioPath("getset-bounded.json"), "--no-cache", "--no-symmetry",
          "--no-por", "--horizon", "30", "--out", out_dir};
}

// Waits until `pid` catches SIGINT (its search has begun), then lets it
// search a little longer, so that Ctrl-C lands mid-search however slowly
// the process started (under a sanitizer, several times slower).
void WaitUntilSearching(pid_t pid) {
  for (int i = 0; i < 600; ++i) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("SigCgt:", 0) != 0) continue;
      const unsigned long long caught = std::stoull(line.substr(7), nullptr, 16);
      if (caught & (1ULL << (SIGINT - 1))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL("lockstep did not start its search within a minute");
}

TEST_CASE("Ctrl-C stops a long search with the counts so far and exit 3", "[interrupt]") {
  for (const char* jobs : {"1", "2"}) {
    INFO("--jobs " << jobs);
    testing::TempDir tmp;
    std::string out_dir = tmp.File("counterexamples");
    std::vector<std::string> args = LongSearch(out_dir);
    args.insert(args.end(), {"--jobs", jobs});
    pid_t pid = Spawn(args, tmp.File("out"), tmp.File("err"));
    REQUIRE(pid > 0);
    WaitUntilSearching(pid);
    REQUIRE(kill(pid, SIGINT) == 0);
    CHECK(Wait(pid) == 3);
    std::string out = testing::ReadText(tmp.File("out"));
    INFO(out << testing::ReadText(tmp.File("err")));
    CHECK(out.find("\nsearch: ") != std::string::npos);
    CHECK(out.find(" executions, ") != std::string::npos);
    CHECK(out.find("\nINCOMPLETE: interrupted; no violation found so far\n") != std::string::npos);
    CHECK_FALSE(fs::exists(out_dir));
    // Nothing else was written either.
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(tmp.path())) files += e.is_regular_file();
    CHECK(files == 2);
  }
}

TEST_CASE("Ctrl-C with --json still prints a complete report of the counts so far",
          "[interrupt]") {
  testing::TempDir tmp;
  std::vector<std::string> args = LongSearch(tmp.File("counterexamples"));
  args.push_back("--json");
  pid_t pid = Spawn(args, tmp.File("out"), tmp.File("err"));
  REQUIRE(pid > 0);
  WaitUntilSearching(pid);
  REQUIRE(kill(pid, SIGINT) == 0);
  CHECK(Wait(pid) == 3);
  nlohmann::json report = nlohmann::json::parse(testing::ReadText(tmp.File("out")));
  CHECK(report["incomplete"] == "interrupted");
  CHECK(report["executions"].get<uint64_t>() > 0);
  CHECK(report["states"].get<uint64_t>() > 0);
}

}  // namespace
}  // namespace lockstep
