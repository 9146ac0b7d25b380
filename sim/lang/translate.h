// Recorded texts shown in a language. A trace holds the English its
// algorithms and model wrote ("C1 enters the critical section", "\"13\" <
// my clock 15: expired; take it over with GETSET"); shown in Chinese, a
// text is matched against the catalogue's kShown templates and written
// with the Chinese template, the values it matched put back in. A text no
// template matches (a user's own Lua script's why-lines) is shown as
// written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/lang/catalogue.h"
#include "sim/lang/language.h"

namespace lockstep::lang {

// The values `text` gives the placeholders of the English template
// `pattern` ({1}, {2}, ... each matching a non-empty run, the whole text
// matched), in the order of their numbers; nullopt if it does not match.
// Each placeholder takes the shortest run that lets the rest match.
std::optional<std::vector<std::string>> MatchTemplate(const std::string& pattern,
                                                      const std::string& text);

// The first kShown template `text` matches, if any.
std::optional<Msg> TemplateOf(const std::string& text);

// `text` as shown in `language`: in English as it is; in Chinese
// translated by its template, or as it is if it has none.
std::string Shown(const std::string& text, Language language);

}  // namespace lockstep::lang
