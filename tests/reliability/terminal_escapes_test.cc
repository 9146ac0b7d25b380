// A shared scenario or trace may hold terminal control sequences in its
// keys, values, reasons and errors: shown raw they could clear the screen,
// rewrite a line ("no violation") or set the clipboard (OSC 52). Every text
// output shows them escaped; --json escapes them as JSON does.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/base/printable.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;

using testing::Has;

// The first byte a terminal would act on rather than show, or npos: C0
// controls but the line feed, DEL, C1 controls (as UTF-8), bidirectional
// overrides.
size_t FirstControl(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return i;
    if (c == 0xc2 && i + 1 < text.size() &&
        (static_cast<unsigned char>(text[i + 1]) & 0xe0) == 0x80) {
      return i;
    }
    if (text.compare(i, 3, "\xe2\x80\xae") == 0) return i;
  }
  return std::string::npos;
}

// Escape sequences as an attacker would write them.
const std::string kClear = "\x1b[2J\x1b[H";
const std::string kFakeLine = "\rno violation (all done)\n";
const std::string kClipboard = "\x1b]52;c;ZWNobyBwd25lZA==\x07";
const std::string kC1 =
    "\xc2\x9b"
    "31m";
const std::string kBidi =
    "\xe2\x80\xae"
    "evil";

json Scenario(const std::string& body) {
  return {{"name", "escapes"},
          {"description", "desc " + kClear + kFakeLine},
          {"clients",
           {{{"name", "C1"}, {"algorithm", {{"lua_inline", body}}}},
            {{"name", "C2"}, {"algorithm", {{"lua_inline", body}}}}}},
          {"lock", {{"key", "lock.foo"}}},
          {"keyspace", {{{"key", "k" + kC1}, {"value", "v" + kBidi}, {"writer", "w" + kClear}}}},
          {"clock", {{"horizon", 1}}},
          {"expect", "safe"}};
}

// `s` as a Lua 5.1 string literal: every byte outside printable ASCII, and
// the quote and backslash, as a decimal escape.
std::string LuaString(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      out += "\\" + std::to_string(c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

TEST_CASE("keys, values, reasons and errors show their control characters escaped",
          "[reliability]") {
  testing::TempDir tmp;
  // A reason belongs to the step whose reply it reacts to: the GET's.
  const std::string body = "redis.call('GET', 'x')\nlock.because(" +
                           LuaString("why " + kClipboard + kFakeLine) + ")\nredis.call('SET', " +
                           LuaString("key" + kClear) + ", " + LuaString("value " + kFakeLine) +
                           ")\n";
  const std::string file = tmp.Write("escapes.json", Scenario(body).dump());
  const std::string trace = tmp.File("trace.json");
  std::vector<std::vector<std::string>> commands = {
      {"run", file, "--seed", "1", "--trace-out", trace},
      {"replay", trace},
      {"replay", trace, "--compact"},
      {"replay", trace, "--width", "40"},
      {"explore", file, "--out", tmp.File("found")},
      {"list", "--dir", tmp.path().string()}};
  // (Exit codes: the scenario is safe, and its search vacuously so, since
  // nobody enters; list lists.)
  for (const auto& command : commands) {
    INFO(command[0] << " " << command.back());
    auto r = RunLockstep(command);
    INFO(r.out << r.err);
    CHECK(r.exit_code == (command[0] == "explore" ? 5 : 0));
    CHECK(FirstControl(r.out) == std::string::npos);
    CHECK(FirstControl(r.err) == std::string::npos);
  }
  auto r = RunLockstep({"replay", trace, "--compact"});
  // A value of several lines shows its first ("[... ...]"), escaped.
  CHECK(Has(r.out, "SET key\\x1b[2J\\x1b[H [value \\rno violation (all done) ...] -> OK"));
  CHECK(Has(r.out, "key\\x1b[2J\\x1b[H=\"value \\rno violation (all done)\\n\" by C"));
  r = RunLockstep({"replay", trace});
  CHECK(Has(r.out, "why \\x1b]52;c;ZWNobyBwd25lZA==\\x07\\rno violation (all done)\\n"));
  CHECK(Has(r.out, "k\\u009b31m=\"v\\u202eevil\" by w\\x1b[2J\\x1b[H"));
  // The trace itself keeps the data as it was, and escapes it as JSON does.
  const json saved = json::parse(testing::ReadText(trace));
  CHECK(saved["steps"][0]["keyspace"][0]["value"] == "v" + kBidi);
}

TEST_CASE("a script's error shows its control characters escaped", "[reliability]") {
  testing::TempDir tmp;
  const std::string file = tmp.Write(
      "error.json", Scenario("error(" + LuaString("boom" + kClear + kFakeLine) + ")\n").dump());
  auto r = RunLockstep({"run", file, "--seed", "1"});
  CHECK(r.exit_code == 2);
  CHECK(FirstControl(r.err) == std::string::npos);
  CHECK(Has(r.err, "boom\\x1b[2J\\x1b[H\\rno violation (all done)\\n"));
}

TEST_CASE("a trace whose shown texts hold control characters is refused", "[reliability]") {
  testing::TempDir tmp;
  const std::string scenario = tmp.Write(
      "s.json",
      Scenario("redis.call('GET', 'x')\nlock.because('fine')\nredis.call('GET', 'y')\n").dump());
  const std::string trace = tmp.File("trace.json");
  REQUIRE(RunLockstep({"run", scenario, "--seed", "1", "--trace-out", trace}).exit_code == 0);
  json doc = json::parse(testing::ReadText(trace));
  bool edited = false;
  for (json& step : doc["steps"]) {
    if (step.contains("reasons") && !step["reasons"].empty()) {
      step["reasons"][0]["text"] = "fine" + kClear;
      edited = true;
      break;
    }
  }
  REQUIRE(edited);
  const std::string crafted = tmp.Write("crafted.json", doc.dump(2));
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"replay", crafted},
        std::vector<std::string>{"render", crafted, "--svg", tmp.File("out.svg")}}) {
    auto r = RunLockstep(command);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, "/text: expected text without control characters"));
    CHECK(FirstControl(r.err) == std::string::npos);
  }
}

TEST_CASE("Printable escapes what a terminal acts on and nothing else", "[reliability]") {
  CHECK(base::Printable("plain text, ünïcödé, 日本") == "plain text, ünïcödé, 日本");
  CHECK(base::Printable("a\nb\tc\rd\x1b") == "a\\nb\\tc\\rd\\x1b");
  CHECK(base::Printable("a\nb", /*keep_newlines=*/true) == "a\nb");
  CHECK(base::Printable("\x7f") == "\\x7f");
  CHECK(base::Printable("\xc2\x9b") == "\\u009b");
  CHECK(base::Printable("\xe2\x80\xae") == "\\u202e");
  CHECK(base::Printable("\xff\xc3") == "\\xff\\xc3");           // not UTF-8
  CHECK(base::Printable("\xc0\xaf") == "\\xc0\\xaf");           // overlong
  CHECK(base::Printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(base::IsPrintable("ok é"));
  CHECK_FALSE(base::IsPrintable("no\x1b"));
}

}  // namespace
}  // namespace lockstep
