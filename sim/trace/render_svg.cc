#include "sim/trace/render_svg.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "sim/base/join.h"
#include "sim/trace/diagram.h"
#include "sim/trace/sources.h"

namespace lockstep::trace {
namespace {

// Coordinates are multiples of a half pixel; printing them as such keeps
// the output short and identical on every machine.
std::string Num(double v) {
  double r = std::round(v * 2) / 2;
  char buf[32];
  if (r == std::floor(r)) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(r));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", r);
  }
  return buf;
}

std::string Colour(uint32_t rgb) { return HexColour(rgb); }

std::string RectAttrs(const Box& b) {
  return "x=\"" + Num(b.x) + "\" y=\"" + Num(b.y) + "\" width=\"" + Num(b.w) + "\" height=\"" +
         Num(b.h) + "\"";
}

// "48 steps, violation of ... at step 8"; an excerpt says which steps it
// shows: "steps 30-44 of 48, ...".
std::string Subtitle(const Trace& t, const DiagramOptions& rows) {
  const int last = t.steps.empty() ? 0 : static_cast<int>(t.steps.size()) - 1;
  const int to = rows.to_step < 0 ? last : rows.to_step;
  std::string s = rows.from_step > 0 || to < last
                      ? "steps " + std::to_string(rows.from_step) + "-" + std::to_string(to) +
                            " of " + std::to_string(last) + ", "
                      : base::Counted(last, "step") + ", ";
  if (t.violation) {
    s += "violation of " + t.violation->property + " at step " + std::to_string(t.violation->step);
  } else {
    s += "no violation (" + t.end + ")";
  }
  return s;
}

class Svg {
 public:
  void Open(const std::string& tag, const std::string& attrs) {
    out_ << Indent() << "<" << tag << (attrs.empty() ? "" : " ") << attrs << ">\n";
    ++depth_;
  }
  void Close(const std::string& tag) {
    --depth_;
    out_ << Indent() << "</" << tag << ">\n";
  }
  void Empty(const std::string& tag, const std::string& attrs) {
    out_ << Indent() << "<" << tag << " " << attrs << "/>\n";
  }
  void Text(double x, double y, const std::string& text, const std::string& attrs = "") {
    out_ << Indent() << "<text x=\"" << Num(x) << "\" y=\"" << Num(y) << "\""
         << (attrs.empty() ? "" : " ") << attrs << ">" << XmlEscape(text) << "</text>\n";
  }
  void Raw(const std::string& s) { out_ << Indent() << s << "\n"; }
  std::string str() const { return out_.str(); }

 private:
  std::string Indent() const { return std::string(static_cast<size_t>(depth_) * 2, ' '); }
  std::ostringstream out_;
  int depth_ = 0;
};

std::string Fill(uint32_t rgb) { return "fill=\"" + Colour(rgb) + "\""; }

// The diagram as an <svg> element (no XML declaration). `fit`: as wide as
// its container, never wider than its own size, its height following (a
// page); otherwise its own size (a file).
std::string SvgElement(const Trace& t, const PictureOptions& options, bool fit = false) {
  const Diagram d = Layout(t, options.diagram);
  const double scale = options.font_size / kDiagramFontSize;
  const std::string size =
      fit ? "width=\"100%\" style=\"max-width: " + Num(d.width * scale) + "px; height: auto\""
          : "width=\"" + Num(d.width * scale) + "\" height=\"" + Num(d.height * scale) + "\"";
  Svg s;
  s.Open("svg", "xmlns=\"http://www.w3.org/2000/svg\" " + size + " viewBox=\"0 0 " + Num(d.width) +
                    " " + Num(d.height) +
                    "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
                    "font-size=\"12\"");
  s.Raw("<title>" + XmlEscape(d.title + ": " + Subtitle(t, options.diagram)) + "</title>");
  s.Empty("rect", "class=\"background\" x=\"0\" y=\"0\" width=\"" + Num(d.width) + "\" height=\"" +
                      Num(d.height) + "\" " + Fill(palette::kBackground));
  s.Text(d.step_column.x, d.step_column.y - 12, d.title,
         "font-size=\"15\" font-weight=\"bold\" " + Fill(palette::kText));
  // The title is bold and larger: about 9.5 pixels a character.
  s.Text(d.step_column.x + 9.5 * static_cast<double>(d.title.size()) + 16, d.step_column.y - 12,
         Subtitle(t, options.diagram), Fill(palette::kMutedText));

  // Column headers.
  s.Open("g", "class=\"columns\" " + Fill(palette::kMutedText));
  s.Text(d.step_column.x + 4, d.step_column.y + 24, "step");
  s.Text(d.clock_column.x + 4, d.clock_column.y + 24, "clock");
  for (const ServerColumn& c : d.servers) {
    s.Text(c.header.x + 6, c.header.y + 16, c.title,
           "font-weight=\"bold\" " + Fill(palette::kText));
    s.Text(c.header.x + 6, c.header.y + 30, c.subtitle);
  }
  s.Close("g");

  // Lanes.
  for (size_t i = 0; i < d.lanes.size(); ++i) {
    const Lane& l = d.lanes[i];
    s.Open("g", "class=\"lane\" data-client=\"" + XmlEscape(l.name) + "\"");
    s.Empty("rect", "class=\"lane-body\" " + RectAttrs(l.body) + " " +
                        Fill(i % 2 ? palette::kLaneBodyAlt : palette::kLaneBody));
    s.Empty("rect", "class=\"lane-header\" " + RectAttrs(l.header) + " rx=\"3\" " +
                        Fill(palette::kLaneHeader));
    std::string name = l.name;
    if (l.skew != 0)
      name += " (skew " + std::string(l.skew > 0 ? "+" : "") + std::to_string(l.skew) + ")";
    s.Text(l.header.x + 8, l.header.y + 15, name,
           "font-weight=\"bold\" " + Fill(palette::kLaneHeaderText));
    s.Text(l.header.x + 8, l.header.y + 29, LaneSubtitle(l), Fill(palette::kLaneHeaderText));
    s.Close("g");
  }

  // Rows: the violating row's band, grid lines, step numbers and clocks,
  // and ticks as dashed lines across the lanes.
  s.Open("g", "class=\"rows\"");
  for (const DiagramStep& st : d.steps) {
    if (st.violating) {
      s.Empty("rect", "class=\"violation-band\" " + RectAttrs(st.row) + " " +
                          Fill(palette::kViolationBand));
    }
    s.Empty("line", "x1=\"" + Num(st.row.x) + "\" y1=\"" + Num(st.row.bottom()) + "\" x2=\"" +
                        Num(st.row.right()) + "\" y2=\"" + Num(st.row.bottom()) + "\" stroke=\"" +
                        Colour(palette::kGrid) + "\"");
    if (st.cycle_turn > 0) {
      s.Empty("rect", "class=\"cycle\" " + RectAttrs(st.cycle_bar) + " " +
                          Fill(st.cycle_turn == 1 ? palette::kCycle : palette::kCycleAgain));
    }
    s.Text(d.step_column.x + 40, st.row.y + 24, std::to_string(st.index),
           "text-anchor=\"end\" " + Fill(palette::kText));
    const bool tick = st.kind == StepKind::kTick;
    s.Text(d.clock_column.x + 56, st.row.y + 24, (tick ? "tick " : "") + std::to_string(st.clock),
           "text-anchor=\"end\" " + Fill(tick ? palette::kText : palette::kMutedText) +
               (tick ? " font-weight=\"bold\"" : ""));
    if (tick && !d.lanes.empty()) {
      const double y = st.row.y + d.row_height / 2;
      s.Empty("line", "class=\"tick\" x1=\"" + Num(d.lanes.front().body.x) + "\" y1=\"" + Num(y) +
                          "\" x2=\"" + Num(d.lanes.back().body.right()) + "\" y2=\"" + Num(y) +
                          "\" stroke=\"" + Colour(palette::kMutedText) +
                          "\" stroke-dasharray=\"6 4\"");
    }
    if (st.kind == StepKind::kStart) {
      s.Text(d.lanes.empty() ? st.row.x : d.lanes.front().body.x + 28, st.row.y + 24,
             "initial state", "font-style=\"italic\" " + Fill(palette::kMutedText));
    }
  }
  s.Close("g");

  // Arrows from commands to their servers, under the columns they pass.
  s.Open("g",
         "class=\"arrows\" stroke=\"" + Colour(palette::kBoxBorder) + "\" stroke-width=\"1.5\"");
  for (const DiagramStep& st : d.steps) {
    if (!st.arrow) continue;
    s.Empty("line", "data-step=\"" + std::to_string(st.index) + "\" x1=\"" + Num(st.arrow->x1) +
                        "\" y1=\"" + Num(st.arrow->y) + "\" x2=\"" + Num(st.arrow->x2 - 6) +
                        "\" y2=\"" + Num(st.arrow->y) + "\"");
  }
  s.Close("g");

  // Each server's column: separators, the lock key's value over time, and
  // the server's own events.
  for (size_t k = 0; k < d.servers.size(); ++k) {
    const ServerColumn& c = d.servers[k];
    s.Open("g", "class=\"server\" data-server=\"" + XmlEscape(c.name) + "\" data-key=\"" +
                    XmlEscape(d.lock_key) + "\"");
    if (d.servers.size() > 1) {
      s.Empty("line", "x1=\"" + Num(c.body.x) + "\" y1=\"" + Num(c.header.y) + "\" x2=\"" +
                          Num(c.body.x) + "\" y2=\"" + Num(c.body.bottom()) + "\" stroke=\"" +
                          Colour(palette::kGrid) + "\"");
    }
    for (const KeySpan& span : c.spans) {
      const uint32_t fill = span.down      ? palette::kDownFill
                            : span.present ? palette::kKeyFill
                                           : palette::kBackground;
      s.Empty("rect", "class=\"key-span\" " + RectAttrs(span.box) + " rx=\"3\" " + Fill(fill) +
                          " stroke=\"" +
                          Colour(span.present ? palette::kKeyBorder : palette::kGrid) + "\"" +
                          (span.present ? "" : " stroke-dasharray=\"4 3\""));
      s.Text(span.box.x + 8, span.box.y + 14, span.label,
             Fill(span.present ? palette::kText : palette::kMutedText));
      for (int row = span.from_row; row <= span.to_row; ++row) {
        const std::string& detail = span.details[static_cast<size_t>(row - span.from_row)];
        if (detail.empty()) continue;
        s.Text(span.box.x + 8,
               d.steps[static_cast<size_t>(row)].row.y + (row == span.from_row ? 32 : 24), detail,
               Fill(palette::kMutedText));
      }
    }
    for (const ServerEvent& e : d.server_events) {
      if (e.column != static_cast<int>(k)) continue;
      s.Empty("rect", std::string("class=\"server-event\" data-step=\"") + std::to_string(e.step) +
                          "\" " + RectAttrs(e.box) + " rx=\"4\" " +
                          Fill(e.fault ? palette::kFaultFill : palette::kBoxFill) + " stroke=\"" +
                          Colour(e.fault ? palette::kFaultFill : palette::kKeyBorder) + "\"");
      const uint32_t ink = e.fault ? palette::kFaultText : palette::kText;
      s.Text(e.box.x + 8, e.box.y + 14, e.label, "font-weight=\"bold\" " + Fill(ink));
      if (!e.note.empty()) s.Text(e.box.x + 8, e.box.y + 28, e.note, Fill(ink));
    }
    s.Close("g");
  }

  // Arrowheads, over the target's edge.
  s.Open("g", "class=\"arrowheads\" " + Fill(palette::kBoxBorder));
  for (const DiagramStep& st : d.steps) {
    if (!st.arrow) continue;
    const double x = st.arrow->x2, y = st.arrow->y;
    s.Empty("polygon", "points=\"" + Num(x) + "," + Num(y) + " " + Num(x - 8) + "," + Num(y - 4.5) +
                           " " + Num(x - 8) + "," + Num(y + 4.5) + "\"");
  }
  s.Close("g");

  // Bars.
  s.Open("g", "class=\"bars\"");
  for (const Bar& b : d.bars) {
    const bool holding = b.kind == BarKind::kHolding;
    s.Empty(
        "rect",
        std::string("class=\"bar ") + (holding ? "holding" : "critical-section") +
            "\" data-client=\"" + XmlEscape(d.lanes[static_cast<size_t>(b.lane)].name) +
            "\" data-from=\"" + std::to_string(d.steps[static_cast<size_t>(b.from_row)].index) +
            "\" data-to=\"" +
            (b.to_row >= 0 ? std::to_string(d.steps[static_cast<size_t>(b.to_row)].index) : "end") +
            "\" " + RectAttrs(b.box) + " rx=\"2\" " +
            Fill(holding ? palette::kHolding : palette::kCritical));
  }
  s.Close("g");

  // Steps.
  s.Open("g", "class=\"steps\"");
  for (const DiagramStep& st : d.steps) {
    if (st.lane < 0) continue;
    const bool fault = st.kind == StepKind::kFault;
    s.Open("g", "class=\"step\" data-step=\"" + std::to_string(st.index) + "\"");
    s.Empty("rect", "class=\"step-box\" data-step=\"" + std::to_string(st.index) + "\" " +
                        RectAttrs(st.box) + " rx=\"4\" " +
                        Fill(fault ? palette::kFaultFill : palette::kBoxFill) + " stroke=\"" +
                        Colour(st.violating ? palette::kViolation : palette::kBoxBorder) +
                        "\" stroke-width=\"" + (st.violating ? "2.5" : "1") + "\"");
    const uint32_t ink = fault ? palette::kFaultText : palette::kText;
    s.Text(st.box.x + 7, st.box.y + 14, st.command, Fill(ink));
    std::string second = st.reply.empty() ? "" : "-> " + st.reply;
    if (!second.empty())
      s.Text(st.box.x + 7, st.box.y + 28, second, Fill(ink) + " font-weight=\"bold\"");
    // After the reply: the notes in green, a warning in its own colour.
    size_t column = second.size();
    auto after_reply = [&](const std::string& text, uint32_t colour, const std::string& cls) {
      column += column == 0 ? 0 : 2;
      s.Text(st.box.x + 7 + 7.4 * static_cast<double>(column), st.box.y + 28, text,
             "class=\"" + cls + "\" " + Fill(fault ? ink : colour));
      column += text.size();
    };
    if (!st.notes.empty()) after_reply(NotesText(st), palette::kCritical, "note");
    if (!st.warning.empty()) after_reply(st.warning, palette::kWarning, "warning");
    for (size_t k = 0; k < st.why.size(); ++k) {
      s.Text(st.box.x + 7, st.box.y + 42 + d.line_height * static_cast<double>(k), st.why[k],
             "class=\"why\" font-style=\"italic\" " + Fill(fault ? ink : palette::kMutedText));
    }
    s.Close("g");
  }
  // What clients woken by a tick did and said, in their lanes.
  for (const DiagramStep& st : d.steps) {
    for (const DiagramStep::LaneNote& n : st.lane_notes) {
      const Lane& lane = d.lanes[static_cast<size_t>(n.lane)];
      for (size_t k = 0; k < n.lines.size(); ++k) {
        s.Text(lane.body.x + 35, st.row.y + 36 + d.line_height * static_cast<double>(k), n.lines[k],
               "class=\"why\" font-style=\"italic\" " + Fill(palette::kMutedText));
      }
    }
  }
  s.Close("g");

  // The violation.
  if (d.marker) {
    const Marker& m = *d.marker;
    s.Open("g", "class=\"violation-marker\" data-step=\"" + std::to_string(m.step) +
                    "\" data-property=\"" + XmlEscape(m.property) + "\" data-clients=\"" +
                    XmlEscape(base::Join(m.clients, ",")) + "\"");
    s.Empty("rect",
            "class=\"violation-flag\" " + RectAttrs(m.flag) + " " + Fill(palette::kViolation));
    s.Empty("rect", "class=\"violation-banner\" " + RectAttrs(m.banner) + " rx=\"4\" " +
                        Fill(palette::kViolationBand));
    s.Empty("rect", "x=\"" + Num(m.banner.x) + "\" y=\"" + Num(m.banner.y) +
                        "\" width=\"6\" height=\"" + Num(m.banner.h) + "\" " +
                        Fill(palette::kViolation));
    s.Text(m.banner.x + 16, m.banner.y + 18, m.headline,
           "font-weight=\"bold\" " + Fill(palette::kViolation));
    s.Text(m.banner.x + 16, m.banner.y + 34, m.message, Fill(palette::kText));
    s.Close("g");
  }

  // Legend.
  s.Open("g", "class=\"legend\" " + Fill(palette::kMutedText));
  double x = d.legend.x;
  const double y = d.legend.y;
  auto item = [&](uint32_t colour, const std::string& text, double w, double h) {
    s.Empty("rect", "x=\"" + Num(x) + "\" y=\"" + Num(y + (16 - h) / 2) + "\" width=\"" + Num(w) +
                        "\" height=\"" + Num(h) + "\" " + Fill(colour));
    s.Text(x + w + 6, y + 12, text);
    x += w + 6 + 7.4 * static_cast<double>(text.size()) + 24;
  };
  item(palette::kHolding, "believes it holds the lock", 6, 16);
  item(palette::kCritical, "inside the critical section", 6, 16);
  if (d.marker) item(palette::kViolation, "violating step", 12, 12);
  s.Close("g");

  s.Close("svg");
  return s.str();
}

std::string Cell(const std::string& s) { return "<td>" + XmlEscape(s) + "</td>"; }

// The id of a source line in the HTML page: "src-setnx_takeover.cc-19".
std::string SourceAnchor(const std::string& file, int line) {
  return "src-" + file + "-" + std::to_string(line);
}

// The keyspace after a step; with several servers each one's.
std::string KeyspaceText(const world::StepRecord& r) {
  if (r.servers.empty()) return EntriesText(r.keyspace, r.writers);
  std::string s;
  for (const world::ServerRecord& sv : r.servers) {
    s += (s.empty() ? "" : "  |  ") + sv.name + ": ";
    s += sv.role == "failed" ? "(failed)"
         : sv.available      ? EntriesText(sv.keyspace, sv.writers)
                             : "(restarting) " + EntriesText(sv.keyspace, sv.writers);
  }
  return s;
}

}  // namespace

std::string XmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderSvg(const Trace& t, const PictureOptions& options) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + SvgElement(t, options);
}

std::string RenderHtml(const Trace& t, const PictureOptions& options) {
  std::string name =
      t.scenario.is_object() && t.scenario.contains("name") && t.scenario["name"].is_string()
          ? t.scenario["name"].get<std::string>()
          : "trace";
  std::string description = t.scenario.is_object() && t.scenario.contains("description") &&
                                    t.scenario["description"].is_string()
                                ? t.scenario["description"].get<std::string>()
                                : "";
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << XmlEscape(name) << " - lockstep</title>\n"
    << "<style>\n"
       "body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; margin: 24px; color: "
       "#1B1F24; }\n"
       "p.description { max-width: 60em; }\n"
       "div.diagram { overflow-x: auto; }\n"
       "table { border-collapse: collapse; font-family: DejaVu Sans Mono, Menlo, Consolas, "
       "monospace; font-size: 12px; }\n"
       "th, td { border: 1px solid #D5DBE4; padding: 3px 8px; text-align: left; vertical-align: "
       "top; }\n"
       "th { background: #34435E; color: #FFFFFF; }\n"
       "tr.violating td { background: #FDE3E6; }\n"
       "p.violation { color: #E8112D; font-weight: bold; }\n"
       "td.why { font-style: italic; color: #6A7381; }\n"
       "pre.source { font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; font-size: 12px; "
       "border: 1px solid #D5DBE4; padding: 6px 0; max-height: 40em; overflow: auto; }\n"
       "pre.source span.line { display: block; padding: 0 8px; }\n"
       "pre.source span.line:target { background: #FFF1A8; }\n"
       "pre.source span.stepped { border-left: 3px solid #2F6FDE; }\n"
       "pre.source span.n { color: #6A7381; display: inline-block; width: 4em; }\n"
       "</style>\n</head>\n<body>\n";
  h << "<h1>" << XmlEscape(name) << "</h1>\n";
  if (!description.empty()) h << "<p class=\"description\">" << XmlEscape(description) << "</p>\n";
  h << "<p>" << XmlEscape(Subtitle(t, options.diagram)) << "</p>\n";
  h << "<div class=\"diagram\">\n" << SvgElement(t, options, true) << "</div>\n";
  if (t.violation) {
    h << "<p class=\"violation\">VIOLATION of " << XmlEscape(t.violation->property) << " at step "
      << t.violation->step << ": " << XmlEscape(t.violation->message) << "</p>\n";
  }
  const std::map<std::string, std::string> sources = SourcesOf(t);
  // A source line as a link to it in the listing below (when it is there).
  auto source_cell = [&](const std::string& source) {
    const auto parsed = ParseSourceLine(source);
    if (!parsed || !sources.count(parsed->first)) return Cell(source);
    return "<td><a href=\"#" + XmlEscape(SourceAnchor(parsed->first, parsed->second)) + "\">" +
           XmlEscape(source) + "</a></td>";
  };
  h << "<h2>Steps</h2>\n<table class=\"steps\">\n<tr><th>step</th><th>action</th><th>clock</th>"
       "<th>command</th><th>reply</th><th>events</th><th>in CS</th><th>holding</th>"
       "<th>keyspace after the step</th><th>source</th><th>why</th></tr>\n";
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const world::StepRecord& r = t.steps[i];
    const bool violating = t.violation && r.index > 0 && t.violation->step == r.index;
    std::string action = r.index == 0                ? "(start)"
                         : i - 1 < t.schedule.size() ? t.schedule[i - 1]
                                                     : "";
    std::string command = r.server.empty() || r.command.empty() ? "" : r.server + ":";
    for (const auto& a : r.command) command += (command.empty() ? "" : " ") + a;
    h << "<tr" << (violating ? " class=\"violating\"" : "") << ">" << Cell(std::to_string(r.index))
      << Cell(action) << Cell(std::to_string(r.global_time)) << Cell(command)
      << Cell(r.reply ? CompactReply(*r.reply) : "") << Cell(base::Join(r.events, "; "))
      << Cell(base::Join(r.in_critical_section, ",")) << Cell(base::Join(r.holding, ","))
      << Cell(KeyspaceText(r)) << source_cell(r.source) << "<td class=\"why\">";
    for (const world::StepRecord::Why& w : r.reasons) {
      h << XmlEscape(w.client + ": " + w.reason.text) << " ";
      const auto parsed = ParseSourceLine(w.reason.source);
      if (parsed && sources.count(parsed->first)) {
        h << "(<a href=\"#" << XmlEscape(SourceAnchor(parsed->first, parsed->second)) << "\">"
          << XmlEscape(w.reason.source) << "</a>)";
      }
      h << "<br>";
    }
    h << "</td></tr>\n";
  }
  h << "</table>\n<p>Schedule: <code>" << XmlEscape(base::Join(t.schedule, " ")) << "</code></p>\n";
  // The algorithms' source, every line an anchor the steps link to; the
  // lines some step came from are marked.
  if (!sources.empty()) {
    std::set<std::string> stepped;
    for (const world::StepRecord& r : t.steps) {
      stepped.insert(r.source);
      for (const world::StepRecord::Why& w : r.reasons) stepped.insert(w.reason.source);
    }
    h << "<h2>Source</h2>\n<p>Click a step's source to see its line.</p>\n";
    for (const auto& [file, text] : sources) {
      h << "<h3>" << XmlEscape(file) << "</h3>\n<pre class=\"source\">";
      int n = 0;
      for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        ++n;
        const bool marked = stepped.count(file + ":" + std::to_string(n)) > 0;
        h << "<span class=\"line" << (marked ? " stepped" : "") << "\" id=\""
          << XmlEscape(SourceAnchor(file, n)) << "\"><span class=\"n\">" << n << "</span>"
          << XmlEscape(text.substr(at, end - at)) << "</span>";
        at = end + 1;
      }
      h << "</pre>\n";
    }
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace lockstep::trace
