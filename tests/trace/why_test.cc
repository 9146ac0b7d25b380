// Why, per step: every step names the line of its algorithm that made the
// command, and the reasons the algorithm gave (Client::Because, Lua's
// lock.because) are recorded with theirs. Reasons are ghosts: a scenario
// explores to the same states and counterexample with them as without.
// Version 1 traces, written before these existed, are still read and replay.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/trace/render_svg.h"
#include "sim/trace/sources.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// Line `n` (from 1) of a file.
std::string LineOf(const std::string& path, int n) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < n && std::getline(in, line); ++i) {
  }
  return line;
}

// "file.cc:12" split.
std::pair<std::string, int> SourceOf(const std::string& source) {
  const size_t colon = source.rfind(':');
  REQUIRE(colon != std::string::npos);
  return {source.substr(0, colon), std::stoi(source.substr(colon + 1))};
}

TEST_CASE("every step of the documented race names the line of its algorithm that sent it") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const std::map<std::string, std::string> call = {
      {"SETNX", "SetNx("}, {"GET", "Get("}, {"DEL", "Del("}, {"GETSET", "GetSet("}};
  int checked = 0;
  for (const world::StepRecord& r : t.steps) {
    if (r.command.empty()) continue;
    INFO("step " << r.index << ": " << r.source);
    const auto [file, line] = SourceOf(r.source);
    CHECK(file == "setnx_takeover.cc");
    CHECK_THAT(LineOf(testing::SourceDir() + "/sim/algo/" + file, line),
               Catch::Matchers::Contains(call.at(r.command[0])));
    ++checked;
  }
  CHECK(checked == 8);
  // Each reason's line is a Because call of that algorithm, or the helper
  // that says the lock is taken.
  int reasons = 0;
  for (const world::StepRecord& r : t.steps) {
    for (const world::StepRecord::Why& w : r.reasons) {
      INFO(w.reason.text << " at " << w.reason.source);
      const auto [file, line] = SourceOf(w.reason.source);
      const std::string text = LineOf(testing::SourceDir() + "/sim/algo/" + file, line);
      CHECK((text.find("Because(") != std::string::npos ||
             text.find("c.Because") != std::string::npos));
      ++reasons;
    }
  }
  CHECK(reasons == 8);  // one per step: each says what the client makes of its reply
}

// The documented race with its clients running the Lua port.
scenario::Scenario LuaRace(bool with_reasons, testing::TempDir& tmp) {
  std::ifstream in(testing::SourceDir() + "/examples/lua/setnx_naive.lua");
  std::stringstream source;
  source << in.rdbuf();
  std::string lua = source.str();
  if (!with_reasons) {
    // Each lock.because(...) call is one line of its own: drop those lines
    // and keep the others where they are.
    std::string kept;
    std::istringstream lines(lua);
    for (std::string line; std::getline(lines, line);) {
      kept += (line.find("lock.because(") == std::string::npos ? line : "") + "\n";
    }
    lua = kept;
  }
  const std::string script = tmp.Write(with_reasons ? "with.lua" : "without.lua", lua);
  nlohmann::json doc =
      nlohmann::json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
  for (auto& c : doc["clients"]) {
    if (c.value("algorithm", nlohmann::json()) == "setnx-naive") c["algorithm"] = {{"lua", script}};
  }
  const std::string file = tmp.Write("race.json", doc.dump());
  return scenario::LoadScenarioFile(file);
}

TEST_CASE("reasons are ghosts: the same states and counterexample with them as without") {
  testing::TempDir tmp;
  const scenario::Scenario with = LuaRace(true, tmp), without = LuaRace(false, tmp);
  const run::ExploreResult a = run::Explore(with), b = run::Explore(without);
  CHECK(a.search.stats.states == b.search.stats.states);
  CHECK(a.search.stats.transitions == b.search.stats.transitions);
  REQUIRE(a.counterexample);
  REQUIRE(b.counterexample);
  CHECK(trace::OneLine(a.counterexample->trace) == trace::OneLine(b.counterexample->trace));

  // The Lua reasons carry the script's lines.
  const trace::Trace t = run::ReplaySchedule(with);
  int reasons = 0;
  for (const world::StepRecord& r : t.steps) {
    if (!r.command.empty()) CHECK(r.source.rfind("with.lua:", 0) == 0);
    for (const world::StepRecord::Why& w : r.reasons) {
      CHECK_THAT(w.reason.text, Catch::Matchers::EndsWith("has expired: take it over with DEL, "
                                                          "then SETNX"));
      const auto [file, line] = SourceOf(w.reason.source);
      CHECK(file == "with.lua");
      CHECK_THAT(LineOf(tmp.File("with.lua"), line), Catch::Matchers::Contains("lock.because("));
      ++reasons;
    }
  }
  CHECK(reasons == 2);  // C1 and C2 each see "7" expired
}

TEST_CASE("the source behind the steps: built in when lockstep was built, Lua from the scenario") {
  const trace::Trace race = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const std::map<std::string, std::string> sources = trace::SourcesOf(race);
  REQUIRE(sources.size() == 1);
  CHECK(sources.at("setnx_takeover.cc") ==
        testing::ReadText(testing::SourceDir() + "/sim/algo/setnx_takeover.cc"));

  testing::TempDir tmp;
  const trace::Trace lua = run::ReplaySchedule(LuaRace(true, tmp));
  const std::map<std::string, std::string> lua_sources = trace::SourcesOf(lua);
  REQUIRE(lua_sources.count("with.lua") == 1);
  CHECK(lua_sources.at("with.lua") == testing::ReadText(tmp.File("with.lua")));

  CHECK(trace::ParseSourceLine("a.cc:12") == std::pair<std::string, int>{"a.cc", 12});
  for (const char* bad : {"", "a.cc", "a.cc:", ":3", "a.cc:0", "a.cc:1x"}) {
    INFO(bad);
    CHECK_FALSE(trace::ParseSourceLine(bad));
  }
}

TEST_CASE("the HTML page links each step to its line in the source listing") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const std::string html = trace::RenderHtml(t);
  std::set<std::string> ids, links;
  for (size_t at = html.find(" id=\""); at != std::string::npos; at = html.find(" id=\"", at + 1)) {
    const size_t start = at + 5;
    CHECK(ids.insert(html.substr(start, html.find('"', start) - start)).second);  // unique
  }
  for (size_t at = html.find("href=\"#"); at != std::string::npos;
       at = html.find("href=\"#", at + 1)) {
    const size_t start = at + 7;
    links.insert(html.substr(start, html.find('"', start) - start));
  }
  CHECK(links.size() >= 5);
  for (const std::string& link : links) {
    INFO(link);
    CHECK(ids.count(link) == 1);
  }
  // As many lines as the file has, the lines steps came from marked.
  const std::string file = testing::ReadText(testing::SourceDir() + "/sim/algo/setnx_takeover.cc");
  size_t lines = 0;
  for (const std::string& id : ids) lines += id.rfind("src-setnx_takeover.cc-", 0) == 0;
  CHECK(lines == static_cast<size_t>(std::count(file.begin(), file.end(), '\n')));
  CHECK(html.find("class=\"line stepped\" id=\"" + *links.begin() + "\"") != std::string::npos);
}

TEST_CASE("a version 1 trace is read and replays against its own version") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const nlohmann::json v1 = trace::ToJson(t, 1);
  CHECK(v1["format"] == "lockstep-trace/1");
  for (const auto& step : v1["steps"]) {
    CHECK_FALSE(step.contains("reasons"));
    CHECK_FALSE(step.contains("source"));
  }
  const run::ReplayedTrace replayed = run::ReplaySavedTrace("old.json", v1);
  CHECK(replayed.trace.format_version == 2);
  CHECK(trace::FromJson(v1, "old.json").format_version == 1);
  // What version 2 added is unknown to version 1.
  nlohmann::json bad = v1;
  bad["steps"][1]["reasons"] = nlohmann::json::array();
  CHECK_THROWS_WITH(trace::FromJson(bad, "old.json"),
                    Catch::Matchers::StartsWith("old.json: at /steps/1/reasons: unknown field"));
  // Version 2 carries them, and reads back as written.
  const nlohmann::json v2 = trace::ToJson(t);
  CHECK(v2["steps"][1]["source"].get<std::string>().rfind("setnx_takeover.cc:", 0) == 0);
  CHECK(trace::ToJson(trace::FromJson(v2, "new.json")) == v2);
}

}  // namespace
}  // namespace lockstep
