// The counterexample a regression test pins: `explore` prints it as the
// call to paste (and --json as "one_line"), a failing matcher prints it in
// lines Catch2 never wraps, and what either printed, pasted, passes.
#include <string>
#include <vector>

#include <lockstep/catch2.h>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

const std::string kDir = LOCKSTEP_SOURCE_DIR "/scenarios/";

// The string that C++ source made of adjacent literals ("a" "b", on any
// lines) stands for: the compiler's reading of what was printed.
std::string Unquoted(const std::string& source) {
  std::string out;
  bool inside = false;
  for (size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    if (!inside) {
      REQUIRE((c == '"' || c == '\n' || c == ' '));
      inside = c == '"';
    } else if (c == '"') {
      inside = false;
    } else if (c == '\\') {
      const char next = source.at(++i);
      if (next >= '0' && next <= '7') {
        out += static_cast<char>(std::stoi(source.substr(i, 3), nullptr, 8));
        i += 2;
      } else {
        out += next;
      }
    } else {
      out += c;
    }
  }
  REQUIRE_FALSE(inside);
  return out;
}

TEST_CASE("explore prints the counterexample to pin, and --json gives it as one_line",
          "[one_line]") {
  testing::TempDir tmp;
  const std::string file = kDir + "setnx-docs-race.json";
  const testing::ProcessResult text =
      testing::RunLockstep({"explore", file, "--out", tmp.File("a")});
  const testing::ProcessResult json =
      testing::RunLockstep({"explore", file, "--json", "--out", tmp.File("b")});
  REQUIRE(text.exit_code == 1);
  REQUIRE(json.exit_code == 1);
  const std::string expected = OneLine(Explore(file).counterexample->trace);
  CHECK(nlohmann::json::parse(json.out)["counterexample"]["one_line"] == expected);
  const std::string prefix = "\npin it in a test: lockstep::HasCounterexample(";
  const size_t at = text.out.find(prefix);
  REQUIRE(at != std::string::npos);
  const size_t start = at + prefix.size();
  const size_t end = text.out.find(")\n", start);
  CHECK(Unquoted(text.out.substr(start, end - start)) == expected);
}

TEST_CASE("what explore printed, pasted into a test, passes", "[one_line]") {
  // Pasted from `lockstep explore scenarios/setnx-docs-race.json`.
  CHECK_THAT(Explore(kDir + "setnx-docs-race.json"),
             HasCounterexample(
                 "C1 SETNX lock.foo 13 -> 0; C1 GET lock.foo -> \"7\"; C2 SETNX lock.foo 13 -> 0; "
                 "C2 GET lock.foo -> \"7\"; C1 DEL lock.foo -> 1; C1 SETNX lock.foo 13 -> 1; C2 "
                 "DEL lock.foo -> 1; C2 SETNX lock.foo 13 -> 1 !mutual_exclusion(C1,C2)@8"));
}

TEST_CASE("a failing matcher prints the literal in lines Catch2 wraps none of", "[one_line]") {
  // Quotes (a GET's reply) and a long run of steps.
  const Scenario s = LoadScenarioFile(kDir + "getset-loser-overwrite.json");
  const Trace t = ReplaySchedule(s);
  REQUIRE(t.violation);
  const std::string line = OneLine(t);
  REQUIRE(line.size() > 250);
  REQUIRE(testing::Has(line, "\""));
  const std::string block = OneLineLiteral(t, 76);
  size_t lines = 0;
  for (size_t at = 0; at <= block.size();) {
    size_t eol = block.find('\n', at);
    if (eol == std::string::npos) eol = block.size();
    INFO(block.substr(at, eol - at));
    CHECK(eol - at <= 76);
    CHECK(block[at] == '"');
    CHECK(block[eol - 1] == '"');
    ++lines;
    at = eol + 1;
  }
  CHECK(lines >= line.size() / 76);
  CHECK(Unquoted(block) == line);
  CHECK(Unquoted(OneLineLiteral(t)) == line);
  CHECK(OneLineLiteral(t).find('\n') == std::string::npos);
  // Escapes stay whole at any width, and every character survives.
  for (size_t width = 3; width < 40; ++width) CHECK(Unquoted(OneLineLiteral(t, width)) == line);
}

}  // namespace
}  // namespace lockstep
