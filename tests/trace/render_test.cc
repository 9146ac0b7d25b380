// Static pictures: `lockstep render` draws the space-time diagram as SVG
// (checked here as XML: lanes, one box per step, bars, the marker) and as a
// self-contained HTML page; the same trace gives the same bytes.
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>

#include <catch2/catch.hpp>

#include "sim/run/runner.h"
#include "sim/trace/diagram.h"
#include "sim/trace/render_svg.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// A strict reader for the XML that the renderers write: elements,
// attributes, text, comments, the XML declaration and the five predefined
// entities. Returns false, with the reason, on anything malformed.
struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::vector<std::string> ancestors;  // names, outermost first
  std::string Attr(const std::string& k) const {
    auto it = attrs.find(k);
    return it == attrs.end() ? "" : it->second;
  }
  std::string Class() const { return Attr("class"); }
};

bool ParseXml(const std::string& text, std::vector<Element>* out, std::string* why) {
  std::vector<std::string> open;
  std::vector<std::string> open_classes;
  size_t i = 0;
  auto fail = [&](const std::string& w) {
    *why = w + " at offset " + std::to_string(i);
    return false;
  };
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  auto check_entities = [&](const std::string& s) {
    for (size_t at = s.find('&'); at != std::string::npos; at = s.find('&', at + 1)) {
      bool ok = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
        if (s.compare(at, std::strlen(e), e) == 0) ok = true;
      }
      if (!ok) return false;
    }
    return s.find('<') == std::string::npos;
  };
  if (text.compare(0, 5, "<?xml") == 0) {
    i = text.find("?>");
    if (i == std::string::npos) return fail("unterminated declaration");
    i += 2;
  }
  bool root_closed = false;
  while (i < text.size()) {
    size_t lt = text.find('<', i);
    std::string chars = text.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (!check_entities(chars)) return fail("bad character data");
    if (open.empty() && chars.find_first_not_of(" \n\t\r") != std::string::npos) {
      return fail("text outside the root");
    }
    if (lt == std::string::npos) break;
    i = lt;
    if (text.compare(i, 4, "<!--") == 0) {
      size_t end = text.find("-->", i);
      if (end == std::string::npos) return fail("unterminated comment");
      i = end + 3;
      continue;
    }
    if (text.compare(i, 2, "</") == 0) {
      size_t j = i + 2;
      while (j < text.size() && name_char(text[j])) ++j;
      std::string name = text.substr(i + 2, j - i - 2);
      if (j >= text.size() || text[j] != '>') return fail("bad end tag");
      if (open.empty() || open.back() != name) return fail("mismatched </" + name + ">");
      open.pop_back();
      i = j + 1;
      if (open.empty()) root_closed = true;
      continue;
    }
    if (root_closed) return fail("a second root element");
    size_t j = i + 1;
    while (j < text.size() && name_char(text[j])) ++j;
    Element e;
    e.name = text.substr(i + 1, j - i - 1);
    if (e.name.empty()) return fail("empty element name");
    e.ancestors = open;
    while (true) {
      while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
      if (j >= text.size()) return fail("unterminated tag");
      if (text[j] == '>' || text.compare(j, 2, "/>") == 0) break;
      size_t k = j;
      while (k < text.size() && name_char(text[k])) ++k;
      std::string attr = text.substr(j, k - j);
      if (attr.empty() || k + 1 >= text.size() || text[k] != '=' || text[k + 1] != '"') {
        return fail("bad attribute in <" + e.name + ">");
      }
      size_t close = text.find('"', k + 2);
      if (close == std::string::npos) return fail("unterminated attribute");
      std::string value = text.substr(k + 2, close - k - 2);
      if (!check_entities(value)) return fail("bad attribute value");
      if (!e.attrs.emplace(attr, value).second) return fail("repeated attribute " + attr);
      j = close + 1;
      if (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])) && text[j] != '>' &&
          text[j] != '/') {
        return fail("no space between attributes");
      }
    }
    const bool empty = text[j] == '/';
    i = j + (empty ? 2 : 1);
    if (!empty) open.push_back(e.name);
    out->push_back(std::move(e));
  }
  if (!open.empty()) return fail("unclosed <" + open.back() + ">");
  if (out->empty()) return fail("no root element");
  return true;
}

trace::Trace Replayed(const std::string& scenario) {
  return run::ReplaySchedule(scenario::LoadScenarioFile(testing::ScenarioPath(scenario)));
}

std::vector<Element> Parsed(const std::string& xml) {
  std::vector<Element> elements;
  std::string why;
  INFO(why);
  REQUIRE(ParseXml(xml, &elements, &why));
  return elements;
}

std::vector<const Element*> WithClass(const std::vector<Element>& all, const std::string& cls) {
  std::vector<const Element*> out;
  for (const Element& e : all) {
    if (e.Class() == cls) out.push_back(&e);
  }
  return out;
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
  CHECK(html.find("href=") == std::string::npos);
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
  CHECK(r.err == "lockstep render: give --svg OUT.svg, --html OUT.html, or both\n");

  r = testing::RunLockstep({"render", tmp.File("missing.json"), "--svg", tmp.File("x.svg")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("lockstep: " + tmp.File("missing.json") + ": ", 0) == 0);
}

}  // namespace
}  // namespace lockstep
