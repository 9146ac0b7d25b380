#include "sim/trace/diagram.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace lockstep::trace {
namespace {

// Metrics, in pixels. Text is estimated at kCharWidth per character, a
// little wider than the fonts the renderers use, so that it fits.
constexpr double kMargin = 16;
constexpr double kCharWidth = 7.4;
constexpr double kTitleHeight = 28;
constexpr double kHeaderHeight = 40;
constexpr double kRowHeight = 40;
constexpr double kStepColumnWidth = 48;
constexpr double kClockColumnWidth = 64;
constexpr double kBarWidth = 6;
constexpr double kBoxInset = 28;    // room for the two bars at a lane's left edge
constexpr double kBoxPadding = 20;  // inside a box, around its text
constexpr double kMinLaneWidth = 160;
constexpr double kMinKeyWidth = 170;
constexpr double kBannerHeight = 44;
constexpr double kLegendHeight = 22;

double TextWidth(const std::string& s) { return kCharWidth * static_cast<double>(s.size()); }

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

// "crash C3" -> "CRASH", "jump +5" -> "JUMP +5": a fault in capitals, without
// the client it happens to (its lane says that).
std::string FaultLabel(const std::string& action, const std::string& client) {
  std::string s = action;
  if (!client.empty() && s.size() > client.size() + 1 &&
      s.compare(s.size() - client.size() - 1, std::string::npos, " " + client) == 0) {
    s.resize(s.size() - client.size() - 1);
  }
  size_t end = s.find(' ');
  for (size_t i = 0; i < s.size() && i < end; ++i) {
    s[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[i])));
  }
  return s;
}

// The lines a step's box shows; its width decides the lanes' width.
std::string SecondLine(const DiagramStep& d) {
  std::string s = d.reply.empty() ? "" : "-> " + d.reply;
  for (const auto& n : d.notes) s += (s.empty() ? "" : "  ") + n;
  return s;
}

const kv::Entry* FindKey(const world::StepRecord& r, const std::string& key) {
  for (const kv::Entry& e : r.keyspace) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

std::string KeyLabel(const KeySpan& k) {
  if (!k.present) return "(no key)";
  std::string s = "\"" + k.value + "\"";
  if (!k.writer.empty()) s += " by " + k.writer;
  return s;
}

}  // namespace

std::string HexColour(uint32_t rgb) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%06X", static_cast<unsigned>(rgb & 0xFFFFFF));
  return buf;
}

std::string LockKeyOf(const Trace& t) {
  if (t.scenario.is_object() && t.scenario.contains("lock")) {
    const auto& lock = t.scenario["lock"];
    if (lock.is_object() && lock.contains("key") && lock["key"].is_string()) {
      return lock["key"].get<std::string>();
    }
  }
  for (const auto& r : t.steps) {
    if (!r.keyspace.empty()) return r.keyspace.front().key;
  }
  return "";
}

Diagram Layout(const Trace& t) {
  Diagram d;
  if (t.scenario.is_object() && t.scenario.contains("name") && t.scenario["name"].is_string()) {
    d.title = t.scenario["name"].get<std::string>();
  }
  d.lock_key = LockKeyOf(t);
  d.row_height = kRowHeight;
  std::vector<std::string> names;
  for (const ClientInfo& c : t.clients) names.push_back(c.name);

  // Content first, geometry once the widths are known.
  double lane_width = kMinLaneWidth;
  for (const ClientInfo& c : t.clients) {
    lane_width = std::max(lane_width, TextWidth(c.algorithm) + 24);
  }
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const world::StepRecord& r = t.steps[i];
    DiagramStep s;
    s.index = r.index;
    s.clock = r.global_time;
    if (r.index > 0) {
      s.action = i - 1 < t.schedule.size() ? t.schedule[i - 1]
                                           : world::FormatAction(r.action, names, t.server_names);
    }
    const bool has_lane = r.action.client >= 0 && r.action.client < static_cast<int>(names.size());
    const std::string actor = has_lane ? names[static_cast<size_t>(r.action.client)] : "";
    if (r.index == 0) {
      s.kind = StepKind::kStart;
    } else if (r.action.kind == world::Action::Kind::kStep) {
      s.kind = StepKind::kCommand;
      s.lane = has_lane ? r.action.client : -1;
      s.command = r.command.empty() ? "leaves CS" : CommandText(r.command);
      if (r.reply) s.reply = CompactReply(*r.reply);
      if (r.action.arg_age > 0)
        s.notes.push_back("args " + std::to_string(r.action.arg_age) + " ticks old");
    } else if (r.action.kind == world::Action::Kind::kTick) {
      s.kind = StepKind::kTick;
    } else {
      s.kind = StepKind::kFault;
      s.lane = has_lane ? r.action.client : -1;
      s.command = FaultLabel(s.action, actor);
      if (!r.command.empty()) s.notes.push_back(CommandText(r.command));
      if (r.reply) s.reply = CompactReply(*r.reply);
    }
    for (const std::string& e : r.events) {
      std::string n = Note(e, actor);
      if (s.kind == StepKind::kCommand && n == "leaves CS" && s.command == "leaves CS") continue;
      s.notes.push_back(n);
    }
    s.violating = t.violation && t.violation->step == r.index && r.index > 0;
    lane_width = std::max(lane_width, kBoxInset + kBoxPadding + TextWidth(s.command));
    lane_width = std::max(lane_width, kBoxInset + kBoxPadding + TextWidth(SecondLine(s)));
    d.steps.push_back(std::move(s));
  }
  lane_width = std::ceil(lane_width / 2) * 2;

  // The key column: spans of rows with one value.
  double key_width = std::max(kMinKeyWidth, TextWidth(d.lock_key) + 24);
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const kv::Entry* e = d.lock_key.empty() ? nullptr : FindKey(t.steps[i], d.lock_key);
    KeySpan k;
    k.from_step = k.to_step = static_cast<int>(i);
    k.present = e != nullptr;
    if (e) {
      k.value = e->kind == kv::Entry::Kind::kList
                    ? "(list of " + std::to_string(e->list.size()) + ")"
                    : e->value;
      k.deadline = e->deadline;
      auto w = t.steps[i].writers.find(d.lock_key);
      if (w != t.steps[i].writers.end()) k.writer = w->second;
    }
    if (!d.key.empty()) {
      KeySpan& last = d.key.back();
      if (last.present == k.present && last.value == k.value && last.writer == k.writer &&
          last.deadline == k.deadline) {
        last.to_step = k.to_step;
        continue;
      }
    }
    key_width = std::max(key_width, TextWidth(KeyLabel(k)) + 24);
    if (k.deadline)
      key_width = std::max(key_width,
                           TextWidth("until " + std::to_string(*k.deadline) + "  ttl 99999") + 24);
    d.key.push_back(std::move(k));
  }
  key_width = std::ceil(key_width / 2) * 2;

  // Geometry.
  const double header_y = kMargin + kTitleHeight;
  const double rows_y = header_y + kHeaderHeight;
  const double rows_bottom = rows_y + kRowHeight * static_cast<double>(d.steps.size());
  double x = kMargin;
  d.step_column = {x, header_y, kStepColumnWidth, kHeaderHeight};
  x += kStepColumnWidth;
  d.clock_column = {x, header_y, kClockColumnWidth, kHeaderHeight};
  x += kClockColumnWidth;
  for (const ClientInfo& c : t.clients) {
    Lane lane;
    lane.name = c.name;
    lane.algorithm = c.algorithm;
    lane.skew = c.skew;
    lane.crashed_at_start = c.crashed_at_start;
    lane.header = {x + 2, header_y, lane_width - 4, kHeaderHeight - 4};
    lane.body = {x, rows_y, lane_width, rows_bottom - rows_y};
    d.lanes.push_back(std::move(lane));
    x += lane_width;
  }
  d.key_column = {x, header_y, key_width, kHeaderHeight};
  x += key_width;
  d.width = x + kMargin;

  for (size_t i = 0; i < d.steps.size(); ++i) {
    DiagramStep& s = d.steps[i];
    s.row = {kMargin, rows_y + kRowHeight * static_cast<double>(i), x - kMargin, kRowHeight};
    if (s.lane >= 0) {
      const Box& body = d.lanes[static_cast<size_t>(s.lane)].body;
      s.box = {body.x + kBoxInset, s.row.y + 4, lane_width - kBoxInset - 6, kRowHeight - 8};
    } else {
      s.box = s.row;
    }
  }

  // Bars: from the first step after which a client holds (or is inside)
  // until the first step after which it no longer does.
  auto row_middle = [&](int i) { return rows_y + kRowHeight * (i + 0.5); };
  for (size_t l = 0; l < d.lanes.size(); ++l) {
    for (BarKind kind : {BarKind::kHolding, BarKind::kCritical}) {
      std::optional<int> open;
      auto close = [&](int to) {
        Bar b;
        b.lane = static_cast<int>(l);
        b.kind = kind;
        b.from_step = *open;
        b.to_step = to;
        const double bx = d.lanes[l].body.x + (kind == BarKind::kHolding ? 6 : 6 + kBarWidth + 3);
        const double y0 = row_middle(*open);
        const double y1 = to >= 0 ? row_middle(to) : rows_bottom;
        b.box = {bx, y0, kBarWidth, y1 - y0};
        d.bars.push_back(b);
        open.reset();
      };
      for (size_t i = 0; i < t.steps.size(); ++i) {
        const auto& who =
            kind == BarKind::kHolding ? t.steps[i].holding : t.steps[i].in_critical_section;
        bool in = Contains(who, d.lanes[l].name);
        if (in && !open) open = static_cast<int>(i);
        if (!in && open) close(static_cast<int>(i));
      }
      if (open) close(-1);
    }
  }
  std::stable_sort(d.bars.begin(), d.bars.end(), [](const Bar& a, const Bar& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.from_step < b.from_step;
  });

  for (KeySpan& k : d.key) {
    k.box = {d.key_column.x + 8, rows_y + kRowHeight * k.from_step + 4, key_width - 16,
             kRowHeight * (k.to_step - k.from_step + 1) - 8};
  }

  double y = rows_bottom + 12;
  if (t.violation) {
    Marker m;
    m.step = t.violation->step;
    m.property = t.violation->property;
    m.clients = t.violation->clients;
    m.message = t.violation->message;
    for (const DiagramStep& s : d.steps) {
      if (s.index == m.step) m.flag = {d.step_column.x + 4, s.row.y + 8, 14, kRowHeight - 16};
    }
    const std::string headline =
        "VIOLATION of " + m.property + " at step " + std::to_string(m.step);
    const double text = std::max(TextWidth(m.message), TextWidth(headline)) + 32;
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
