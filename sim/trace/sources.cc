#include "sim/trace/sources.h"

#include "sim/trace/builtin_sources.h"

namespace lockstep::trace {

std::string ScriptName(const nlohmann::json& algorithm) {
  std::string file = algorithm.value("lua_file", "");
  if (file.empty()) return "lua_inline";
  const size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::optional<std::pair<std::string, int>> ParseSourceLine(const std::string& source) {
  const size_t colon = source.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == source.size()) return std::nullopt;
  int line = 0;
  for (size_t i = colon + 1; i < source.size(); ++i) {
    if (source[i] < '0' || source[i] > '9' || line > 10'000'000) return std::nullopt;
    line = line * 10 + (source[i] - '0');
  }
  if (line == 0) return std::nullopt;
  return std::pair{source.substr(0, colon), line};
}

std::map<std::string, std::string> SourcesNamed(const nlohmann::json& scenario,
                                                const std::vector<std::string>& names) {
  std::map<std::string, std::string> known;
  if (scenario.is_object() && scenario.contains("clients") && scenario["clients"].is_array()) {
    for (const auto& c : scenario["clients"]) {
      if (!c.is_object() || !c.contains("algorithm")) continue;
      const auto& a = c["algorithm"];
      if (a.is_object() && a.contains("lua_inline") && a["lua_inline"].is_string()) {
        known.emplace(ScriptName(a), a["lua_inline"].get<std::string>());
      }
    }
  }
  std::map<std::string, std::string> sources;
  for (const std::string& source : names) {
    const auto parsed = ParseSourceLine(source);
    if (!parsed || sources.count(parsed->first)) continue;
    if (auto it = known.find(parsed->first); it != known.end()) {
      sources.emplace(parsed->first, it->second);
    } else if (auto b = BuiltinSources().find(parsed->first); b != BuiltinSources().end()) {
      sources.emplace(parsed->first, b->second);
    }
  }
  return sources;
}

std::map<std::string, std::string> SourcesOf(const Trace& t) {
  std::vector<std::string> names;
  for (const world::StepRecord& r : t.steps) {
    names.push_back(r.source);
    for (const world::StepRecord::Why& w : r.reasons) names.push_back(w.reason.source);
  }
  return SourcesNamed(t.scenario, names);
}

}  // namespace lockstep::trace
