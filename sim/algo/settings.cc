#include "sim/algo/settings.h"

#include "sim/base/check.h"

namespace lockstep::algo {

Settings::Settings(std::span<const Setting> declared) {
  for (const Setting& s : declared) {
    values_.push_back({s, s.default_value, std::string(s.default_text)});
  }
}

const Settings::Value& Settings::Find(std::string_view name, SettingType type) const {
  for (const Value& v : values_) {
    if (v.declared.name == name) {
      LOCKSTEP_CHECK(v.declared.type == type, "settings: a setting read as another type");
      return v;
    }
  }
  LOCKSTEP_CHECK(false, "settings: an algorithm read a setting it did not declare");
  return values_.front();
}

int64_t Settings::Int(std::string_view name) const { return Find(name, SettingType::kInt).number; }
bool Settings::Bool(std::string_view name) const {
  return Find(name, SettingType::kBool).number != 0;
}
const std::string& Settings::String(std::string_view name) const {
  return Find(name, SettingType::kString).text;
}

bool Settings::Declares(std::string_view name) const {
  for (const Value& v : values_) {
    if (v.declared.name == name) return true;
  }
  return false;
}

void Settings::SetNumber(std::string_view name, int64_t value) {
  Value& v = const_cast<Value&>(Find(name, Declared(name)));
  LOCKSTEP_CHECK(v.declared.type != SettingType::kString, "settings: a number for a string");
  LOCKSTEP_CHECK(v.declared.type == SettingType::kBool
                     ? value == 0 || value == 1
                     : value >= v.declared.min && value <= v.declared.max,
                 "settings: a value out of its declared range");
  v.number = value;
}

void Settings::SetText(std::string_view name, std::string value) {
  LOCKSTEP_CHECK(!value.empty(), "settings: an empty string");
  const_cast<Value&>(Find(name, SettingType::kString)).text = std::move(value);
}

SettingType Settings::Declared(std::string_view name) const {
  for (const Value& v : values_) {
    if (v.declared.name == name) return v.declared.type;
  }
  LOCKSTEP_CHECK(false, "settings: a setting that is not declared");
  return SettingType::kInt;
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
