// sim/lang: every message in both languages with the same placeholders,
// the substitution that lets Chinese order them its own way, the matching
// that shows a recorded text in Chinese, and the choice of language.
#include "sim/lang/catalogue.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include <catch2/catch.hpp>

#include "sim/base/input_error.h"
#include "sim/lang/language.h"
#include "sim/lang/translate.h"
#include "sim/run/play_page.h"

namespace lockstep {
namespace {

using lang::Language;
using lang::Msg;

// Whether `s` holds a CJK ideograph (U+4E00..U+9FFF, three UTF-8 bytes
// starting 0xE4..0xE9).
bool HasIdeograph(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0xE4 && b <= 0xE9) return true;
  }
  return false;
}

std::vector<int> SortedNumbers(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_CASE("every message has English and Chinese, with the same placeholders", "[lang]") {
  // Entries that are only placeholders and punctuation (Chinese's is
  // full-width): no words to translate.
  const std::set<Msg> symbols_only = {Msg::kPageMove, Msg::kPageEntered};
  size_t n = 0;
  for (const lang::Entry& e : lang::Catalogue()) {
    INFO("message " << static_cast<int>(e.id) << ": " << e.en);
    CHECK(static_cast<size_t>(e.id) == n++);
    CHECK(std::string(e.en).size() > 0);
    CHECK(std::string(e.zh).size() > 0);
    CHECK(SortedNumbers(lang::Placeholders(e.en)) == SortedNumbers(lang::Placeholders(e.zh)));
    // Each placeholder 1..k appears in the English, none skipped.
    std::vector<int> numbers = lang::Placeholders(e.en);
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    for (size_t k = 0; k < numbers.size(); ++k) CHECK(numbers[k] == static_cast<int>(k + 1));
    if (!symbols_only.count(e.id)) {
      CHECK(std::string(e.en) != e.zh);
      CHECK(HasIdeograph(e.zh));
      CHECK(!HasIdeograph(e.en));
    }
  }
  CHECK(n == static_cast<size_t>(Msg::kCount));
}

TEST_CASE("placeholders are filled where each language puts them", "[lang]") {
  CHECK(lang::Format(Msg::kPageViolationAt, Language::kEn, {"mutual_exclusion", "7", "why"}) ==
        "mutual_exclusion at step 7: why.");
  CHECK(lang::Format(Msg::kPageViolationAt, Language::kZh, {"mutual_exclusion", "7", "why"}) ==
        "第 7 步违反了 mutual_exclusion：why。");
  // A value is put in as it is, never read again for placeholders.
  CHECK(lang::Substitute("{1} and {2}", {"{2}", "x"}) == "{2} and x");
  // A placeholder with no value, and braces that are no placeholder, stay.
  CHECK(lang::Substitute("{1}{3}{}{x}{123}", {"a"}) == "a{3}{}{x}{123}");
  CHECK(lang::Placeholders("{2} {1} {} {12} {x}") == std::vector<int>{2, 1, 12});
}

TEST_CASE("a recorded text is shown in Chinese by the template it matches", "[lang]") {
  CHECK(lang::MatchTemplate("{1} < my clock {2}: x", "\"13\" < my clock 15: x") ==
        std::vector<std::string>{"\"13\"", "15"});
  // Anchored at both ends; a placeholder matches a non-empty run.
  CHECK(!lang::MatchTemplate("{1} wakes", "C1 wakes up"));
  CHECK(!lang::MatchTemplate("{1} wakes", " wakes"));
  CHECK(!lang::MatchTemplate("a {1}{2} b", "a x b"));
  CHECK(lang::MatchTemplate("a {1}{2} b", "a xy b") == std::vector<std::string>{"x", "y"});
  CHECK(!lang::MatchTemplate("{1} wakes", "wakes"));
  CHECK(lang::MatchTemplate("no placeholder", "no placeholder") == std::vector<std::string>{});
  CHECK(!lang::MatchTemplate("no placeholder", "no placeholder!"));

  CHECK(lang::Shown("C2 enters the critical section", Language::kZh) == "C2 进入临界区");
  CHECK(lang::Shown("C2 enters the critical section", Language::kEn) ==
        "C2 enters the critical section");
  CHECK(lang::Shown("S1 fails; S2 is promoted to master, losing 2 unreplicated writes",
                    Language::kZh) == "S1 故障；S2 被提升为主节点，丢失了 2 个尚未复制的写入");
  // A text no template matches (a user's own Lua reason) is shown as written.
  CHECK(lang::Shown("my own reason", Language::kZh) == "my own reason");
  CHECK(!lang::TemplateOf("my own reason"));
  // Words lockstep shows are no template: a why-line that says "Undo" stays.
  CHECK(lang::Shown("Undo", Language::kZh) == "Undo");
}

TEST_CASE("the language is en or zh as --lang says, by default the locale's", "[lang]") {
  CHECK(lang::ParseLanguage("en") == Language::kEn);
  CHECK(lang::ParseLanguage("zh") == Language::kZh);
  for (const std::string bad : {"xx", "", "ZH", "zh_CN"}) {
    try {
      lang::ParseLanguage(bad);
      FAIL("accepted " << bad);
    } catch (const base::InputError& e) {
      CHECK(e.place == "--lang");
      CHECK(e.expected == "expected en (English) or zh (Chinese), got \"" + bad + "\"");
    }
  }
  struct Saved {
    const char* name;
    std::optional<std::string> value;
  };
  std::vector<Saved> saved;
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(name);
    saved.push_back({name, v ? std::optional<std::string>(v) : std::nullopt});
    unsetenv(name);
  }
  CHECK(lang::DefaultLanguage() == Language::kEn);
  setenv("LANG", "zh_CN.UTF-8", 1);
  CHECK(lang::DefaultLanguage() == Language::kZh);
  setenv("LC_MESSAGES", "en_GB.UTF-8", 1);  // before LANG
  CHECK(lang::DefaultLanguage() == Language::kEn);
  setenv("LC_ALL", "zh_TW", 1);  // before both
  CHECK(lang::DefaultLanguage() == Language::kZh);
  setenv("LC_ALL", "", 1);  // set but empty: the next one decides
  CHECK(lang::DefaultLanguage() == Language::kEn);
  for (const Saved& s : saved) {
    if (s.value) {
      setenv(s.name, s.value->c_str(), 1);
    } else {
      unsetenv(s.name);
    }
  }
}

TEST_CASE("the game's page reads every page word of the catalogue, in its language", "[lang]") {
  const nlohmann::json en = run::PageWords(Language::kEn);
  const nlohmann::json zh = run::PageWords(Language::kZh);
  CHECK(en["lang"] == "en");
  CHECK(zh["lang"] == "zh");
  CHECK(en.size() == static_cast<size_t>(Msg::kPageCodeLast) -
                         static_cast<size_t>(Msg::kPageTitle) + 2);  // and "lang"
  CHECK(en["undo"] == "Undo");
  CHECK(zh["undo"] == "撤销");
  // The template keeps no word of its own: each comes from the words.
  const std::string page = run::PlayPageTemplate();
  for (const char* english : {"Your move", ">Undo<", "You broke the lock", "How it happened",
                              "Be the scheduler", "choose who moves next", "keyspace after"}) {
    INFO(english);
    CHECK(page.find(english) == std::string::npos);
  }
}

}  // namespace
}  // namespace lockstep
