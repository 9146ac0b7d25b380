#include "sim/lang/translate.h"

#include <algorithm>

namespace lockstep::lang {
namespace {

// A template cut at its placeholders: literals[0] {n[0]} literals[1] ...
struct Pieces {
  std::vector<std::string> literals;  // one more than numbers
  std::vector<int> numbers;
};

Pieces Cut(const std::string& pattern) {
  Pieces p;
  p.literals.emplace_back();
  for (size_t i = 0; i < pattern.size();) {
    const size_t close = pattern[i] == '{' ? pattern.find('}', i) : std::string::npos;
    if (close != std::string::npos && close > i + 1 && close <= i + 3 &&
        std::all_of(pattern.begin() + static_cast<long>(i) + 1,
                    pattern.begin() + static_cast<long>(close),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      p.numbers.push_back(std::stoi(pattern.substr(i + 1, close - i - 1)));
      p.literals.emplace_back();
      i = close + 1;
      continue;
    }
    p.literals.back() += pattern[i++];
  }
  return p;
}

}  // namespace

std::optional<std::vector<std::string>> MatchTemplate(const std::string& pattern,
                                                      const std::string& text) {
  const Pieces p = Cut(pattern);
  const std::string& first = p.literals.front();
  const std::string& last = p.literals.back();
  if (p.numbers.empty()) {
    if (text != first) return std::nullopt;
    return std::vector<std::string>{};
  }
  if (text.compare(0, first.size(), first) != 0) return std::nullopt;
  if (text.size() < first.size() + last.size() ||
      text.compare(text.size() - last.size(), last.size(), last) != 0) {
    return std::nullopt;
  }
  const size_t end = text.size() - last.size();  // where the last placeholder's run ends
  // Each middle literal at its earliest place after a non-empty run: the
  // earliest leaves the most text to the rest, so this finds a match
  // whenever there is one, in time linear in the templates' pieces.
  std::vector<std::string> runs;
  size_t at = first.size();
  for (size_t k = 1; k + 1 < p.literals.size(); ++k) {
    const std::string& lit = p.literals[k];
    const size_t found = text.find(lit, at + 1);
    if (found == std::string::npos || found + lit.size() > end) {
      return std::nullopt;
    }
    runs.push_back(text.substr(at, found - at));
    at = found + lit.size();
  }
  if (at >= end) return std::nullopt;
  runs.push_back(text.substr(at, end - at));
  std::vector<std::string> values(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    const int n = p.numbers[k];
    if (n < 1 || static_cast<size_t>(n) > runs.size()) return std::nullopt;
    values[static_cast<size_t>(n) - 1] = runs[k];
  }
  return values;
}

std::optional<Msg> TemplateOf(const std::string& text) {
  for (const Entry& e : Catalogue()) {
    if (e.use == Use::kShown && MatchTemplate(e.en, text)) return e.id;
  }
  return std::nullopt;
}

std::string Shown(const std::string& text, Language language) {
  if (language == Language::kEn) return text;
  for (const Entry& e : Catalogue()) {
    if (e.use != Use::kShown) continue;
    if (std::optional<std::vector<std::string>> values = MatchTemplate(e.en, text)) {
      return Substitute(e.zh, *values);
    }
  }
  return text;
}

}  // namespace lockstep::lang
