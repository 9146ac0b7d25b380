#include "sim/trace/diagram.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "sim/base/check.h"
#include "sim/trace/diagram_servers.h"

namespace lockstep::trace {
namespace {

// Metrics, in pixels. Text is estimated at kCharWidth per character, a
// little wider than the fonts the renderers use, so that it fits.
constexpr double kMargin = 16;
constexpr double kCharWidth = 7.4;
constexpr double kTitleHeight = 28;
constexpr double kHeaderHeight = 40;
constexpr double kRowHeight = 40;
constexpr double kLineHeight = 14;  // a reason's or a lane note's line
constexpr size_t kWhyColumns = 40;  // reasons wrap at a lane's text width, at least this
constexpr double kStepColumnWidth = 48;
constexpr double kClockColumnWidth = 64;
constexpr double kBarWidth = 6;
constexpr double kBoxInset = 28;    // room for the two bars at a lane's left edge
constexpr double kBoxPadding = 20;  // inside a box, around its text
constexpr double kMinLaneWidth = 160;
// A client crashed before the run never acts: its lane is only wide enough
// for its name and "crashed".
constexpr double kCrashedLaneWidth = 84;
constexpr double kMinKeyWidth = 170;
constexpr double kBannerHeight = 44;
constexpr double kLegendHeight = 22;

constexpr double kSpanPadding = 32;  // a key span's text to its column's edges

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// What a step's events say about its actor, short: "enters CS".
std::string Note(const std::string& event, const std::string& actor) {
  std::string e = event;
  if (!actor.empty() && e.rfind(actor + " ", 0) == 0) e = e.substr(actor.size() + 1);
  if (e == "enters the critical section") return "enters CS";
  if (e == "leaves the critical section") return "leaves CS";
  return e;
}

// The lines a step's box shows; its width decides the lanes' width.
std::string SecondLine(const DiagramStep& d) {
  std::string s = d.reply.empty() ? "" : "-> " + d.reply;
  if (!d.notes.empty()) s += (s.empty() ? "" : "  ") + NotesText(d);
  if (!d.warning.empty()) s += (s.empty() ? "" : "  ") + d.warning;
  return s;
}

}  // namespace

std::string HexColour(uint32_t rgb) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%06X", static_cast<unsigned>(rgb & 0xFFFFFF));
  return buf;
}

double TextWidth(const std::string& s) { return kCharWidth * static_cast<double>(s.size()); }

Diagram Layout(const Trace& t, const DiagramOptions& options) {
  LOCKSTEP_CHECK(!t.steps.empty(), "a trace has its initial state");
  const int last = static_cast<int>(t.steps.size()) - 1;
  const int from = options.from_step;
  const int to = options.to_step < 0 ? last : options.to_step;
  LOCKSTEP_CHECK(0 <= from && from <= to && to <= last, "the rows are steps of the trace");

  Diagram d;
  if (t.scenario.is_object() && t.scenario.contains("name") && t.scenario["name"].is_string()) {
    d.title = t.scenario["name"].get<std::string>();
  }
  d.lock_key = LockKeyOf(t);
  d.row_height = kRowHeight;
  d.line_height = kLineHeight;
  std::vector<std::string> names;
  for (const ClientInfo& c : t.clients) names.push_back(c.name);
  const auto cells = ServerCells(t, d.lock_key);
  const size_t server_count = cells.front().size();

  // Which clients get a lane: all, or those that act, hold or take part in
  // the violation within the rows.
  std::vector<int> lane_of(t.clients.size(), -1);
  int lanes = 0;
  for (size_t c = 0; c < t.clients.size(); ++c) {
    bool shown = !options.hide_idle;
    for (int i = from; i <= to && !shown; ++i) {
      const world::StepRecord& r = t.steps[static_cast<size_t>(i)];
      shown = (i > 0 && r.action.client == static_cast<int>(c)) || Contains(r.holding, names[c]) ||
              Contains(r.in_critical_section, names[c]);
    }
    if (t.violation && Contains(t.violation->clients, names[c])) shown = true;
    if (shown) lane_of[c] = lanes++;
  }

  // Content first, geometry once the widths are known.
  double lane_width = kMinLaneWidth;
  for (size_t c = 0; c < t.clients.size(); ++c) {
    if (lane_of[c] >= 0) lane_width = std::max(lane_width, TextWidth(t.clients[c].algorithm) + 24);
  }
  for (int i = from; i <= to; ++i) {
    const world::StepRecord& r = t.steps[static_cast<size_t>(i)];
    DiagramStep s;
    s.index = r.index;
    if (t.lasso && r.index > t.lasso->start) {
      const int turn = (r.index - t.lasso->start - 1) / t.lasso->length + 1;
      s.cycle_turn = turn <= 2 ? turn : 0;
    }
    s.clock = r.global_time;
    if (r.index > 0) {
      s.action = static_cast<size_t>(i - 1) < t.schedule.size()
                     ? t.schedule[static_cast<size_t>(i - 1)]
                     : world::FormatAction(r.action, names, t.server_names);
    }
    const bool has_client =
        r.action.client >= 0 && r.action.client < static_cast<int>(names.size());
    const std::string actor = has_client ? names[static_cast<size_t>(r.action.client)] : "";
    const int lane = has_client ? lane_of[static_cast<size_t>(r.action.client)] : -1;
    if (r.index == 0) {
      s.kind = StepKind::kStart;
    } else if (r.action.kind == world::Action::Kind::kStep) {
      s.kind = StepKind::kCommand;
      s.lane = lane;
      s.command = r.action.drawn      ? "draws " + std::to_string(*r.action.drawn)
                  : r.command.empty() ? (WakesActor(r.events, actor) ? "wakes" : "leaves CS")
                  : r.server.empty()  ? CommandText(r.command)
                                      : r.server + ": " + CommandText(r.command);
      if (r.reply) s.reply = CompactReply(*r.reply);
      if (r.action.arg_age > 0) s.warning = ArgAgeLabel(r.action.arg_age);
      for (size_t k = 0; k < t.server_names.size(); ++k) {
        if (t.server_names[k] == r.server) s.server = static_cast<int>(k);
      }
    } else if (r.action.kind == world::Action::Kind::kTick) {
      s.kind = StepKind::kTick;
    } else if (has_client) {
      s.kind = StepKind::kFault;
      s.lane = lane;
      s.command = FaultLabel(s.action, actor);
      if (!r.command.empty()) s.notes.push_back(CommandText(r.command));
      if (r.reply) s.reply = CompactReply(*r.reply);
    } else {
      s.kind = StepKind::kServer;
    }
    for (const std::string& e : r.events) {
      if (s.kind == StepKind::kServer) break;  // the server's column says what happened
      std::string n = Note(e, actor);
      if (s.kind == StepKind::kCommand && r.command.empty() && n == s.command) continue;
      s.notes.push_back(n);
    }
    s.violating = t.violation && t.violation->step == r.index && r.index > 0;
    if (s.lane >= 0) {
      lane_width = std::max(lane_width, kBoxInset + kBoxPadding + TextWidth(s.command));
      lane_width = std::max(lane_width, kBoxInset + kBoxPadding + TextWidth(SecondLine(s)));
    }
    d.steps.push_back(std::move(s));
  }
  // Why: each resumed client's reasons, wrapped to the lane's text width.
  const size_t why_columns = std::max(
      kWhyColumns, static_cast<size_t>((lane_width - kBoxInset - kBoxPadding) / kCharWidth));
  auto wrapped = [&](const std::string& text) {
    std::vector<std::string> lines;
    std::string all = WrapText(text, why_columns);
    for (size_t at = 0; at < all.size();) {
      const size_t end = all.find('\n', at);
      lines.push_back(all.substr(at, end - at));
      at = end + 1;
    }
    return lines;
  };
  for (int i = from; i <= to; ++i) {
    const world::StepRecord& r = t.steps[static_cast<size_t>(i)];
    DiagramStep& s = d.steps[static_cast<size_t>(i - from)];
    s.source = r.source;
    for (size_t c = 0; c < t.clients.size(); ++c) {
      const int lane = lane_of[c];
      if (lane < 0) continue;
      std::vector<std::string> lines;
      if (lane != s.lane) {
        for (const std::string& e : r.events) {
          if (e == names[c] + " wakes" || e == names[c] + " times out") {
            lines.push_back(Note(e, names[c]));
          }
        }
      }
      for (const world::StepRecord::Why& w : r.reasons) {
        if (w.client != names[c]) continue;
        for (std::string& line : wrapped(w.reason.text)) lines.push_back(std::move(line));
      }
      for (const std::string& line : lines) {
        lane_width = std::max(lane_width, kBoxInset + kBoxPadding + TextWidth(line));
      }
      if (lines.empty()) continue;
      if (lane == s.lane) {
        s.why = std::move(lines);
      } else {
        s.lane_notes.push_back({lane, std::move(lines)});
      }
    }
  }
  lane_width = std::ceil(lane_width / 2) * 2;

  // The servers' columns: their events, then spans of rows with one value.
  const int rows = to - from + 1;
  for (size_t k = 0; k < server_count; ++k) {
    ServerColumn col;
    if (!t.server_names.empty()) {
      col.name = t.server_names[k];
      col.role = cells[static_cast<size_t>(from)][k].role;
      col.title = col.name + " (" + col.role + ")";
      col.subtitle = d.lock_key.empty() ? "keyspace" : d.lock_key;
    } else {
      col.title = d.lock_key.empty() ? "keyspace" : d.lock_key;
      col.subtitle = "value, writer, TTL";
    }
    d.servers.push_back(std::move(col));
  }
  std::vector<std::vector<bool>> has_event(server_count, std::vector<bool>(rows, false));
  for (int row = 0; row < rows; ++row) {
    const int i = from + row;
    if (d.steps[static_cast<size_t>(row)].kind != StepKind::kServer) continue;
    for (ServerEvent e : ServerEventsOf(t, cells, i, d.lock_key)) {
      has_event[static_cast<size_t>(e.column)][static_cast<size_t>(row)] = true;
      d.server_events.push_back(std::move(e));
    }
  }
  std::vector<double> column_width(server_count, kMinKeyWidth);
  for (size_t k = 0; k < server_count; ++k) {
    ServerColumn& col = d.servers[k];
    double& w = column_width[k];
    w = std::max({w, TextWidth(col.title) + 24, TextWidth(col.subtitle) + 24});
    for (int row = 0; row < rows; ++row) {
      if (has_event[k][static_cast<size_t>(row)]) continue;
      const ServerCell& c = cells[static_cast<size_t>(from + row)][k];
      KeySpan span;
      span.from_row = span.to_row = row;
      span.present = c.entry.has_value();
      span.down = !c.available;
      if (c.entry) {
        span.value = c.entry->kind == kv::Entry::Kind::kString ? c.entry->value.str()
                                                               : kv::ItemsSummary(*c.entry);
        span.deadline = c.entry->deadline;
        span.writer = c.writer;
      }
      std::string detail = !span.present   ? ""
                           : span.deadline ? "until " + std::to_string(*span.deadline) + "  ttl " +
                                                 std::to_string(*span.deadline - c.clock)
                                           : "no TTL";
      if (!col.spans.empty()) {
        KeySpan& prev = col.spans.back();
        if (prev.to_row == row - 1 && prev.present == span.present && prev.down == span.down &&
            prev.value == span.value && prev.writer == span.writer &&
            prev.deadline == span.deadline) {
          prev.to_row = row;
          prev.details.push_back(span.deadline ? detail : "");  // the TTL moves with the clock
          w = std::max(w, TextWidth(detail) + kSpanPadding);
          continue;
        }
      }
      span.label = span.down      ? (c.role == "failed" ? "(failed)" : "(restarting)")
                   : span.present ? "\"" + span.value + "\"" +
                                        (span.writer.empty() ? "" : " by " + span.writer)
                                  : "(no key)";
      span.details.push_back(detail);
      w = std::max({w, TextWidth(span.label) + kSpanPadding, TextWidth(detail) + kSpanPadding});
      col.spans.push_back(std::move(span));
    }
  }
  for (const ServerEvent& e : d.server_events) {
    double& w = column_width[static_cast<size_t>(e.column)];
    w = std::max({w, TextWidth(e.label) + kSpanPadding, TextWidth(e.note) + kSpanPadding});
  }
  for (double& w : column_width) w = std::ceil(w / 2) * 2;

  // Geometry.
  const double header_y = kMargin + kTitleHeight;
  const double rows_y = header_y + kHeaderHeight;
  // A row is taller by a line for each line of the most a lane explains in it.
  std::vector<double> tops = {rows_y};
  for (const DiagramStep& s : d.steps) {
    size_t lines = s.why.size();
    for (const DiagramStep::LaneNote& n : s.lane_notes) lines = std::max(lines, n.lines.size());
    tops.push_back(tops.back() + kRowHeight + kLineHeight * static_cast<double>(lines));
  }
  const double rows_bottom = tops.back();
  auto row_top = [&](int row) { return tops[static_cast<size_t>(row)]; };
  double x = kMargin;
  d.step_column = {x, header_y, kStepColumnWidth, kHeaderHeight};
  x += kStepColumnWidth;
  d.clock_column = {x, header_y, kClockColumnWidth, kHeaderHeight};
  x += kClockColumnWidth;
  for (size_t c = 0; c < t.clients.size(); ++c) {
    if (lane_of[c] < 0) continue;
    Lane lane;
    lane.name = t.clients[c].name;
    lane.algorithm = t.clients[c].algorithm;
    lane.skew = t.clients[c].skew;
    lane.crashed_at_start = t.clients[c].crashed_at_start;
    const double width = lane.crashed_at_start ? kCrashedLaneWidth : lane_width;
    lane.header = {x + 2, header_y, width - 4, kHeaderHeight - 4};
    lane.body = {x, rows_y, width, rows_bottom - rows_y};
    d.lanes.push_back(std::move(lane));
    x += width;
  }
  for (size_t k = 0; k < server_count; ++k) {
    ServerColumn& col = d.servers[k];
    col.header = {x + 2, header_y, column_width[k] - 4, kHeaderHeight - 4};
    col.body = {x, rows_y, column_width[k], rows_bottom - rows_y};
    auto cell = [&](int row_a, int row_b) {
      return Box{x + 8, row_top(row_a) + 4, column_width[k] - 16,
                 row_top(row_b + 1) - row_top(row_a) - 8};
    };
    for (KeySpan& s : col.spans) s.box = cell(s.from_row, s.to_row);
    for (ServerEvent& e : d.server_events) {
      if (e.column == static_cast<int>(k))
        e.box = cell(e.step - d.steps.front().index, e.step - d.steps.front().index);
    }
    x += column_width[k];
  }
  d.width = x + kMargin;

  for (size_t row = 0; row < d.steps.size(); ++row) {
    DiagramStep& s = d.steps[row];
    s.row = {kMargin, row_top(static_cast<int>(row)), x - kMargin,
             row_top(static_cast<int>(row) + 1) - row_top(static_cast<int>(row))};
    // Left of the violation's flag, which stands in the last turn's row.
    if (s.cycle_turn > 0) s.cycle_bar = {d.step_column.x + 0.5, s.row.y + 2, 3, s.row.h - 4};
    if (s.lane >= 0) {
      const Box& body = d.lanes[static_cast<size_t>(s.lane)].body;
      s.box = {body.x + kBoxInset, s.row.y + 4, body.w - kBoxInset - 6,
               kRowHeight - 8 + kLineHeight * static_cast<double>(s.why.size())};
      if (s.server >= 0) {
        s.arrow =
            DiagramStep::Arrow{s.box.right(), d.servers[static_cast<size_t>(s.server)].body.x + 8,
                               s.row.y + kRowHeight / 2};
      }
    } else {
      s.box = s.row;
    }
  }

  // Bars: from the first row after which a client holds (or is inside)
  // until the first row after which it no longer does.
  auto row_middle = [&](int row) { return row_top(row) + kRowHeight / 2; };
  for (size_t l = 0; l < d.lanes.size(); ++l) {
    for (BarKind kind : {BarKind::kHolding, BarKind::kCritical}) {
      int open = -1;  // the row the open bar starts in; -1: none is open
      auto close = [&](int to_row) {
        Bar b;
        b.lane = static_cast<int>(l);
        b.kind = kind;
        b.from_row = open;
        b.to_row = to_row;
        const double bx = d.lanes[l].body.x + (kind == BarKind::kHolding ? 6 : 6 + kBarWidth + 3);
        const double y0 = row_middle(open);
        const double y1 = to_row >= 0 ? row_middle(to_row) : rows_bottom;
        b.box = {bx, y0, kBarWidth, y1 - y0};
        d.bars.push_back(b);
        open = -1;
      };
      for (int row = 0; row < rows; ++row) {
        const world::StepRecord& r = t.steps[static_cast<size_t>(from + row)];
        const auto& who = kind == BarKind::kHolding ? r.holding : r.in_critical_section;
        bool in = Contains(who, d.lanes[l].name);
        if (in && open < 0) open = row;
        if (!in && open >= 0) close(row);
      }
      if (open >= 0) close(-1);
    }
  }
  std::stable_sort(d.bars.begin(), d.bars.end(), [](const Bar& a, const Bar& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.from_row < b.from_row;
  });

  double y = rows_bottom + 12;
  if (t.violation) {
    Marker m;
    m.step = t.violation->step;
    m.property = t.violation->property;
    m.clients = t.violation->clients;
    m.message = t.violation->message;
    m.headline = "VIOLATION of " + m.property + " at step " + std::to_string(m.step);
    for (const DiagramStep& s : d.steps) {
      if (s.index == m.step) m.flag = {d.step_column.x + 4, s.row.y + 8, 14, kRowHeight - 16};
    }
    const double text = std::max(TextWidth(m.message), TextWidth(m.headline)) + 32;
    m.banner = {kMargin, y, std::max(x - kMargin, text), kBannerHeight};
    d.width = std::max(d.width, m.banner.right() + kMargin);
    y += kBannerHeight + 10;
    d.marker = std::move(m);
  }
  d.legend = {kMargin, y, x - kMargin, kLegendHeight};
  d.height = d.legend.bottom() + kMargin;
  return d;
}

}  // namespace lockstep::trace
