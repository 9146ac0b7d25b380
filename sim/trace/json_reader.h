// Reading JSON documents with errors that say where and what: every read
// names its JSON pointer ("/clients/1/skew") and what was expected there.
// Used by the trace and scenario loaders.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"

namespace lockstep::json {

using nlohmann::json;

// "at /clients/1/skew: expected an integer in [-1000000, 1000000], got 1e99"
// The file is named by whoever knows it (ScenarioError, the trace loaders).
struct JsonError : base::InputError {
  JsonError(const std::string& pointer_in, const std::string& expected_in)
      : base::InputError("", pointer_in.empty() ? "/" : pointer_in, expected_in),
        pointer(pointer_in) {}
  std::string pointer;  // "" for the whole document
};

// A short rendering of a value for error messages.
std::string Describe(const json& j);

// `text` cut to at most `max` bytes at a character boundary, with "..." if
// cut: names in messages stay one readable line however long they are.
std::string Shorten(const std::string& text, size_t max = 200);

class ObjectReader {
 public:
  // Throws JsonError unless `j` is an object.
  ObjectReader(const json& j, std::string pointer);

  const std::string& pointer() const { return pointer_; }
  std::string PointerOf(const std::string& key) const;
  bool Has(const std::string& key) const { return j_.contains(key); }
  // The value at `key`; throws JsonError if it is missing.
  const json& Raw(const std::string& key) const;

  std::string String(const std::string& key) const;
  std::optional<std::string> OptString(const std::string& key) const;
  int64_t Int(const std::string& key, int64_t min, int64_t max) const;
  // Missing: nullopt. null is refused, as any other non-integer.
  std::optional<int64_t> OptInt(const std::string& key, int64_t min, int64_t max) const;
  // For the fields documented "integer|null": missing or null give nullopt.
  std::optional<int64_t> NullableInt(const std::string& key, int64_t min, int64_t max) const;
  bool Bool(const std::string& key, bool fallback) const;
  ObjectReader Object(const std::string& key) const;
  const json& Array(const std::string& key) const;

  // Throws JsonError naming the first key that is not in `known`.
  void RejectUnknown(std::initializer_list<const char*> known) const;
  void RejectUnknown(const std::vector<const char*>& known) const;

 private:
  const json& Need(const std::string& key, const char* what) const;
  const json& j_;
  std::string pointer_;
};

// Integer checks on a bare value at `pointer`.
int64_t ReadInt(const json& j, const std::string& pointer, int64_t min, int64_t max);
std::string ReadString(const json& j, const std::string& pointer);

// Parses text; on a syntax error throws JsonError with the line and column
// in its message. Rejects nesting deeper than `max_depth`.
json Parse(const std::string& text, int max_depth = 64);

}  // namespace lockstep::json
