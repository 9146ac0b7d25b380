// Every seed of the fuzz corpora and every input that once crashed a fuzz
// target, through the targets' own entry points, in the normal suite: a
// fixed crash stays fixed with any compiler, with or without sanitizers.
#include <algorithm>
#include <filesystem>
#include <functional>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/fuzz/entry_points.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;

// The files of tests/fuzz/corpus/<target> and tests/fuzz/regressions/<target>.
std::vector<fs::path> Inputs(const std::string& target) {
  std::vector<fs::path> files;
  for (const char* folder : {"corpus", "regressions"}) {
    fs::path dir = fs::path(testing::SourceDir()) / "tests/fuzz" / folder / target;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void RunAll(const std::string& target, const std::function<void(std::string_view)>& entry,
            size_t at_least) {
  std::vector<fs::path> files = Inputs(target);
  CHECK(files.size() >= at_least);
  for (const fs::path& f : files) {
    INFO(f.string());
    std::string bytes = testing::ReadText(f.string());
    CHECK_NOTHROW(entry(bytes));
  }
}

TEST_CASE("the scenario fuzz target's seeds and regressions load or are refused cleanly",
          "[fuzz]") {
  RunAll("scenario", fuzz::ScenarioInput, 7);
}

TEST_CASE("the trace fuzz target's seeds and regressions read or are refused cleanly", "[fuzz]") {
  RunAll("trace", fuzz::TraceInput, 7);
}

TEST_CASE("a fuzzed scenario or trace that names a program as a client never runs it", "[fuzz]") {
  testing::TempDir dir;
  const std::string mark = dir.File("ran");
  const nlohmann::json program = {{"process", {{"command", {"/usr/bin/touch", mark}}}}};
  // The scenario loads: only running it would start the program.
  nlohmann::json scenario = {{"clients", {{{"name", "C1"}, {"algorithm", program}}}},
                             {"lock", {{"key", "lock.foo"}, {"ttl", 2}}},
                             {"clock", {{"horizon", 2}}}};
  fuzz::ScenarioInput(scenario.dump());
  // A trace lockstep wrote, its client made the program: what replaying it
  // would start.
  const std::string written = dir.File("trace.json");
  REQUIRE(testing::RunLockstep({"run", testing::ScenarioPath("setnx-naive.json"), "--seed", "1",
                                "--trace-out", written})
              .exit_code <= 1);
  nlohmann::json trace = nlohmann::json::parse(testing::ReadText(written));
  trace["scenario"]["clients"][0]["algorithm"] = program;
  fuzz::TraceInput(trace.dump());
  CHECK(!fs::exists(mark));
}

TEST_CASE("the command fuzz target's seeds and regressions run on the model keyspace", "[fuzz]") {
  RunAll("command", fuzz::CommandInput, 10);
}

TEST_CASE("the Lua fuzz target's seeds and regressions run the same twice or fail cleanly",
          "[fuzz]") {
  RunAll("lua", fuzz::LuaInput, 10);
}

}  // namespace
}  // namespace lockstep
