#include "sim/report/locations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/trace/builtin_sources.h"
#include "sim/trace/sources.h"

namespace lockstep::report {
namespace {

namespace fs = std::filesystem;

// `path` as a report names it: relative to the working folder when it is
// under it, as given otherwise.
std::string Shown(const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const fs::path here = fs::current_path(ec);
  if (ec) return path.lexically_normal().string();
  const fs::path relative = absolute.lexically_relative(here);
  if (relative.empty() || *relative.begin() == "..") return absolute.string();
  return relative.string();
}

// The script file, as the scenario names it, whose name Lua gives `script`.
std::optional<std::string> LuaFileNamed(const nlohmann::json& scenario, const std::string& script) {
  if (!scenario.is_object() || !scenario.contains("clients") || !scenario["clients"].is_array()) {
    return std::nullopt;
  }
  for (const auto& c : scenario["clients"]) {
    if (!c.is_object() || !c.contains("algorithm") || !c["algorithm"].is_object()) continue;
    const nlohmann::json& a = c["algorithm"];
    if (!a.contains("lua_file") || !a["lua_file"].is_string()) continue;
    if (trace::ScriptName(a) == script) return a["lua_file"].get<std::string>();
  }
  return std::nullopt;
}

// Whether `line` names the key "expect": "expect", spaces, a colon.
bool NamesExpect(const std::string& line) {
  for (size_t at = line.find("\"expect\""); at != std::string::npos;
       at = line.find("\"expect\"", at + 1)) {
    const size_t next = line.find_first_not_of(" \t", at + 8);
    if (next != std::string::npos && line[next] == ':') return true;
  }
  return false;
}

}  // namespace

Location ScenarioLocation(const std::string& file) {
  Location at{Shown(file), 1, ""};
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (NamesExpect(line)) {
      at.line = n;
      break;
    }
  }
  return at;
}

std::optional<Location> SourceLocation(const trace::Trace& t, const std::string& scenario_file,
                                       const std::string& source) {
  const auto parsed = trace::ParseSourceLine(source);
  if (!parsed) return std::nullopt;
  const auto& [name, line] = *parsed;
  if (const auto lua = LuaFileNamed(t.scenario, name)) {
    fs::path path(*lua);
    if (path.is_relative()) path = fs::path(scenario_file).parent_path() / path;
    return Location{Shown(path), line, ""};
  }
  if (trace::BuiltinSources().count(name))
    return Location{"sim/algo/" + name, line, kLockstepSource};
  return std::nullopt;
}

int ViolatingStep(const trace::Trace& t) {
  if (!t.violation) return 0;
  const int last = std::min(t.violation->step, static_cast<int>(t.steps.size()) - 1);
  const std::vector<std::string>& clients = t.violation->clients;
  for (int i = last; i >= 1; --i) {
    const world::StepRecord& r = t.steps[static_cast<size_t>(i)];
    const bool named = std::find(clients.begin(), clients.end(), r.actor) != clients.end();
    if (!r.source.empty() && (i == last || named)) return i;
  }
  return 0;
}

}  // namespace lockstep::report
