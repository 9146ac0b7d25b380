// Every seed of the fuzz corpora and every input that once crashed a fuzz
// target, through the targets' own entry points, in the normal suite: a
// fixed crash stays fixed with any compiler, with or without sanitizers.
#include <algorithm>
#include <filesystem>
#include <functional>

#include <catch2/catch.hpp>

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

TEST_CASE("the command fuzz target's seeds and regressions run on the model keyspace", "[fuzz]") {
  RunAll("command", fuzz::CommandInput, 10);
}

TEST_CASE("the Lua fuzz target's seeds and regressions run the same twice or fail cleanly",
          "[fuzz]") {
  RunAll("lua", fuzz::LuaInput, 10);
}

}  // namespace
}  // namespace lockstep
