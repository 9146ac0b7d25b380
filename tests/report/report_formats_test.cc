// The reports CI reads, each read back by a standard consumer: JUnit XML by
// junitparser, SARIF 2.1.0 validated against its published schema, and
// GitHub's workflow commands as its runner parses them.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

const std::string kSchema = testing::SourceDir() +
                            "/tests/report/node_modules/@microsoft/sarif-multitool-linux/"
                            "sarif-2.1.0.json";

json ReadBack(const std::string& kind, const std::string& file) {
  const testing::ProcessResult r = testing::RunProgram(
      {"/usr/bin/python3", testing::SourceDir() + "/tests/report/check_reports.py", kind, file,
       kSchema});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Three scenarios: the documented race, expected (a pass); the same
// expected safe (a failure); a Lua lock's foreign release, expected.
struct Run {
  testing::TempDir tmp;
  std::string race, wrong, lua;
  testing::ProcessResult result;
  Run() {
    json doc = json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
    race = tmp.Write("race.json", doc.dump(2));
    doc["expect"] = "safe";
    wrong = tmp.Write("wrong.json", doc.dump(2));
    lua = testing::SourceDir() + "/examples/lua/get-compare-del-stall.json";
    result = testing::RunLockstep({"test", race, wrong, lua, "--jobs", "2", "--out", tmp.File("cx"),
                                   "--report", "junit:" + tmp.File("r.xml"), "--report",
                                   "sarif:" + tmp.File("r.sarif"), "--report",
                                   "github:" + tmp.File("r.txt")});
  }
};

TEST_CASE("the JUnit report reads back with a test case per scenario and the failure with its pin",
          "[cli][report]") {
  Run run;
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 1);
  const json junit = ReadBack("junit", run.tmp.File("r.xml"));
  CHECK(junit["tests"] == 3);
  CHECK(junit["failures"] == 1);
  CHECK(junit["errors"] == 0);
  std::map<std::string, json> cases;
  for (const json& c : junit["cases"]) cases[c["name"]] = c;
  REQUIRE(cases.size() == 3);
  CHECK(cases[run.race]["results"].empty());
  CHECK(cases[run.lua]["results"].empty());
  const json& failure = cases[run.wrong]["results"][0];
  CHECK(failure["kind"] == "Failure");
  CHECK(failure["type"] == "violation:mutual_exclusion");
  CHECK(Has(failure["message"], "expected safe, found violation of mutual_exclusion"));
  // The timeline, the replay command and the pin a test pastes.
  CHECK(Has(failure["text"], "replay it: lockstep replay " + run.tmp.File("cx")));
  CHECK(Has(failure["text"], "pin: C1 SETNX lock.foo 13 -> 0; C1 GET lock.foo"));
}

TEST_CASE(
    "the SARIF log is valid SARIF 2.1.0 with a thread flow per client in the schedule's order",
    "[cli][report]") {
  Run run;
  REQUIRE(run.result.exit_code == 1);
  CHECK(ReadBack("sarif", run.tmp.File("r.sarif"))["errors"].empty());
  const json log = json::parse(testing::ReadText(run.tmp.File("r.sarif")));
  const json& results = log["runs"][0]["results"];
  REQUIRE(results.size() == 3);  // every violation found, expected or not
  std::map<std::string, json> by_file;
  for (const json& r : results) {
    const std::string uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    by_file[uri.substr(uri.rfind('/') + 1)] = r;
  }
  CHECK(by_file["wrong.json"]["level"] == "error");
  CHECK(by_file["race.json"]["level"] == "note");
  CHECK(by_file["wrong.json"]["ruleId"] == "mutual_exclusion");
  // The scenario's "expect" line.
  CHECK(by_file["wrong.json"]["locations"][0]["physicalLocation"]["region"]["startLine"] > 1);

  const json& flows = by_file["wrong.json"]["codeFlows"][0]["threadFlows"];
  std::set<std::string> ids;
  std::vector<int> order;
  for (const json& flow : flows) {
    ids.insert(flow["id"].get<std::string>());
    int last = 0;
    for (const json& at : flow["locations"]) {
      const int step = at["executionOrder"];
      CHECK(step > last);  // in the schedule's order within a flow
      last = step;
      order.push_back(step);
      if (flow["id"] != "clock and servers") {
        const json& artifact = at["location"]["physicalLocation"]["artifactLocation"];
        CHECK(artifact["uriBaseId"] == "LOCKSTEP_SOURCE");
        CHECK(Has(artifact["uri"], "sim/algo/"));
      }
    }
  }
  CHECK(ids.count("C1"));
  CHECK(ids.count("C2"));
  // Across the flows, every step of the schedule once.
  std::sort(order.begin(), order.end());
  const json trace = json::parse(testing::ReadText(
      json::parse(
          testing::RunLockstep({"explore", run.wrong, "--json", "--out", run.tmp.File("again")})
              .out)["counterexample"]["file"]
          .get<std::string>()));
  const size_t steps = trace["schedule"].size();
  REQUIRE(order.size() == steps);
  for (size_t i = 0; i < steps; ++i) CHECK(order[i] == static_cast<int>(i) + 1);

  // A Lua lock's steps point at its script, as the user's own file.
  bool at_script = false;
  for (const json& flow : by_file["get-compare-del-stall.json"]["codeFlows"][0]["threadFlows"]) {
    for (const json& at : flow["locations"]) {
      const json& artifact = at["location"]["physicalLocation"]["artifactLocation"];
      if (artifact["uri"] == "examples/lua/get_compare_del.lua") {
        at_script = true;
        CHECK_FALSE(artifact.contains("uriBaseId"));
        CHECK(at["location"]["physicalLocation"]["region"]["startLine"] > 0);
      }
    }
  }
  CHECK(at_script);
}

TEST_CASE(
    "the GitHub annotations put an error at the failing scenario's expect and notices for the rest",
    "[cli][report]") {
  Run run;
  REQUIRE(run.result.exit_code == 1);
  const std::string text = testing::ReadText(run.tmp.File("r.txt"));
  INFO(text);
  int expect_line = 0;
  const std::string written = testing::ReadText(run.wrong);
  for (size_t i = 0, line = 1; i < written.size(); ++i) {
    if (written.compare(i, 9, "\"expect\":") == 0) {
      expect_line = static_cast<int>(line);
      break;
    }
    line += written[i] == '\n';
  }
  REQUIRE(expect_line > 1);
  CHECK(Has(text, "::error file=" + run.wrong + ",line=" + std::to_string(expect_line) +
                      ",title=lockstep%3A setnx-docs-race::expected safe, found violation of "
                      "mutual_exclusion: C1 and C2"));
  // A workflow command is one line: the replay command and pin follow as %0A.
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    CHECK((line.rfind("::error file=", 0) == 0 || line.rfind("::notice file=", 0) == 0));
    start = end + 1;
  }
  CHECK(Has(text, "%0Areplay it: lockstep replay "));
  CHECK(Has(text, "::notice file=" + run.race + ","));
  // The Lua lock's violating request, at its line of the script.
  CHECK(Has(text, "::notice file=examples/lua/get_compare_del.lua,line="));
}

TEST_CASE("explore --report writes the same reports of one search", "[cli][report]") {
  testing::TempDir tmp;
  const testing::ProcessResult r = testing::RunLockstep(
      {"explore", testing::ScenarioPath("setnx-docs-race.json"), "--out", tmp.File("cx"),
       "--report", "sarif:" + tmp.File("r.sarif"), "--report", "junit:" + tmp.File("r.xml")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(ReadBack("sarif", tmp.File("r.sarif"))["errors"].empty());
  const json junit = ReadBack("junit", tmp.File("r.xml"));
  CHECK(junit["tests"] == 1);
  CHECK(junit["failures"] == 0);  // the violation is the one it expects
  const json log = json::parse(testing::ReadText(tmp.File("r.sarif")));
  CHECK(log["runs"][0]["results"][0]["level"] == "note");
  CHECK(log["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"].size() >= 2);
}

TEST_CASE("the validator this test trusts refuses a log that breaks the schema", "[cli][report]") {
  testing::TempDir tmp;
  const std::string bad =
      tmp.Write("bad.sarif", R"({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
        "results": [{"message": {"text": "m"}, "level": "severe"}]}]})");
  const testing::ProcessResult r = testing::RunProgram(
      {"/usr/bin/python3", testing::SourceDir() + "/tests/report/check_reports.py", "sarif", bad,
       kSchema});
  CHECK(r.exit_code == 1);
  CHECK(Has(r.out, "'severe' is not one of"));
}

}  // namespace
}  // namespace lockstep
