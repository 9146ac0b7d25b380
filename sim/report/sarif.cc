#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/report/formats.h"
#include "sim/report/locations.h"
#include "sim/run/version.h"

namespace lockstep::report {
namespace {

using nlohmann::json;

// A path as a URI reference: RFC 3986's unreserved characters and '/' as
// they are, every other byte %-encoded; an absolute path as a file: URI.
std::string Uri(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

json Physical(const Location& at) {
  json artifact = {{"uri", Uri(at.path)}};
  if (!at.base.empty()) artifact["uriBaseId"] = at.base;
  return {
      {"physicalLocation", {{"artifactLocation", artifact}, {"region", {{"startLine", at.line}}}}}};
}

json Text(const std::string& text) { return {{"text", text}}; }

// "lockstep 0.9.0 (commit ...)" -> "0.9.0".
std::string Version() {
  const std::string text = run::VersionText("lockstep");
  const size_t space = text.find(' ');
  const size_t end = text.find(' ', space + 1);
  return space == std::string::npos ? text : text.substr(space + 1, end - space - 1);
}

// One thread flow per client that acted, and one for the clock and the
// servers (ticks, restarts, failovers, faults): each step at the
// algorithm's line where there is one, else at the scenario; its
// executionOrder the step's place in the schedule.
json ThreadFlows(const Outcome& o, const trace::Trace& t, const Location& scenario) {
  const int violating = ViolatingStep(t);
  std::vector<std::string> names;
  for (const trace::ClientInfo& c : t.clients) names.push_back(c.name);
  const std::string world = "clock and servers";
  std::map<std::string, json> flows;
  for (size_t i = 1; i < t.steps.size(); ++i) {
    const world::StepRecord& r = t.steps[i];
    const bool client = std::find(names.begin(), names.end(), r.actor) != names.end();
    const std::optional<Location> source = SourceLocation(t, o.file, r.source);
    json location = Physical(source ? *source : scenario);
    location["message"] = Text("step " + std::to_string(i) + ": " + trace::StepLine(r));
    json step = {{"location", location},
                 {"executionOrder", static_cast<int>(i)},
                 {"importance", static_cast<int>(i) == violating ? "essential" : "important"}};
    flows[client ? r.actor : world].push_back(step);
  }
  json out = json::array();
  names.push_back(world);
  for (const std::string& name : names) {
    if (!flows.count(name)) continue;
    out.push_back({{"id", name},
                   {"message", Text(name == world ? world : "client " + name)},
                   {"locations", flows[name]}});
  }
  return out;
}

// A rule per kind of result: a property violated, or an outcome that is
// not the one expected (a SAFE where a violation was expected, an error,
// a search that did not finish).
std::string RuleOf(const Outcome& o) {
  if (o.counterexample && o.counterexample->violation) return o.counterexample->violation->property;
  return o.found == "error" || o.found == "incomplete" ? o.found : "unexpected-outcome";
}

std::string RuleText(const std::string& rule) {
  if (rule == "error") return "the scenario could not be searched";
  if (rule == "incomplete") return "the search did not finish within its bounds";
  if (rule == "unexpected-outcome") return "the search found another outcome than the expected one";
  return "some schedule violates " + rule;
}

}  // namespace

std::string SarifLog(const std::vector<Outcome>& outcomes) {
  std::vector<std::string> rules;
  json results = json::array();
  for (const Outcome& o : outcomes) {
    const bool violation = o.counterexample && o.counterexample->violation;
    if (o.passed && !violation) continue;
    const std::string rule = RuleOf(o);
    auto at = std::find(rules.begin(), rules.end(), rule);
    if (at == rules.end()) at = rules.insert(rules.end(), rule);
    const Location scenario = ScenarioLocation(o.file);
    json result = {{"ruleId", rule},
                   {"ruleIndex", at - rules.begin()},
                   {"level", o.passed ? "note" : "error"},
                   {"message", Text(o.file + ": " + o.summary)},
                   {"locations", json::array({Physical(scenario)})}};
    if (violation) {
      result["codeFlows"] =
          json::array({{{"message", Text(o.one_line.empty() ? o.summary : o.one_line)},
                        {"threadFlows", ThreadFlows(o, *o.counterexample, scenario)}}});
      if (!o.counterexample_file.empty()) {
        result["properties"] = {{"replay", "lockstep replay " + o.counterexample_file}};
      }
    }
    results.push_back(result);
  }
  json driver_rules = json::array();
  for (const std::string& rule : rules) {
    driver_rules.push_back({{"id", rule}, {"shortDescription", Text(RuleText(rule))}});
  }
  const json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       json::array({{{"tool",
                      {{"driver",
                        {{"name", "lockstep"}, {"version", Version()}, {"rules", driver_rules}}}}},
                     {"originalUriBaseIds",
                      {{kLockstepSource,
                        {{"description", Text("lockstep's own source tree (its built-in "
                                              "algorithms, under sim/algo/)")}}}}},
                     {"results", results}}})}};
  // Text from scenarios is not always UTF-8: such a byte is replaced, never thrown on.
  return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace lockstep::report
