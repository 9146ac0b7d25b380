// An algorithm's settings, declared where the algorithm is: each one's name
// in the scenario's "lock" object, its type, its range, its default and a
// line of help. The scenario loader reads and checks every setting from
// these declarations (with its usual messages), `lockstep list --fields`
// prints them, and the symmetry key of a client is derived from its
// settings' values: two clients of one algorithm whose values are equal are
// interchangeable (unless the algorithm draws numbers).
//
// A name may be declared by several algorithms (the shipped ones share
// key, rounds, retry_delay, ...): every declaration of a name must then be
// the same, so that the "lock" object means one thing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::algo {

enum class SettingType { kInt, kBool, kString };

struct Setting {
  std::string_view name{};
  SettingType type = SettingType::kInt;
  std::string_view help{};  // one line: what it means
  int64_t min = 0;          // kInt: the range
  int64_t max = 0;
  int64_t default_value = 0;        // kInt and kBool (0 or 1)
  std::string_view default_text{};  // kString: never empty

  friend bool operator==(const Setting&, const Setting&) = default;
};

// What a client's algorithm learns of the scenario around it: facts of the
// world, not settings.
struct WorldFacts {
  bool write_resource = false;  // the scenario has a resource: write it while holding
  int instances = 1;            // the masters the client can address
  // The master that hands out fencing tokens (lock.token_server), or -1.
  // It is not one of Redlock's instances.
  int token_instance = -1;
  friend bool operator==(const WorldFacts&, const WorldFacts&) = default;
};

// The values of one client's settings: every setting its algorithm
// declares, the scenario's value or the default.
class Settings {
 public:
  // The defaults of `declared`.
  explicit Settings(std::span<const Setting> declared = {});

  // REQUIRES: `name` is declared, of that type (a broken invariant
  // otherwise: the loader checked the scenario against the declarations).
  int64_t Int(std::string_view name) const;
  bool Bool(std::string_view name) const;
  const std::string& String(std::string_view name) const;
  bool Declares(std::string_view name) const;

  // REQUIRES: `name` is declared, of that type, and the value in its range.
  void SetNumber(std::string_view name, int64_t value);
  void SetText(std::string_view name, std::string value);

  WorldFacts world;

  // Every value, in the order declared, and the world's facts: equal labels
  // make clients of one algorithm interchangeable.
  std::string Label() const;
  // The sum of the magnitudes of its integer values: a bound on any time
  // offset an algorithm can make of them.
  int64_t Magnitude() const;

 private:
  struct Value {
    Setting declared;
    int64_t number = 0;
    std::string text;
  };
  const Value* Lookup(std::string_view name) const;  // nullptr: not declared
  // REQUIRES: declared, of `type`.
  const Value& Find(std::string_view name, SettingType type) const;
  Value& Find(std::string_view name, SettingType type);
  std::vector<Value> values_;
};

// "integer", "boolean" or "string".
std::string_view TypeName(SettingType type);

}  // namespace lockstep::algo
