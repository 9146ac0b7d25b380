#include "sim/trace/json_reader.h"

#include <algorithm>

namespace lockstep::json {

std::string Describe(const json& j) {
  std::string kind;
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: kind = "string "; break;
    case json::value_t::boolean: kind = "boolean "; break;
    case json::value_t::binary: return "binary data";
    case json::value_t::discarded: return "nothing";
    default: kind = "number "; break;
  }
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return kind + text;
}

ObjectReader::ObjectReader(const json& j, std::string pointer)
    : j_(j), pointer_(std::move(pointer)) {
  if (!j_.is_object()) throw JsonError(pointer_, "expected an object, got " + Describe(j_));
}

std::string ObjectReader::PointerOf(const std::string& key) const {
  // RFC 6901 escaping: '~' is "~0", '/' is "~1".
  std::string escaped;
  for (char c : key) {
    if (c == '~') escaped += "~0";
    else if (c == '/') escaped += "~1";
    else escaped += c;
  }
  return pointer_ + "/" + escaped;
}

const json& ObjectReader::Raw(const std::string& key) const { return Need(key, "a value"); }

const json& ObjectReader::Need(const std::string& key, const char* what) const {
  auto it = j_.find(key);
  if (it == j_.end()) {
    throw JsonError(pointer_, std::string("missing field \"") + key +
                                  "\" (expected " + what + ")");
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
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    bool ok = std::any_of(known.begin(), known.end(),
                          [&](const char* k) { return it.key() == k; });
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw JsonError(PointerOf(it.key()),
                    "unknown field \"" + it.key() + "\" (known fields: " + list + ")");
  }
}

int64_t ReadInt(const json& j, const std::string& pointer, int64_t min,
                int64_t max) {
  std::string range = "an integer in [" + std::to_string(min) + ", " +
                      std::to_string(max) + "]";
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

json Parse(const std::string& text, int max_depth) {
  // Refuse deep nesting before nlohmann's recursive parser sees it.
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throw JsonError("", "JSON nested deeper than " +
                                std::to_string(max_depth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's message names the line and column.
    std::string what = e.what();
    auto pos = what.find("] ");
    throw JsonError("", "malformed JSON: " +
                            (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

}  // namespace lockstep::json
