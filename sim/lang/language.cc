#include "sim/lang/language.h"

#include <cstdlib>

#include "sim/base/input_error.h"

namespace lockstep::lang {

Language ParseLanguage(const std::string& text, const std::string& option) {
  if (text == "en") return Language::kEn;
  if (text == "zh") return Language::kZh;
  throw base::InputError("", option, "expected en (English) or zh (Chinese), got \"" + text + "\"");
}

Language DefaultLanguage() {
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    return std::string(value).rfind("zh", 0) == 0 ? Language::kZh : Language::kEn;
  }
  return Language::kEn;
}

const char* LanguageCode(Language language) { return language == Language::kZh ? "zh" : "en"; }

}  // namespace lockstep::lang
