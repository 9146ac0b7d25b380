#include "sim/algo/algorithm.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/algo/lock_settings.h"
#include "sim/base/check.h"

namespace lockstep::algo {

void HoldLock(world::Client& c, bool write_resource, Millis valid_until, int64_t token) {
  c.EnterCriticalSection(valid_until);
  if (write_resource) {
    c.Because("inside the critical section: write the resource with token " +
              std::to_string(token));
    c.Because(c.WriteResource(token) ? "the resource accepted token " + std::to_string(token)
                                     : "the resource refused token " + std::to_string(token) +
                                           ": a later holder has written");
  }
}

namespace {

std::vector<AlgorithmInfo>& Registry() {
  static std::vector<AlgorithmInfo> registry;  // built before first use, whatever the order
  return registry;
}

// The file each algorithm is registered in, by name.
std::vector<Declarer>& RegistrationFiles() {
  static std::vector<Declarer> files;
  return files;
}

Declarer DeclarerOf(std::string_view algorithm) {
  for (const Declarer& d : RegistrationFiles()) {
    if (d.algorithm == algorithm) return d;
  }
  return {algorithm, {}};
}

// The name a program reuses `s` by, if it is one of the library's own
// declarations.
const SharedSetting* SharedDeclaration(const Setting& s) {
  for (const SharedSetting& shared : kSharedSettings) {
    if (*shared.setting == s) return &shared;
  }
  return nullptr;
}

// "integer in [0, 100], default 2: the sleep before a retry".
std::string SettingText(const Setting& s) {
  std::string text(TypeName(s.type));
  switch (s.type) {
    case SettingType::kInt:
      text += " in [" + std::to_string(s.min) + ", " + std::to_string(s.max) + "], default " +
              std::to_string(s.default_value);
      break;
    case SettingType::kBool:
      text += std::string(", default ") + (s.default_value != 0 ? "true" : "false");
      break;
    case SettingType::kString:
      text += ", default \"" + std::string(s.default_text) + "\"";
      break;
  }
  return text + ": " + std::string(s.help);
}

// "range and help": what differs between two declarations of one name.
std::string SettingDifferences(const Setting& a, const Setting& b) {
  std::vector<std::string> parts;
  if (a.type != b.type) parts.push_back("type");
  if (a.min != b.min || a.max != b.max) parts.push_back("range");
  if (a.default_value != b.default_value || a.default_text != b.default_text)
    parts.push_back("default");
  if (a.help != b.help) parts.push_back("help");
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return text;
}

std::string InQuotes(std::string_view algorithm) { return "\"" + std::string(algorithm) + "\""; }

}  // namespace

std::string SettingClash(const Setting& a, const Declarer& by_a, const Setting& b,
                         const Declarer& by_b) {
  // The program's declaration first, the library's (when one is) second.
  const SharedSetting* shared = SharedDeclaration(a);
  const bool swap = shared != nullptr;
  if (!shared) shared = SharedDeclaration(b);
  const Setting& mine = swap ? b : a;
  const Setting& theirs = swap ? a : b;
  const Declarer& me = swap ? by_b : by_a;
  const Declarer& them = swap ? by_a : by_b;
  const std::string name(mine.name);
  std::string text = me.file.empty() ? "" : std::string(me.file) + ": ";
  text += "algorithm " + InQuotes(me.algorithm) + " declares the setting \"" + name + "\" unlike ";
  if (shared) {
    text += "lockstep's own declaration of it, " + std::string(shared->name) +
            ", which its algorithm " + InQuotes(them.algorithm) + " reads";
  } else {
    text += "algorithm " + InQuotes(them.algorithm) +
            (them.file.empty() ? "" : " (" + std::string(them.file) + ")");
  }
  text += " (they differ in " + SettingDifferences(mine, theirs) + "):\n  " +
          InQuotes(me.algorithm) + ": " + SettingText(mine) + "\n  " +
          (shared ? std::string(shared->name) : InQuotes(them.algorithm)) + ": " +
          SettingText(theirs) +
          "\nA setting's name in a scenario's \"lock\" object means one thing " +
          "for every algorithm: ";
  if (shared) {
    return text + "put " + std::string(shared->name) + " in the settings of " +
           InQuotes(me.algorithm) + " instead of a declaration of its own, or give " +
           InQuotes(me.algorithm) + "'s setting another name.";
  }
  return text +
         "declare it once, as a constexpr lockstep::Setting that both algorithms' "
         "settings name, or give one of them another name.";
}

bool RegisterAlgorithm(const AlgorithmInfo& info, std::string_view file) {
  std::vector<AlgorithmInfo>& r = Registry();
  auto at = std::lower_bound(r.begin(), r.end(), info.name,
                             [](const AlgorithmInfo& a, std::string_view n) { return a.name < n; });
  LOCKSTEP_CHECK(at == r.end() || at->name != info.name,
                 "algorithms: two registrations of one name");
  for (const Setting& mine : info.settings) {
    for (const AlgorithmInfo& other : r) {
      for (const Setting& theirs : other.settings) {
        if (theirs.name != mine.name || theirs == mine) continue;
        // Often at static initialisation, before main: nothing could catch
        // an exception. Exit 2 is bad input (run/exit_codes.h); _Exit, as
        // nothing ran yet that exit would finish.
        const std::string message =
            SettingClash(mine, {info.name, file}, theirs, DeclarerOf(other.name));
        std::fprintf(stderr, "lockstep: %s\n", message.c_str());
        std::fflush(nullptr);
        std::_Exit(2);
      }
    }
    LOCKSTEP_CHECK(mine.type != SettingType::kString || !mine.default_text.empty(),
                   "algorithms: a string setting without a default");
    LOCKSTEP_CHECK(mine.type != SettingType::kInt ||
                       (mine.min <= mine.default_value && mine.default_value <= mine.max),
                   "algorithms: a setting's default out of its range");
  }
  r.insert(at, info);
  RegistrationFiles().push_back({info.name, file});
  return true;
}

std::span<const AlgorithmInfo> Algorithms() { return Registry(); }

std::vector<Setting> AllSettings() {
  std::vector<Setting> all;
  for (const AlgorithmInfo& a : Registry()) {
    for (const Setting& s : a.settings) {
      if (std::none_of(all.begin(), all.end(), [&](const Setting& t) { return t.name == s.name; }))
        all.push_back(s);
    }
  }
  return all;
}

const AlgorithmInfo* FindAlgorithm(std::string_view name) {
  for (const AlgorithmInfo& a : Registry()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace lockstep::algo
