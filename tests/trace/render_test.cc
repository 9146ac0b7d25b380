// Static pictures: `lockstep render` draws the space-time diagram as SVG
// (checked here as XML: lanes, one box per step, bars, the marker) and as a
// self-contained HTML page; the same trace gives the same bytes.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "sim/trace/diagram.h"
#include "sim/trace/render_svg.h"
#include "tests/test_util.h"
#include "tests/trace/xml_reader.h"

namespace lockstep {
namespace {

using testing::Element;
using testing::Parsed;
using testing::ParseXml;
using testing::WithClass;

trace::Trace Replayed(const std::string& scenario) {
  return run::ReplaySchedule(scenario::LoadScenarioFile(testing::ScenarioPath(scenario)));
}

size_t Occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("the XML checker refuses what is not well-formed") {
  std::vector<Element> e;
  std::string why;
  CHECK(ParseXml("<a x=\"1\"><b/>t &amp; u</a>", &e, &why));
  for (const char* bad : {"<a><b></a></b>", "<a x=1></a>", "<a>&nbsp;</a>", "<a></a><b/>",
                          "<a x=\"1\"y=\"2\"/>", "<a>", "<a x=\"<\"/>"}) {
    e.clear();
    INFO(bad);
    CHECK_FALSE(ParseXml(bad, &e, &why));
  }
}

TEST_CASE("the SVG of the documented race has its lanes, a box per step, the bars and the marker") {
  const std::string svg = trace::RenderSvg(Replayed("setnx-docs-race.json"));
  const std::vector<Element> all = Parsed(svg);
  REQUIRE(all.front().name == "svg");
  CHECK(all.front().Attr("xmlns") == "http://www.w3.org/2000/svg");

  std::vector<std::string> lanes;
  for (const Element* e : WithClass(all, "lane")) lanes.push_back(e->Attr("data-client"));
  CHECK(lanes == std::vector<std::string>{"C1", "C2", "C3"});

  std::vector<std::string> boxes;
  for (const Element* e : WithClass(all, "step-box")) boxes.push_back(e->Attr("data-step"));
  CHECK(boxes == std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"});

  std::vector<std::string> bars;
  for (const Element& e : all) {
    if (e.Class().rfind("bar ", 0) == 0) {
      bars.push_back(e.Class().substr(4) + " " + e.Attr("data-client") + " " + e.Attr("data-from") +
                     ".." + e.Attr("data-to"));
    }
  }
  CHECK(bars == std::vector<std::string>{"holding C1 6..end", "critical-section C1 6..end",
                                         "holding C2 8..end", "critical-section C2 8..end"});

  const auto markers = WithClass(all, "violation-marker");
  REQUIRE(markers.size() == 1);
  CHECK(markers[0]->Attr("data-step") == "8");
  CHECK(markers[0]->Attr("data-property") == "mutual_exclusion");
  CHECK(markers[0]->Attr("data-clients") == "C1,C2");
  const auto flags = WithClass(all, "violation-flag");
  REQUIRE(flags.size() == 1);
  CHECK(flags[0]->Attr("fill") == trace::HexColour(trace::palette::kViolation));
  CHECK(flags[0]->ancestors.back() == "g");
  // The marker's colour: the flag, the banner's stripe and headline, the
  // violating step's border, the legend; nowhere else.
  const std::string red = trace::HexColour(trace::palette::kViolation);
  CHECK(Occurrences(svg, red) == 5);
  for (const Element* box : WithClass(all, "step-box")) {
    CHECK((box->Attr("stroke") == red) == (box->Attr("data-step") == "8"));
  }
  CHECK(svg.find("C1 and C2 are in the critical section at once") != std::string::npos);
}

TEST_CASE("a trace with a tick draws it across the lanes") {
  const std::string svg = trace::RenderSvg(Replayed("getset-docs-fix.json"));
  const std::vector<Element> all = Parsed(svg);
  CHECK(WithClass(all, "tick").size() == 1);
  CHECK(WithClass(all, "step-box").size() == 13);  // 14 steps, one of them a tick
  CHECK(WithClass(all, "violation-marker").empty());
  CHECK(svg.find(trace::HexColour(trace::palette::kViolation)) == std::string::npos);
}

TEST_CASE("the same trace gives byte-identical pictures") {
  CHECK(trace::RenderSvg(Replayed("setnx-docs-race.json")) ==
        trace::RenderSvg(Replayed("setnx-docs-race.json")));
  CHECK(trace::RenderHtml(Replayed("getset-docs-fix.json")) ==
        trace::RenderHtml(Replayed("getset-docs-fix.json")));
}

TEST_CASE(
    "the HTML page is self-contained: the diagram inline, a table of the steps, nothing fetched") {
  const std::string html = trace::RenderHtml(Replayed("setnx-docs-race.json"));
  CHECK(html.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  // Links only within the page (a step to its source line).
  CHECK(Occurrences(html, "href=") == Occurrences(html, "href=\"#"));
  CHECK(html.find("@import") == std::string::npos);
  CHECK(Occurrences(html, "http") == 1);  // the SVG namespace's name, never fetched
  const size_t from = html.find("<svg"), to = html.find("</svg>");
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  const std::vector<Element> svg = Parsed(html.substr(from, to + 6 - from));
  CHECK(WithClass(svg, "step-box").size() == 8);
  CHECK(Occurrences(html, "<tr") == 10);  // the header and steps 0..8
  CHECK(Occurrences(html, "<tr class=\"violating\">") == 1);
}

TEST_CASE("the README's picture is the documented race as lockstep render draws it") {
  const std::string committed = testing::ReadText(testing::SourceDir() + "/viewer/docs-race.svg");
  INFO("regenerate it: lockstep render scenarios/setnx-docs-race.json --svg viewer/docs-race.svg");
  CHECK(committed == trace::RenderSvg(Replayed("setnx-docs-race.json")));
}

// The counterexample explore finds for examples/lua/`name`.
trace::Trace ExampleCounterexample(const std::string& name) {
  const std::string file = testing::SourceDir() + "/examples/lua/" + name;
  run::ExploreResult r = run::Explore(scenario::LoadScenarioFile(file));
  REQUIRE(r.counterexample);
  return std::move(r.counterexample->trace);
}

TEST_CASE("the README's picture of node-redlock 5's split vote is its counterexample as drawn") {
  const std::string committed =
      testing::ReadText(testing::SourceDir() + "/viewer/node-redlock-5-split-vote.svg");
  INFO(
      "regenerate it: lockstep explore examples/lua/node-redlock-5-split-vote.json --out "
      "counterexamples, then lockstep render the trace it saved --svg "
      "viewer/node-redlock-5-split-vote.svg");
  CHECK(committed == trace::RenderSvg(ExampleCounterexample("node-redlock-5-split-vote.json")));
}

TEST_CASE("the README's picture of a split vote without jitter is its lasso's cycle as drawn") {
  const std::string committed =
      testing::ReadText(testing::SourceDir() + "/viewer/redlock-no-jitter-cycle.svg");
  INFO(
      "regenerate it: lockstep render the trace explore saves of "
      "examples/lua/redlock-no-jitter.json --steps 1..17 --svg viewer/redlock-no-jitter-cycle.svg");
  CHECK(committed == trace::RenderSvg(ExampleCounterexample("redlock-no-jitter.json"),
                                      {.diagram = {.from_step = 1, .to_step = 17}}));
}

TEST_CASE("lockstep render writes the SVG and the HTML of a trace") {
  testing::TempDir tmp;
  const trace::Trace t = Replayed("setnx-docs-race.json");
  const std::string in = tmp.Write("race.json", trace::ToJsonText(t));
  testing::ProcessResult r = testing::RunLockstep(
      {"render", in, "--svg", tmp.File("race.svg"), "--html", tmp.File("race.html")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(testing::ReadText(tmp.File("race.svg")) == trace::RenderSvg(t));
  CHECK(testing::ReadText(tmp.File("race.html")) == trace::RenderHtml(t));
  // A scenario with a schedule is drawn as its replay.
  r = testing::RunLockstep(
      {"render", testing::ScenarioPath("setnx-docs-race.json"), "--svg", tmp.File("again.svg")});
  CHECK(r.exit_code == 0);
  CHECK(testing::ReadText(tmp.File("again.svg")) == trace::RenderSvg(t));
}

TEST_CASE("lockstep render refuses bad input, naming the file and the place") {
  testing::TempDir tmp;
  nlohmann::json j = trace::ToJson(Replayed("setnx-docs-race.json"));
  j["steps"][2]["clock"] = "ten";
  const std::string bad = tmp.Write("bad.json", j.dump());
  testing::ProcessResult r = testing::RunLockstep({"render", bad, "--svg", tmp.File("x.svg")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("lockstep: " + bad + ": at /steps/2/clock: expected an integer", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(tmp.File("x.svg")));

  const std::string no_schedule = testing::ScenarioPath("setnx-naive.json");
  r = testing::RunLockstep({"render", no_schedule, "--svg", tmp.File("x.svg")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("lockstep: " + no_schedule + ": at /: missing field \"schedule\"", 0) == 0);

  r = testing::RunLockstep({"render", testing::ScenarioPath("setnx-docs-race.json")});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep render: give --svg OUT.svg, --png OUT.png, --html OUT.html, or several (or "
        "--play-html GAME.html for a scenario's game, or --course DIR)\n");

  for (const char* steps : {"9..3", "3..40", "three", "-1..2", "4"}) {
    r = testing::RunLockstep({"render", testing::ScenarioPath("setnx-docs-race.json"), "--steps",
                              steps, "--svg", tmp.File("x.svg")});
    INFO(steps << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "lockstep: " + testing::ScenarioPath("setnx-docs-race.json") +
                       ": at --steps: expected A..B, A.. or ..B with 0 <= A <= B <= 8 (the "
                       "trace's last step), got \"" +
                       steps + "\"\n");
    CHECK_FALSE(std::filesystem::exists(tmp.File("x.svg")));
  }
  r = testing::RunLockstep({"render", testing::ScenarioPath("setnx-docs-race.json"), "--font-size",
                            "200", "--png", tmp.File("x.png")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--font-size") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.File("x.png")));

  r = testing::RunLockstep({"render", tmp.File("missing.json"), "--svg", tmp.File("x.svg")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("lockstep: " + tmp.File("missing.json") + ": ", 0) == 0);
}

// The server a command went to, by the arrow's end and the column it ends in.
TEST_CASE("several servers: a column per server, arrows to them, faults in the server's column") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("redlock-restart.json")));
  const trace::Diagram d = trace::Layout(t);
  REQUIRE(d.servers.size() == 3);
  CHECK(d.servers[0].title == "A (master)");
  for (const trace::DiagramStep& s : d.steps) {
    const world::StepRecord& r = t.steps[static_cast<size_t>(s.index)];
    if (r.action.kind == world::Action::Kind::kStep && !r.command.empty()) {
      INFO("step " << s.index);
      REQUIRE(s.arrow);
      const trace::ServerColumn& to = d.servers[static_cast<size_t>(s.server)];
      CHECK(to.name == r.server);
      CHECK(s.command.rfind(r.server + ": ", 0) == 0);
      CHECK(s.arrow->x2 > to.body.x);
      CHECK(s.arrow->x2 < to.body.right());
    }
    if (r.action.kind == world::Action::Kind::kRestart) {
      CHECK(s.kind == trace::StepKind::kServer);
      CHECK(s.lane == -1);
    }
  }
  // Every server's lock key in every row, and the restart in B's column.
  int restarts = 0;
  for (const trace::ServerEvent& e : d.server_events) {
    CHECK(e.label == "RESTART");
    CHECK(d.servers[static_cast<size_t>(e.column)].name == "B");
    CHECK(e.note == "lock.foo lost");
    ++restarts;
  }
  CHECK(restarts == 1);
  for (const trace::ServerColumn& c : d.servers) {
    int rows = 0;
    for (const trace::KeySpan& k : c.spans) rows += k.to_row - k.from_row + 1;
    for (const trace::ServerEvent& e : d.server_events)
      rows += &d.servers[static_cast<size_t>(e.column)] == &c;
    CHECK(rows == static_cast<int>(d.steps.size()));
  }
}

// The pictures of several-server counterexamples, committed: a change to
// them is seen in review. LOCKSTEP_UPDATE_GOLDEN=1 rewrites them.
TEST_CASE("the several-server pictures are the committed golden files") {
  for (const char* name : {"redlock-restart", "replica-failover", "redlock-jump"}) {
    const trace::Trace t = Replayed(std::string(name) + ".json");
    for (const auto& [suffix, content] :
         {std::pair{".svg", trace::RenderSvg(t)}, std::pair{".txt", trace::Timeline(t)}}) {
      const std::string path = testing::SourceDir() + "/tests/trace/golden/" + name + suffix;
      if (std::getenv("LOCKSTEP_UPDATE_GOLDEN")) {
        std::ofstream(path, std::ios::binary) << content;
      }
      INFO(path << " (LOCKSTEP_UPDATE_GOLDEN=1 rewrites it)");
      CHECK(testing::ReadText(path) == content);
    }
  }
}

TEST_CASE("render cuts a picture for a slide with --steps and --hide-idle") {
  const trace::Trace t = Replayed("setnx-docs-race.json");
  trace::DiagramOptions o;
  o.from_step = 5;
  o.to_step = 8;
  o.hide_idle = true;
  const trace::Diagram d = trace::Layout(t, o);
  REQUIRE(d.steps.size() == 4);
  CHECK(d.steps.front().index == 5);
  REQUIRE(d.lanes.size() == 2);  // C3 crashed before the start and does nothing
  CHECK(d.lanes[0].name == "C1");
  CHECK(d.lanes[1].name == "C2");
  REQUIRE(d.marker);
  CHECK(d.marker->flag.y == d.steps.back().row.y + 8);
  // Bars begin in the rows drawn.
  for (const trace::Bar& b : d.bars) CHECK(b.from_row >= 0);
}

TEST_CASE("lockstep render --png draws the SVG at its size, scaled by --font-size") {
  testing::TempDir tmp;
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  testing::ProcessResult r =
      testing::RunLockstep({"render", race, "--png", tmp.File("a.png"), "--font-size", "18",
                            "--steps", "5..8", "--hide-idle", "--svg", tmp.File("a.svg")});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string png = testing::ReadText(tmp.File("a.png"));
  REQUIRE(png.size() > 24);
  CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<unsigned char>(png[at])) << 24) |
           (static_cast<uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  trace::PictureOptions o;
  o.diagram.from_step = 5;
  o.diagram.hide_idle = true;
  const trace::Diagram d = trace::Layout(Replayed("setnx-docs-race.json"), o.diagram);
  CHECK(be32(16) == static_cast<uint32_t>(std::ceil(d.width * 1.5)));
  CHECK(be32(20) == static_cast<uint32_t>(std::ceil(d.height * 1.5)));
  const std::vector<Element> svg = Parsed(testing::ReadText(tmp.File("a.svg")));
  CHECK(WithClass(svg, "step-box").size() == 4);
  CHECK(WithClass(svg, "lane").size() == 2);
}

TEST_CASE("an excerpt is headed with the steps it shows, a whole trace with its count") {
  const trace::Trace t = Replayed("setnx-docs-race.json");
  trace::PictureOptions cut;
  cut.diagram.from_step = 5;
  cut.diagram.to_step = 7;
  const std::string excerpt = trace::RenderSvg(t, cut);
  CHECK_THAT(excerpt, Catch::Matchers::Contains("steps 5-7 of 8, violation of mutual_exclusion"));
  CHECK_THAT(excerpt, !Catch::Matchers::Contains("8 steps"));
  CHECK_THAT(trace::RenderSvg(t), Catch::Matchers::Contains("8 steps, violation"));
}

TEST_CASE("old arguments are a warning in their own colour, in the singular for one tick") {
  const std::vector<Element> all =
      Parsed(trace::RenderSvg(Replayed("getset-loser-overwrite.json")));
  const auto warnings = WithClass(all, "warning");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0]->text == "args 1 tick old");
  CHECK(warnings[0]->Attr("fill") == trace::HexColour(trace::palette::kWarning));
  CHECK(trace::palette::kWarning != trace::palette::kCritical);
  for (const Element* note : WithClass(all, "note"))
    CHECK(note->text.find("args") == std::string::npos);
}

TEST_CASE("a step's notes are set apart, not run together") {
  // C1 leaves its critical section with DEL and finishes in the same step.
  const trace::Trace t = run::RunSeeded(
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-bounded.json")), 1, 200);
  const std::vector<Element> all = Parsed(trace::RenderSvg(t));
  std::vector<std::string> notes;
  for (const Element* e : WithClass(all, "note")) notes.push_back(e->text);
  CHECK_THAT(notes, Catch::Matchers::VectorContains(std::string("leaves CS; finishes")));
}

TEST_CASE("the HTML page's diagram scales to the page, and the SVG file keeps its size") {
  const trace::Trace t = Replayed("setnx-docs-race.json");
  const std::string html = trace::RenderHtml(t);
  const size_t from = html.find("<svg"), to = html.find("</svg>");
  REQUIRE(from != std::string::npos);
  const Element page = Parsed(html.substr(from, to + 6 - from)).front();
  const trace::Diagram d = trace::Layout(t);
  CHECK(page.Attr("width") == "100%");
  CHECK(page.Attr("height").empty());
  CHECK(page.Attr("viewBox") == "0 0 " + std::to_string(static_cast<int>(d.width)) + " " +
                                    std::to_string(static_cast<int>(d.height)));
  CHECK_THAT(page.Attr("style"), Catch::Matchers::Contains("height: auto"));
  const Element file = Parsed(trace::RenderSvg(t)).front();
  CHECK(file.Attr("width") == std::to_string(static_cast<int>(d.width)));
  CHECK(file.Attr("height") == std::to_string(static_cast<int>(d.height)));
}

}  // namespace
}  // namespace lockstep
