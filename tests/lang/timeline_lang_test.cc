// The terminal timeline in Chinese (--lang zh): its labels, the outcome and
// the why-lines in Chinese, every line within the width counting a wide
// character as two columns; in English as it always was.
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// Terminal columns: two for a CJK character or full-width punctuation
// (U+2E80..U+A4CF, U+FF00..U+FF60), one for any other code point.
size_t WideColumns(const std::string& line) {
  size_t w = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const auto b = static_cast<unsigned char>(line[i]);
    if ((b & 0xC0) == 0x80) continue;
    unsigned cp = b;
    if ((b & 0xF0) == 0xE0 && i + 2 < line.size()) {
      cp = ((b & 0x0Fu) << 12) | ((static_cast<unsigned char>(line[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(line[i + 2]) & 0x3Fu);
    }
    w += (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xFF00 && cp <= 0xFF60) ? 2 : 1;
  }
  return w;
}

bool ShownHas(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

trace::Trace ZhDocsRace() {
  return run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
}

TEST_CASE("the timeline in Chinese: labels, outcome and why-lines", "[lang]") {
  const trace::Trace t = ZhDocsRace();
  const std::string zh = trace::Timeline(t, {.language = lang::Language::kZh});
  INFO(zh);
  for (const char* word : {"步", "时钟", "临界区内", "这一步之后的键空间", "[进入临界区]",
                           "第 8 步违反了 mutual_exclusion：C1 和 C2 同时处于临界区",
                           "\"7\" < 我的时钟 10：已过期；接管它：先 DEL，再 SETNX"}) {
    CHECK(ShownHas(zh, word));
  }
  for (const char* english : {"in CS", "VIOLATION", "keyspace after", "enters CS", "expired"}) {
    CHECK(!ShownHas(zh, english));
  }
  // English is the default, and as it always was.
  const std::string en = trace::Timeline(t, {.language = lang::Language::kEn});
  CHECK(en == trace::Timeline(t));
  CHECK(ShownHas(en,
                 "VIOLATION of mutual_exclusion at step 8: C1 and C2 are in the critical section "
                 "at once"));
  CHECK(ShownHas(en, "\"7\" < my clock 10: expired; take it over with DEL, then SETNX"));
  CHECK(ShownHas(en, "[enters CS]"));
}

TEST_CASE("every line of a Chinese timeline fits its width, wide characters two columns",
          "[lang]") {
  const trace::Trace t = ZhDocsRace();
  for (size_t width : {60, 80}) {
    for (bool compact : {false, true}) {
      const std::string text =
          trace::Timeline(t, {.width = width, .compact = compact, .language = lang::Language::kZh});
      std::istringstream in(text);
      size_t lines = 0;
      for (std::string line; std::getline(in, line); ++lines) {
        INFO("width " << width << ", line: " << line);
        CHECK(WideColumns(line) <= width);
      }
      CHECK(lines > 8);
      CHECK(ShownHas(text, "同时处于临界区"));
    }
  }
}

TEST_CASE("replay --lang zh prints the timeline in Chinese and --lang xx is refused", "[lang]") {
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  const testing::ProcessResult zh = testing::RunLockstep({"replay", race, "--lang", "zh"});
  CHECK(zh.exit_code == 1);  // a violation
  CHECK(ShownHas(zh.out, "第 8 步违反了 mutual_exclusion"));
  CHECK(ShownHas(zh.out, "临界区内"));
  const testing::ProcessResult en = testing::RunLockstep({"replay", race, "--lang", "en"});
  CHECK(ShownHas(en.out, "VIOLATION of mutual_exclusion at step 8"));
  CHECK(!ShownHas(en.out, "临界区"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"replay", race, "--lang", "xx"},
        std::vector<std::string>{"explore", race, "--lang", "fr"},
        std::vector<std::string>{"demo", "--lang", ""}}) {
    const testing::ProcessResult bad = testing::RunLockstep(args);
    INFO(bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(ShownHas(bad.err,
                   "--lang: expected en (English) or zh (Chinese), got \"" + args.back() + "\""));
    CHECK(bad.out.empty());
  }
}

}  // namespace
}  // namespace lockstep
