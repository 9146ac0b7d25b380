#include "sim/trace/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lockstep::json {

std::string Describe(const json& j) {
  std::string kind;
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      kind = "string ";
      break;
    case json::value_t::boolean:
      kind = "boolean ";
      break;
    case json::value_t::binary:
      return "binary data";
    case json::value_t::discarded:
      return "nothing";
    default:
      kind = "number ";
      break;
  }
  return kind + Shorten(j.dump(), 40);
}

std::string Shorten(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  // Cut at a character boundary: the message must stay valid UTF-8.
  size_t cut = max < 3 ? 0 : max - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

ObjectReader::ObjectReader(const json& j, std::string pointer)
    : j_(j), pointer_(std::move(pointer)) {
  if (!j_.is_object()) throw JsonError(pointer_, "expected an object, got " + Describe(j_));
}

std::string ObjectReader::PointerOf(const std::string& key) const {
  // RFC 6901 escaping: '~' is "~0", '/' is "~1".
  std::string escaped;
  for (char c : key) {
    if (c == '~')
      escaped += "~0";
    else if (c == '/')
      escaped += "~1";
    else
      escaped += c;
  }
  return pointer_ + "/" + escaped;
}

const json& ObjectReader::Raw(const std::string& key) const { return Need(key, "a value"); }

const json& ObjectReader::Need(const std::string& key, const char* what) const {
  auto it = j_.find(key);
  if (it == j_.end()) {
    throw JsonError(pointer_, std::string("missing field \"") + key + "\" (expected " + what + ")");
  }
  return *it;
}

std::string ObjectReader::String(const std::string& key) const {
  return ReadString(Need(key, "a string"), PointerOf(key));
}

std::optional<std::string> ObjectReader::OptString(const std::string& key) const {
  if (!Has(key)) return std::nullopt;
  return String(key);
}

int64_t ObjectReader::Int(const std::string& key, int64_t min, int64_t max) const {
  return ReadInt(Need(key, "an integer"), PointerOf(key), min, max);
}

std::optional<int64_t> ObjectReader::OptInt(const std::string& key, int64_t min,
                                            int64_t max) const {
  if (!Has(key)) return std::nullopt;
  return Int(key, min, max);
}

std::optional<int64_t> ObjectReader::NullableInt(const std::string& key, int64_t min,
                                                 int64_t max) const {
  if (!Has(key) || j_.at(key).is_null()) return std::nullopt;
  return Int(key, min, max);
}

bool ObjectReader::Bool(const std::string& key, bool fallback) const {
  if (!Has(key)) return fallback;
  const json& v = j_.at(key);
  if (!v.is_boolean()) {
    throw JsonError(PointerOf(key), "expected true or false, got " + Describe(v));
  }
  return v.get<bool>();
}

ObjectReader ObjectReader::Object(const std::string& key) const {
  return ObjectReader(Need(key, "an object"), PointerOf(key));
}

const json& ObjectReader::Array(const std::string& key) const {
  const json& v = Need(key, "an array");
  if (!v.is_array()) {
    throw JsonError(PointerOf(key), "expected an array, got " + Describe(v));
  }
  return v;
}

void ObjectReader::RejectUnknown(std::initializer_list<const char*> known) const {
  RejectUnknown(std::vector<const char*>(known));
}

void ObjectReader::RejectUnknown(const std::vector<const char*>& known) const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    bool ok = std::any_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; });
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw JsonError(PointerOf(it.key()),
                    "unknown field \"" + it.key() + "\" (known fields: " + list + ")");
  }
}

int64_t ReadInt(const json& j, const std::string& pointer, int64_t min, int64_t max) {
  std::string range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  bool in_range = false;
  int64_t value = 0;
  if (j.is_number_integer()) {
    if (j.is_number_unsigned()) {
      uint64_t u = j.get<uint64_t>();
      in_range = u <= static_cast<uint64_t>(INT64_MAX);
      value = static_cast<int64_t>(u);
    } else {
      value = j.get<int64_t>();
      in_range = true;
    }
  }
  if (!in_range || value < min || value > max) {
    throw JsonError(pointer, "expected " + range + ", got " + Describe(j));
  }
  return value;
}

std::string ReadString(const json& j, const std::string& pointer) {
  if (!j.is_string()) {
    throw JsonError(pointer, "expected a string, got " + Describe(j));
  }
  return j.get<std::string>();
}

namespace {

// "line 3, column 17" of text[pos], counted as nlohmann counts them.
std::string LineColumn(const std::string& text, size_t pos) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Walks the text outside strings; calls at(pos, c) for each such byte.
template <typename F>
void OutsideStrings(const std::string& text, F at) {
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (!at(i, c)) {
      return;
    }
  }
}

// Where the first number too large for a double starts, or npos.
size_t FirstOverflowingNumber(const std::string& text) {
  size_t found = std::string::npos;
  size_t start = std::string::npos;
  OutsideStrings(text, [&](size_t i, char c) {
    bool in_number =
        (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
    if (in_number && start == std::string::npos) start = i;
    if (!in_number && start != std::string::npos) {
      double v = std::strtod(text.substr(start, i - start).c_str(), nullptr);
      if (std::isinf(v)) found = start;
      start = std::string::npos;
    }
    return found == std::string::npos;
  });
  if (found == std::string::npos && start != std::string::npos &&
      std::isinf(std::strtod(text.substr(start).c_str(), nullptr))) {
    found = start;
  }
  return found;
}

// nlohmann's parse errors quote the text last read, which may be long and
// need not be UTF-8: keep the message short and valid, so that it prints as
// one line and `--json` can carry it. Invalid bytes become \xNN.
std::string PrintableMessage(const std::string& what) {
  constexpr size_t kMax = 200;
  std::string out;
  for (size_t i = 0; i < what.size() && out.size() < kMax;) {
    unsigned char c = static_cast<unsigned char>(what[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= what.size();
    for (size_t k = 1; ok && k < n; ++k) {
      ok = (static_cast<unsigned char>(what[i + k]) & 0xC0) == 0x80;
    }
    if (ok && (n > 1 || c >= 0x20)) {
      out.append(what, i, n);
      i += n;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
      ++i;
    }
  }
  if (out.size() >= kMax) out += "...";
  return out;
}

}  // namespace

json Parse(const std::string& text, int max_depth) {
  // Refuse deep nesting before nlohmann's recursive parser sees it.
  int depth = 0;
  OutsideStrings(text, [&](size_t i, char c) {
    if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throw JsonError("", "JSON nested deeper than " + std::to_string(max_depth) +
                                " levels, at " + LineColumn(text, i));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
    return true;
  });
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's message names the line and column.
    std::string what = e.what();
    auto pos = what.find("] ");
    throw JsonError("",
                    "malformed JSON: " +
                        PrintableMessage(pos == std::string::npos ? what : what.substr(pos + 2)));
  } catch (const json::exception& e) {
    // A number too large for a double (out_of_range.406) names no place.
    std::string what = e.what();
    auto pos = what.find("] ");
    std::string message = "malformed JSON: " +
                          PrintableMessage(pos == std::string::npos ? what : what.substr(pos + 2));
    if (size_t at = FirstOverflowingNumber(text); at != std::string::npos) {
      message += " at " + LineColumn(text, at);
    }
    throw JsonError("", message);
  }
}

}  // namespace lockstep::json
