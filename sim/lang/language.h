// The language lockstep shows its words in: English or Simplified Chinese
// (--lang en|zh), by default the locale's. Traces and scenarios hold no
// language; only what is shown does (catalogue.h, translate.h).
#pragma once

#include <string>

namespace lockstep::lang {

enum class Language { kEn, kZh };

// "en" or "zh". Throws base::InputError naming `option` and what it takes.
Language ParseLanguage(const std::string& text, const std::string& option = "--lang");

// The locale's: the first of LC_ALL, LC_MESSAGES and LANG that is set and
// not empty; a value starting with "zh" gives Chinese, anything else (or
// none set) English.
Language DefaultLanguage();

// "en" or "zh": the page's <html lang>, and what ParseLanguage reads.
const char* LanguageCode(Language language);

}  // namespace lockstep::lang
