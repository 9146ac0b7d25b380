// Bad scenarios, bad JSON and schedules that do not fit are one kind of
// error, base::InputError, each with the message it always had.
#include <catch2/catch.hpp>

#include "sim/base/input_error.h"
#include "sim/explore/replay_strategy.h"
#include "sim/scenario/scenario.h"
#include "sim/trace/json_reader.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

TEST_CASE("a scenario that cannot be read is an InputError naming the file") {
  testing::TempDir tmp;
  const std::string missing = tmp.File("missing.json");
  try {
    scenario::LoadScenarioFile(missing);
    FAIL("no error");
  } catch (const base::InputError& e) {
    CHECK(std::string(e.what()) == missing + ": cannot open the file for reading");
    CHECK(e.file == missing);
  }
}

TEST_CASE("a bad field is an InputError naming the file and the JSON pointer") {
  testing::TempDir tmp;
  const std::string file = tmp.Write("bad.json", R"({"expect": "safe", "clock": {"horizon": 5},
      "clients": [{"name": "C1", "algorithm": "no-such"}]})");
  try {
    scenario::LoadScenarioFile(file);
    FAIL("no error");
  } catch (const base::InputError& e) {
    const std::string what = e.what();
    CHECK(what.rfind(file + ": at /clients/0/algorithm: expected one of ", 0) == 0);
    CHECK(e.file == file);
  }
  try {
    throw lockstep::json::JsonError("", "expected an object");
  } catch (const base::InputError& e) {
    CHECK(std::string(e.what()) == "at /: expected an object");
    CHECK(e.place == "/");
  }
}

TEST_CASE("a schedule that does not fit is an InputError with its reason") {
  try {
    throw explore::ScheduleError(3, "'C1 step' is not possible here: C1 has ended");
  } catch (const base::InputError& e) {
    CHECK(std::string(e.what()) == "'C1 step' is not possible here: C1 has ended");
  }
}

}  // namespace
}  // namespace lockstep
