// The terminal timeline: one row per step, one column per client; fitted to
// a width by wrapping cells in their columns, or one line per step.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "sim/base/join.h"
#include "sim/lang/catalogue.h"
#include "sim/lang/translate.h"
#include "sim/trace/diagram.h"
#include "sim/trace/trace.h"

namespace lockstep::trace {
namespace {

using lang::Msg;

// What each server column shows after step r: its keyspace, after what a
// fault or replication did to it ("RESTART (lock.foo lost): (empty)").
std::vector<std::string> ServerCellsText(const world::StepRecord& r,
                                         const std::vector<ServerEvent>& events, lang::Language l) {
  std::vector<std::string> cells;
  if (r.servers.empty()) {
    cells.push_back(EntriesText(r.keyspace, r.writers));
  } else {
    for (const world::ServerRecord& sv : r.servers) {
      std::string s = sv.role == "failed" ? lang::Text(Msg::kTimelineFailed, l)
                                          : EntriesText(sv.keyspace, sv.writers);
      if (!sv.available && sv.role != "failed") s = lang::Format(Msg::kTimelineRestarting, l, {s});
      if (sv.unreplicated > 0) {
        s = lang::Format(Msg::kTimelineUnreplicated, l, {s, std::to_string(sv.unreplicated)});
      }
      cells.push_back(s);
    }
  }
  for (const ServerEvent& e : events) {
    std::string& cell = cells[static_cast<size_t>(e.column)];
    cell = e.label + (e.note.empty() ? "" : " (" + e.note + ")") + ": " + cell;
  }
  return cells;
}

// A client column narrower than this (its cells wrapped to fit the width)
// reads worse than one line per step.
constexpr size_t kNarrowestClient = 24;

// The columns a code point takes on a terminal, from its UTF-8 lead byte
// and the code point: two for the wide East Asian ranges (CJK ideographs
// and punctuation, Hangul, full-width forms), one for the rest.
size_t CodePointWidth(const std::string& s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if ((b & 0xF0) != 0xE0 || i + 2 >= s.size()) return (b & 0xF8) == 0xF0 ? 2 : 1;
  const unsigned cp = ((b & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
                      (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
  const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                    (cp >= 0xFFE0 && cp <= 0xFFE6);
  return wide ? 2 : 1;
}

// Columns on a terminal: each code point's (the text is ASCII but for "…"
// and, in Chinese, wide characters), colour escapes ("\033[...m") taking
// none.
size_t Width(const std::string& s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) w += CodePointWidth(s, i);
  }
  return w;
}

// The widest line of a cell that may hold several.
size_t CellWidth(const std::string& s) {
  size_t widest = 0;
  for (size_t at = 0; at <= s.size();) {
    size_t end = s.find('\n', at);
    if (end == std::string::npos) end = s.size();
    widest = std::max(widest, Width(s.substr(at, end - at)));
    at = end + 1;
  }
  return widest;
}

std::string Pad(const std::string& s, size_t width) {
  const size_t w = Width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// Every run of 12 or more hex digits (random tokens) cut to its first 6 and
// an ellipsis: enough to tell tokens apart in one picture.
std::string ShortenTokens(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j - i >= 12) {
      out += s.substr(i, 6) + "\u2026";
      i = j;
    } else if (j > i) {
      out += s.substr(i, j - i);
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// `s` in lines of at most `width` columns: broken at spaces, a longer word
// broken where it must be.
std::vector<std::string> Wrap(const std::string& s, size_t width) {
  if (size_t newline = s.find('\n'); newline != std::string::npos) {
    std::vector<std::string> lines = Wrap(s.substr(0, newline), width);
    for (std::string& l : Wrap(s.substr(newline + 1), width)) lines.push_back(std::move(l));
    return lines;
  }
  std::vector<std::string> lines;
  if (width == 0 || Width(s) <= width) return {s};
  // An indented line (a reason under its command) keeps its indent.
  if (const size_t indent = s.find_first_not_of(' ');
      indent != std::string::npos && indent > 0 && indent + 8 < width) {
    for (std::string& l : Wrap(s.substr(indent), width - indent)) {
      lines.push_back(std::string(indent, ' ') + l);
    }
    return lines;
  }
  std::string line;
  auto flush = [&] {
    lines.push_back(line);
    line.clear();
  };
  std::istringstream words(s);
  std::string word;
  while (words >> word) {
    while (Width(word) > width) {
      if (!line.empty()) flush();
      // Cut at `width` columns (at least one code point).
      size_t cut = 0;
      for (size_t cols = 0; cut < word.size();) {
        const size_t w = CodePointWidth(word, cut);
        if (cut > 0 && cols + w > width) break;
        cols += w;
        ++cut;
        while (cut < word.size() && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) ++cut;
      }
      lines.push_back(word.substr(0, cut));
      word = word.substr(cut);
    }
    if (word.empty()) continue;
    if (!line.empty() && Width(line) + 1 + Width(word) > width) flush();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) flush();
  return lines;
}

// ANSI colours: a client's cells in its own, the violation in bold red.
constexpr const char* kClientColors[] = {"\033[36m", "\033[33m", "\033[35m", "\033[32m",
                                         "\033[34m", "\033[96m", "\033[93m", "\033[95m"};
constexpr const char* kViolationColor = "\033[1;31m";
constexpr const char* kReset = "\033[0m";

std::string Paint(const std::string& s, const char* color, bool on) {
  return on && !s.empty() ? color + s + kReset : s;
}

// Columns: step, clock, one per client, in CS, one per server.
struct Table {
  std::vector<std::vector<std::string>> rows;  // the header first
  std::vector<bool> violating;                 // per row
  size_t servers = 1;
};

Table MakeTable(const Trace& t, bool why, lang::Language l) {
  const size_t n = t.clients.size();
  const std::vector<std::vector<ServerEvent>> events = ServerEvents(t);
  Table table;
  table.servers = std::max<size_t>(1, t.server_names.size());
  std::vector<std::string> header = {lang::Text(Msg::kPageLaneStep, l),
                                     lang::Text(Msg::kPageLaneClock, l)};
  for (const ClientInfo& c : t.clients) {
    std::string h = c.name;
    if (c.skew != 0) {
      h = lang::Format(Msg::kTimelineSkew, l,
                       {h, std::string(c.skew > 0 ? "+" : "") + std::to_string(c.skew)});
    }
    header.push_back(h);
  }
  header.push_back(lang::Text(Msg::kTimelineInCs, l));
  if (t.server_names.empty()) {
    header.push_back(lang::Text(Msg::kPageLaneKeyspace, l));
  } else {
    for (size_t k = 0; k < t.server_names.size(); ++k) {
      const std::string role = t.steps.front().servers.size() > k ? t.steps.front().servers[k].role
                                                                  : std::string("master");
      header.push_back(t.server_names[k] + (role == "master" ? "" : " (" + role + ")"));
    }
  }
  table.rows.push_back(header);
  table.violating.push_back(false);

  for (size_t si = 0; si < t.steps.size(); ++si) {
    const world::StepRecord& r = t.steps[si];
    std::vector<std::string> row(n + 3);
    row[0] = std::to_string(r.index);
    row[1] = std::to_string(r.global_time);
    for (size_t i = 0; i < n; ++i) {
      const std::string& name = t.clients[i].name;
      std::string cell;
      if (r.index == 0) {
        if (t.clients[i].crashed_at_start) cell = lang::Text(Msg::kTimelineCrashed, l);
      } else if (r.actor == name) {
        switch (r.action.kind) {
          case world::Action::Kind::kCrash:
            cell = lang::Text(Msg::kTimelineCrashes, l);
            break;
          case world::Action::Kind::kStall:
            cell = lang::Text(Msg::kTimelineStalls, l);
            break;
          case world::Action::Kind::kLoseRequest:
          case world::Action::Kind::kLoseReply:
          case world::Action::Kind::kStep: {
            if (r.action.drawn) {
              cell = lang::Format(Msg::kTimelineDraws, l, {std::to_string(*r.action.drawn)});
            } else if (r.command.empty()) {
              cell = lang::Text(
                  WakesActor(r.events, name) ? Msg::kTimelineWakes : Msg::kTimelineLeavesCs, l);
            } else {
              cell = (r.server.empty() ? "" : r.server + ": ") + CommandText(r.command);
              if (r.action.kind == world::Action::Kind::kLoseRequest) {
                cell = lang::Format(Msg::kTimelineRequestLost, l, {cell});
              } else if (r.reply && r.action.kind == world::Action::Kind::kLoseReply) {
                cell = lang::Format(Msg::kTimelineReplyLost, l, {cell, CompactReply(*r.reply)});
              } else if (r.reply) {
                cell += " -> " + CompactReply(*r.reply);
              }
              if (r.action.arg_age > 0 && si > 0)
                cell += " (" + lang::Shown(ArgAgeText(t.steps[si - 1], r), l) + ")";
            }
            break;
          }
          default:
            break;
        }
      }
      for (const std::string& e : r.events) {
        auto note = [&](Msg m) { cell += (cell.empty() ? "" : " ") + lang::Format(m, l); };
        if (e == name + " enters the critical section")
          cell += " " + lang::Format(Msg::kTimelineEntersCs, l);
        if (e == name + " wakes" && cell != lang::Text(Msg::kTimelineWakes, l))
          note(Msg::kTimelineWakesNote);
        if (e == name + " times out") note(Msg::kTimelineTimesOutNote);
      }
      // Why, under the command: a line each.
      for (const world::StepRecord::Why& w : r.reasons) {
        if (why && w.client == name) {
          cell += (cell.empty() ? "" : "\n") + ("  " + lang::Shown(w.reason.text, l));
        }
      }
      row[2 + i] = cell;
    }
    if (r.index > 0 && (r.action.kind == world::Action::Kind::kTick ||
                        r.action.kind == world::Action::Kind::kStall)) {
      row[1] = lang::Format(Msg::kPageLaneTick, l, {row[1]});
    }
    row[n + 2] = base::Join(r.in_critical_section, ",");
    for (std::string& cell : ServerCellsText(r, events[si], l)) row.push_back(std::move(cell));
    table.rows.push_back(row);
    table.violating.push_back(t.violation && r.index > 0 && r.index == t.violation->step);
  }
  return table;
}

// The last line: the violation, or why the execution ended.
std::string Outcome(const Trace& t, lang::Language l) {
  if (t.violation) {
    return lang::Format(Msg::kTimelineViolation, l,
                        {t.violation->property, std::to_string(t.violation->step),
                         lang::Shown(t.violation->message, l)});
  }
  return lang::Format(Msg::kTimelineNoViolation, l,
                      {lang::Shown(t.end, l), std::to_string(t.steps.size() - 1)});
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The outcome, wrapped to the width, a violation in its colour.
std::string OutcomeLines(const Trace& t, const TimelineStyle& style) {
  const std::string lines = Lines(Wrap(Outcome(t, style.language), style.width));
  if (!style.color || !t.violation) return lines;
  return kViolationColor + lines.substr(0, lines.size() - 1) + kReset + "\n";
}

// The line before step `index` when it begins a turn of a lasso's cycle.
std::string LassoMark(const Trace& t, size_t index, lang::Language l) {
  if (!t.lasso) return "";
  const size_t first = static_cast<size_t>(t.lasso->start) + 1;
  const size_t again = first + static_cast<size_t>(t.lasso->length);
  if (index == first) {
    return lang::Format(Msg::kTimelineCycle, l, {std::to_string(first), std::to_string(again - 1)});
  }
  if (index == again) return lang::Text(Msg::kTimelineCycleAgain, l);
  return "";
}

// One line per step: "   8  tick 3  C2 SETNX lock.foo 13 -> 1  [CS: C1,C2]".
std::string Compact(const Trace& t, const Table& table, const TimelineStyle& style) {
  const size_t n = t.clients.size();
  size_t index_width = 0, clock_width = 0;
  for (size_t ri = 1; ri < table.rows.size(); ++ri) {
    index_width = std::max(index_width, Width(table.rows[ri][0]));
    clock_width = std::max(clock_width, Width(table.rows[ri][1]));
  }
  std::string out;
  for (size_t ri = 1; ri < table.rows.size(); ++ri) {
    if (std::string mark = LassoMark(t, ri - 1, style.language); !mark.empty())
      out += "   " + mark + "\n";
    const auto& row = table.rows[ri];
    std::string head = (table.violating[ri] ? "!! " : "   ") +
                       std::string(index_width - Width(row[0]), ' ') + row[0] + "  " +
                       Pad(row[1], clock_width);
    std::vector<std::pair<std::string, size_t>> parts;  // text, client (n: none)
    for (size_t i = 0; i < n; ++i) {
      if (row[2 + i].empty()) continue;
      // The client's name in its colour: one word, so wrapping never cuts it.
      parts.push_back(
          {Paint(t.clients[i].name, kClientColors[i % 8], style.color) + " " + row[2 + i], i});
    }
    if (!row[n + 2].empty()) {
      parts.push_back({lang::Format(Msg::kTimelineCsList, style.language, {row[n + 2]}), n});
    }
    // Each server's keyspace where it changed (and at the start).
    for (size_t c = n + 3; c < row.size(); ++c) {
      if (ri == 1 || row[c] != table.rows[ri - 1][c]) {
        const std::string name = table.servers > 1 ? t.server_names[c - n - 3] + ": " : "";
        parts.push_back({"| " + name + row[c], n});
      }
    }
    std::string text;
    for (const auto& [part, who] : parts) text += (text.empty() ? "" : "  ") + part;
    if (style.width) text = ShortenTokens(text);
    const size_t indent = Width(head) + 2;
    std::vector<std::string> lines =
        Wrap(text, style.width > indent + 20 ? style.width - indent : 0);
    for (size_t k = 0; k < lines.size(); ++k) {
      std::string line = (k == 0 ? head : std::string(indent - 2, ' ')) + "  " + lines[k];
      while (!line.empty() && line.back() == ' ') line.pop_back();
      if (style.color && table.violating[ri]) line = Paint(line, kViolationColor, true);
      out += line + "\n";
    }
  }
  return out + OutcomeLines(t, style);
}

}  // namespace

std::string Timeline(const Trace& t, const TimelineStyle& style) {
  const size_t n = t.clients.size();
  Table table = MakeTable(t, style.why, style.language);
  if (style.compact) return Compact(t, table, style);

  const size_t cols = n + 3 + table.servers;
  std::vector<size_t> width(cols, 0);
  auto measure = [&] {
    std::fill(width.begin(), width.end(), 0);
    for (const auto& row : table.rows) {
      for (size_t c = 0; c < cols; ++c) width[c] = std::max(width[c], CellWidth(row[c]));
    }
  };
  auto total = [&] {
    size_t w = 3 + 2 * (cols - 1);
    for (size_t c : width) w += c;
    return w;
  };
  measure();
  if (style.width && total() > style.width) {
    // Too wide: shorten tokens, then narrow the client and keyspace
    // columns (widest first) and wrap their cells.
    for (size_t ri = 1; ri < table.rows.size(); ++ri) {
      for (size_t c = 2; c < cols; ++c) table.rows[ri][c] = ShortenTokens(table.rows[ri][c]);
    }
    measure();
    // A keyspace keeps up to 30 columns (shared by the servers) while the
    // clients give way (to kNarrowestClient each, widest first), then goes
    // to 16; narrower than that, a table is unreadable (a why-line squeezed
    // into a few words a line): one line per step instead.
    const size_t keep = std::max<size_t>(16, std::min<size_t>(30, style.width / 3) / table.servers);
    auto narrow = [&](size_t least_client, size_t least_keyspace) {
      while (total() > style.width) {
        size_t widest = cols;
        for (size_t c = 2; c < cols; ++c) {
          if (c == n + 2) continue;
          const size_t least = c > n + 2 ? std::min(width[c], least_keyspace) : least_client;
          if (width[c] <= least) continue;
          if (widest == cols || width[c] > width[widest]) widest = c;
        }
        if (widest == cols) return;  // as narrow as it goes
        --width[widest];
      }
    };
    narrow(kNarrowestClient, keep);
    narrow(kNarrowestClient, 16);
    if (total() > style.width) {
      TimelineStyle compact = style;
      compact.compact = true;
      return Timeline(t, compact);
    }
  }

  std::ostringstream out;
  for (size_t ri = 0; ri < table.rows.size(); ++ri) {
    if (std::string mark = ri > 0 ? LassoMark(t, ri - 1, style.language) : ""; !mark.empty()) {
      out << "   " << mark << "\n";
    }
    const auto& row = table.rows[ri];
    std::vector<std::vector<std::string>> cells(cols);
    size_t height = 1;
    for (size_t c = 0; c < cols; ++c) {
      cells[c] = Wrap(row[c], width[c]);
      height = std::max(height, cells[c].size());
    }
    for (size_t line_no = 0; line_no < height; ++line_no) {
      std::string line = line_no == 0 && table.violating[ri] ? "!! " : "   ";
      std::string painted = line;
      std::string pending;  // spaces not yet known to be followed by text
      for (size_t c = 0; c < cols; ++c) {
        std::string cell = line_no < cells[c].size() ? cells[c][line_no] : "";
        if (c < 2 && !cell.empty()) {
          cell = std::string(width[c] - Width(cell), ' ') + cell;  // right-align numbers
        }
        const std::string padded = c + 1 == cols ? cell : Pad(cell, width[c]) + "  ";
        // Trailing spaces are dropped: keep them pending until text follows.
        size_t text_end = padded.find_last_not_of(' ');
        if (text_end == std::string::npos) {
          pending += padded;
          continue;
        }
        const std::string text = padded.substr(0, text_end + 1);
        const char* color = c >= 2 && c < n + 2 ? kClientColors[(c - 2) % 8] : "";
        painted += pending + Paint(text, color, style.color && ri > 0 && *color);
        pending = padded.substr(text_end + 1);
      }
      if (style.color && table.violating[ri] && line_no == 0) {
        painted = Paint("!!", kViolationColor, true) + painted.substr(2);
      }
      out << painted << "\n";
    }
    if (ri == 0) {
      std::string rule = "   ";
      for (size_t c = 0; c < cols; ++c) rule += std::string(width[c], '-') + "  ";
      while (rule.back() == ' ') rule.pop_back();
      out << rule << "\n";
    }
  }
  out << OutcomeLines(t, style);
  return out.str();
}

std::string WrapText(const std::string& text, size_t width) { return Lines(Wrap(text, width)); }

}  // namespace lockstep::trace
