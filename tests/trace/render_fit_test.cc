// The pictures' texts as a renderer draws them: every text of every picture
// lockstep draws of the shipped scenarios fits the box it is written in, and
// no two overlap; and the check itself finds both faults.
#include <cairo.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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

// Text as a renderer draws it: cairo's metrics for the font the pictures
// name (DejaVu Sans Mono, installed with lockstep), not the layout's
// estimate of 7.4 pixels a character.
class InkMeter {
 public:
  InkMeter()
      : surface_(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)),
        cr_(cairo_create(surface_)) {}
  ~InkMeter() {
    cairo_destroy(cr_);
    cairo_surface_destroy(surface_);
  }
  InkMeter(const InkMeter&) = delete;
  InkMeter& operator=(const InkMeter&) = delete;

  // The box `text` inks drawn at (x, y) (its baseline), anchored at its
  // start or end.
  trace::Box Ink(const std::string& text, double x, double y, double size, bool bold,
                 bool anchor_end) {
    cairo_select_font_face(cr_, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, text.c_str(), &e);
    const double left = anchor_end ? x - e.x_advance : x;
    const double width = std::max(e.x_advance, e.x_bearing + e.width);
    return {left + std::min(0.0, e.x_bearing), y + e.y_bearing, width, e.height};
  }

 private:
  cairo_surface_t* surface_;
  cairo_t* cr_;
};

std::string Unescaped(std::string s) {
  for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}}) {
    for (size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + 1)) {
      s.replace(at, entity.size(), c);
    }
  }
  return s;
}

double Number(const Element& e, const std::string& attr) { return std::stod(e.Attr(attr)); }

bool Inside(const trace::Box& inner, const trace::Box& outer, double slack = 0.5) {
  return inner.x >= outer.x - slack && inner.y >= outer.y - slack &&
         inner.right() <= outer.right() + slack && inner.bottom() <= outer.bottom() + slack;
}

bool Overlap(const trace::Box& a, const trace::Box& b, double slack = 0.5) {
  return a.x + slack < b.right() && b.x + slack < a.right() && a.y + slack < b.bottom() &&
         b.y + slack < a.bottom();
}

// Every text of the SVG inside the box it is written in (a step's box, a
// key span, a server's event, a lane header, the violation banner), or
// inside the picture if it is in none, and no two texts overlapping.
// Returns what does not fit, one line each.
std::vector<std::string> TextsThatDoNotFit(const std::string& svg) {
  const std::vector<Element> all = Parsed(svg);
  InkMeter meter;
  const trace::Box picture{0, 0, Number(all.front(), "width"), Number(all.front(), "height")};
  std::vector<trace::Box> containers;
  for (const Element& e : all) {
    const std::string c = e.Class();
    if (e.name == "rect" && (c == "step-box" || c == "key-span" || c == "server-event" ||
                             c == "lane-header" || c == "violation-banner")) {
      containers.push_back(
          {Number(e, "x"), Number(e, "y"), Number(e, "width"), Number(e, "height")});
    }
  }
  std::vector<std::string> problems;
  std::vector<std::pair<trace::Box, std::string>> texts;
  for (const Element& e : all) {
    if (e.name != "text") continue;
    const std::string text = Unescaped(e.text);
    const double x = Number(e, "x"), y = Number(e, "y");
    const bool end = e.Attr("text-anchor") == "end";
    const trace::Box ink =
        meter.Ink(text, x, y, e.Attr("font-size").empty() ? 12 : Number(e, "font-size"),
                  e.Attr("font-weight") == "bold", end);
    const trace::Box* in = nullptr;
    for (const trace::Box& b : containers) {
      if (b.Contains(end ? x - 1 : x + 1, y - 4) && (!in || b.w * b.h < in->w * in->h)) in = &b;
    }
    if (!Inside(ink, in ? *in : picture)) {
      problems.push_back("\"" + text + "\" at " + e.Attr("x") + "," + e.Attr("y") + " leaves " +
                         (in ? "its box" : "the picture"));
    }
    for (const auto& [other, other_text] : texts) {
      if (Overlap(ink, other))
        problems.push_back("\"" + text + "\" overlaps \"" + other_text + "\"");
    }
    texts.push_back({ink, text});
  }
  return problems;
}

// Pictures worth checking from one scenario: its schedule, two seeded runs,
// and the shortest counterexample a breadth-first search finds within
// 20,000 states.
std::vector<trace::Trace> TracesOf(const std::string& file) {
  const scenario::Scenario s = scenario::LoadScenarioFile(file);
  std::vector<trace::Trace> traces;
  if (s.has_schedule) traces.push_back(run::ReplaySchedule(s));
  for (uint64_t seed : {1, 2}) traces.push_back(run::RunSeeded(s, seed, 40));
  run::ExploreOptions o;
  o.strategy = "bfs";
  o.request.search.bounds.max_states = 20'000;
  run::ExploreResult r = run::Explore(s, o);
  if (r.counterexample) traces.push_back(std::move(r.counterexample->trace));
  return traces;
}

TEST_CASE("every text of every picture fits its box and no two texts overlap", "[sweep]") {
  int pictures = 0, several_servers = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    for (const trace::Trace& t : TracesOf(file)) {
      INFO(file << ": " << trace::OneLine(t));
      trace::PictureOptions cut;
      cut.diagram.from_step = static_cast<int>(t.steps.size()) / 3;
      cut.diagram.to_step = static_cast<int>(t.steps.size()) - 1;
      cut.diagram.hide_idle = true;
      for (const trace::PictureOptions& o : {trace::PictureOptions{}, cut}) {
        const std::vector<std::string> problems = TextsThatDoNotFit(trace::RenderSvg(t, o));
        CHECK(problems == std::vector<std::string>{});
        ++pictures;
      }
      several_servers += !t.server_names.empty();
    }
  }
  CHECK(pictures >= 200);
  CHECK(several_servers >= 20);
}

TEST_CASE("the fit check finds a text that leaves its box and texts that overlap") {
  const std::string svg = R"(<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100">
  <rect class="step-box" x="10" y="10" width="60" height="32"/>
  <text x="17" y="24">SETNX lock.foo 13</text>
  <text x="100" y="60">one</text>
  <text x="104" y="62">two</text>
</svg>
)";
  const std::vector<std::string> problems = TextsThatDoNotFit(svg);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "\"SETNX lock.foo 13\" at 17,24 leaves its box");
  CHECK(problems[1] == "\"two\" overlaps \"one\"");
}

TEST_CASE("a client crashed at the start gets a narrow lane with room for its name") {
  const trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const trace::Diagram d = trace::Layout(t);
  REQUIRE(d.lanes.size() == 3);
  REQUIRE(d.lanes[2].crashed_at_start);
  CHECK(d.lanes[2].body.w < d.lanes[0].body.w / 2);
  CHECK(TextsThatDoNotFit(trace::RenderSvg(t)) == std::vector<std::string>{});
}

}  // namespace
}  // namespace lockstep
