#include "sim/kv/zset.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/kv/commands.h"

namespace lockstep::kv::internal {

std::optional<double> ParseScore(std::string_view s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
  const std::string z(s);  // strtod reads up to a NUL: a NUL inside is caught by the length
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(z.c_str(), &end);
  if (static_cast<size_t>(end - z.c_str()) != z.size()) return std::nullopt;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return std::nullopt;
  }
  if (std::isnan(v)) return std::nullopt;
  return v;
}

std::string FormatScore(double score) {
  if (std::isinf(score)) return score > 0 ? "inf" : "-inf";
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%.17g", score);
  return std::string(buf, static_cast<size_t>(n));
}

double Zset::score(size_t i) const { return std::strtod(score_text(i).c_str(), nullptr); }

std::optional<size_t> Zset::Find(std::string_view m) const { return FindPair(e_, m); }

void Zset::Insert(std::string_view m, double s) {
  // A listpack keeps an integral score as an integer (zzlInsertAt's
  // double2ll), so -0 comes back as 0.
  if (s == 0) s = 0;
  // zzlInsert: before the first element of a greater score, or of an equal
  // score and a greater member.
  size_t at = 0;
  while (at < size() && (score(at) < s || (score(at) == s && member(at) < m))) ++at;
  auto it = e_.items.begin() + static_cast<std::ptrdiff_t>(2 * at);
  it = e_.items.insert(it, std::string(m));
  e_.items.insert(it + 1, FormatScore(s));
}

bool Zset::PastListpack() const {
  if (size() > 128) return true;
  for (size_t i = 0; i < size(); ++i) {
    if (member(i).size() > 64) return true;
  }
  return false;
}

void Zset::Erase(size_t i) {
  auto it = e_.items.begin() + static_cast<std::ptrdiff_t>(2 * i);
  e_.items.erase(it, it + 2);
}

namespace {

// One end of a score range: strtod up to the first NUL, with nothing after.
bool ParseScoreEnd(const std::string& arg, double* value, bool* open) {
  const char* p = arg.c_str();
  *open = p[0] == '(';
  if (*open) ++p;
  char* end = nullptr;
  *value = std::strtod(p, &end);
  return end[0] == '\0' && !std::isnan(*value);
}

// zslParseLexRangeItem: the text after "(" or "[" is the whole argument's.
bool ParseLexEnd(const std::string& arg, std::string* value, bool* open, bool* infinite) {
  const char first = arg.c_str()[0];
  if (first == '+' || first == '-') {
    if (arg.c_str()[1] != '\0') return false;
    *open = true;
    *infinite = true;
    return true;
  }
  if (first != '(' && first != '[') return false;
  *open = first == '(';
  *value = arg.substr(1);
  return true;
}

}  // namespace

std::optional<ScoreRange> ParseScoreRange(const std::string& min, const std::string& max) {
  ScoreRange r;
  if (!ParseScoreEnd(min, &r.min, &r.min_open) || !ParseScoreEnd(max, &r.max, &r.max_open)) {
    return std::nullopt;
  }
  return r;
}

std::optional<LexRange> ParseLexRange(const std::string& min, const std::string& max) {
  LexRange r;
  bool min_infinite = false, max_infinite = false;
  if (!ParseLexEnd(min, &r.min, &r.min_open, &min_infinite) ||
      !ParseLexEnd(max, &r.max, &r.max_open, &max_infinite)) {
    return std::nullopt;
  }
  // "-" and "+" are Redis's shared minstring and maxstring, whichever end
  // they stand at: "+" as min makes an empty range, as in sdscmplex.
  r.min_least = min_infinite && min.c_str()[0] == '-';
  r.max_greatest = max_infinite && max.c_str()[0] == '+';
  r.min_greatest = min_infinite && !r.min_least;
  r.max_least = max_infinite && !r.max_greatest;
  return r;
}

namespace {

// sdscmplex of a member (never one of the shared strings) against an end.
int CompareToEnd(std::string_view v, const std::string& end, bool least, bool greatest) {
  if (least) return 1;
  if (greatest) return -1;
  const int c = v.compare(end);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

bool LexRange::AboveMin(std::string_view v) const {
  const int c = CompareToEnd(v, min, min_least, min_greatest);
  return min_open ? c > 0 : c >= 0;
}

bool LexRange::BelowMax(std::string_view v) const {
  const int c = CompareToEnd(v, max, max_least, max_greatest);
  return max_open ? c < 0 : c <= 0;
}

bool LexRange::Empty() const {
  // sdscmplex(min, max): a shared string equals only itself.
  int c = 0;
  const bool min_shared = min_least || min_greatest, max_shared = max_least || max_greatest;
  if (min_shared && max_shared && min_least == max_least) {
    c = 0;
  } else if (min_least || max_greatest) {
    c = -1;
  } else if (min_greatest || max_least) {
    c = 1;
  } else {
    const int d = std::string_view(min).compare(max);
    c = d < 0 ? -1 : (d > 0 ? 1 : 0);
  }
  return c > 0 || (c == 0 && (min_open || max_open));
}

}  // namespace lockstep::kv::internal

namespace lockstep::kv::internal {

std::vector<size_t> InScoreRange(const Zset& z, const ScoreRange& r) {
  const bool empty = r.min > r.max || (r.min == r.max && (r.min_open || r.max_open));
  return WalkRange(
      z, empty, [&](size_t i) { return r.AboveMin(z.score(i)); },
      [&](size_t i) { return r.BelowMax(z.score(i)); }, false);
}

}  // namespace lockstep::kv::internal
