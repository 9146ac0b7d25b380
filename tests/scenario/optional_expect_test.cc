// A scenario without "expect": its author need not know the outcome first.
// The outcome is reported and the exit code says it, with no warning of an
// unexpected outcome; the listing says the expectation is not stated.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep::optional_expect_test {

using nlohmann::json;
using testing::Has;
using testing::RunLockstep;

std::string WithoutExpect(const testing::TempDir& dir, const std::string& name) {
  json doc = json::parse(testing::ReadText(testing::ScenarioPath(name)));
  doc.erase("expect");
  return dir.Write(name, doc.dump());
}

// Processes of lockstep, whose loading without "expect" the builder's cases
// run under the sanitizers: Release only.
TEST_CASE("without expect, explore and replay report the outcome and exit by it",
          "[scenario][expect][sweep]") {
  testing::TempDir tmp;
  const std::string race = WithoutExpect(tmp, "setnx-docs-race.json");
  const std::string fix = WithoutExpect(tmp, "getset-docs-fix.json");
  const testing::ProcessResult violated = RunLockstep({"explore", race, "--out", tmp.File("o")});
  CHECK(violated.exit_code == 1);
  CHECK(Has(violated.out, "VIOLATION of mutual_exclusion"));
  CHECK_FALSE(Has(violated.err, "warning"));
  const testing::ProcessResult safe = RunLockstep({"explore", fix, "--out", tmp.File("o")});
  CHECK(safe.exit_code == 0);
  CHECK(Has(safe.out, "SAFE"));
  CHECK_FALSE(Has(safe.err, "warning"));
  const json summary = json::parse(RunLockstep({"replay", race, "--json"}).out);
  CHECK(summary["expect"].is_null());
  CHECK(summary["matches_expectation"] == true);
  const testing::ProcessResult list = RunLockstep({"list", "--dir", tmp.path().string()});
  CHECK(Has(list.out, "[expect not stated, with schedule]"));
  // The same file with its expectation wrong still warns.
  json doc = json::parse(testing::ReadText(race));
  doc["expect"] = "safe";
  const testing::ProcessResult wrong =
      RunLockstep({"explore", tmp.Write("wrong.json", doc.dump()), "--out", tmp.File("o")});
  CHECK(wrong.exit_code == 1);
  CHECK(Has(wrong.err, "warning: at /expect: expected safe, but mutual_exclusion was violated"));
}

}  // namespace lockstep::optional_expect_test
