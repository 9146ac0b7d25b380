// Every why-line, event and violation the built-in algorithms and the
// model record in the shipped scenarios has its template in sim/lang's
// catalogue, so a game or timeline in Chinese shows no English left. A
// `Because` added to an algorithm without its catalogue entry fails here.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "sim/base/input_error.h"
#include "sim/lang/translate.h"
#include "sim/run/play_page.h"
#include "sim/scenario/overrides.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

// Every reachable move's texts (the game's graph: every choice, nothing
// merged) with two clients, and with the clock held at 0 when that is still
// too large for a page (Redlock's validity arithmetic).
json ShippedGraphOf(const std::string& file) {
  scenario::Scenario s = scenario::LoadScenarioFile(file);
  scenario::Overrides cut;
  cut.clients = 2;
  scenario::ApplyOverrides(s, cut);
  try {
    return run::PlayGraph(s, file);
  } catch (const base::InputError&) {
    cut.horizon = "0";
    scenario::ApplyOverrides(s, cut);
    return run::PlayGraph(s, file);
  }
}

TEST_CASE("every why-line, event and violation of the shipped scenarios has its template",
          "[lang][sweep]") {
  std::map<std::string, std::string> untranslated;  // text -> a scenario that records it
  std::set<std::string> texts;
  size_t scenarios = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    json graph;
    try {
      graph = ShippedGraphOf(file);
    } catch (const base::InputError& e) {
      WARN(file << " is too large for a game even at two clients: " << e.what());
      continue;
    }
    ++scenarios;
    auto note = [&](const std::string& text) {
      if (!texts.insert(text).second) return;
      if (!lang::TemplateOf(text)) untranslated.emplace(text, file);
    };
    note(graph["goal"]);
    for (const json& state : graph["states"]) {
      if (state.contains("violation") && state["violation"]["property"] == "mutual_exclusion") {
        note(state["violation"]["message"]);
      }
      for (const json& m : state["moves"]) {
        for (const json& e : m["events"]) note(e);
        for (const json& w : m["why"]) note(w["text"]);
        if (m.contains("violation") && m["violation"]["property"] != "no_stuck_states") {
          note(m["violation"]["message"]);
        }
      }
    }
  }
  for (const auto& [text, file] : untranslated) UNSCOPED_INFO(file << ": \"" << text << "\"");
  CHECK(untranslated.empty());
  // The sweep saw the shipped scenarios and a wide share of the templates.
  CHECK(scenarios >= 30);
  std::set<lang::Msg> used;
  for (const std::string& t : texts) {
    if (std::optional<lang::Msg> id = lang::TemplateOf(t)) used.insert(*id);
  }
  CHECK(used.size() >= 50);
  CHECK(texts.size() > 500);
}

}  // namespace
}  // namespace lockstep
