#include "sim/algo/settings.h"

#include <utility>

#include "sim/base/check.h"

namespace lockstep::algo {

Settings::Settings(std::span<const Setting> declared) {
  for (const Setting& s : declared) {
    values_.push_back({s, s.default_value, std::string(s.default_text)});
  }
}

const Settings::Value* Settings::Lookup(std::string_view name) const {
  for (const Value& v : values_) {
    if (v.declared.name == name) return &v;
  }
  return nullptr;
}

Settings::Value& Settings::Find(std::string_view name, SettingType type) {
  return const_cast<Value&>(std::as_const(*this).Find(name, type));
}

const Settings::Value& Settings::Find(std::string_view name, SettingType type) const {
  const Value* v = Lookup(name);
  LOCKSTEP_CHECK(v != nullptr, "settings: a setting that is not declared");
  LOCKSTEP_CHECK(v->declared.type == type, "settings: a setting read as another type");
  return *v;
}

int64_t Settings::Int(std::string_view name) const { return Find(name, SettingType::kInt).number; }
bool Settings::Bool(std::string_view name) const {
  return Find(name, SettingType::kBool).number != 0;
}
const std::string& Settings::String(std::string_view name) const {
  return Find(name, SettingType::kString).text;
}

bool Settings::Declares(std::string_view name) const { return Lookup(name) != nullptr; }

void Settings::SetNumber(std::string_view name, int64_t value) {
  const Value* declared = Lookup(name);
  LOCKSTEP_CHECK(declared != nullptr && declared->declared.type != SettingType::kString,
                 "settings: a number for a setting that is not a number");
  Value& v = Find(name, declared->declared.type);
  LOCKSTEP_CHECK(v.declared.type == SettingType::kBool
                     ? value == 0 || value == 1
                     : value >= v.declared.min && value <= v.declared.max,
                 "settings: a value out of its declared range");
  v.number = value;
}

void Settings::SetText(std::string_view name, std::string value) {
  LOCKSTEP_CHECK(!value.empty(), "settings: an empty string");
  Find(name, SettingType::kString).text = std::move(value);
}

int64_t Settings::Magnitude() const {
  int64_t sum = 0;
  for (const Value& v : values_) {
    if (v.declared.type == SettingType::kInt) sum += v.number < 0 ? -v.number : v.number;
  }
  return sum;
}

std::string Settings::Label() const {
  std::string label;
  for (const Value& v : values_) {
    label += std::string(v.declared.name) + "=";
    if (v.declared.type == SettingType::kString) {
      label += std::to_string(v.text.size()) + ":" + v.text;
    } else {
      label += std::to_string(v.number);
    }
    label += " ";
  }
  label += "write_resource=" + std::to_string(world.write_resource) +
           " instances=" + std::to_string(world.instances) +
           " token_instance=" + std::to_string(world.token_instance);
  return label;
}

std::string_view TypeName(SettingType type) {
  switch (type) {
    case SettingType::kInt:
      return "integer";
    case SettingType::kBool:
      return "boolean";
    case SettingType::kString:
      return "string";
  }
  return "?";
}

}  // namespace lockstep::algo
