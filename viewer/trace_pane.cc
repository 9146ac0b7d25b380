#include "viewer/trace_pane.h"

#include <algorithm>
#include <cmath>

#include <GLFW/glfw3.h>

#include "sim/base/join.h"
#include "sim/trace/sources.h"

namespace lockstep::viewer {

ImVec4 Col4(uint32_t rgb) {
  return ImVec4(static_cast<float>((rgb >> 16) & 0xFF) / 255.f,
                static_cast<float>((rgb >> 8) & 0xFF) / 255.f,
                static_cast<float>(rgb & 0xFF) / 255.f, 1.f);
}

namespace {

ImU32 Col(uint32_t rgb, int alpha = 255) {
  return IM_COL32((rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF, alpha);
}

constexpr uint32_t kCursorBand = 0xFFF4C2;
constexpr uint32_t kCursorMark = 0xF2B705;
// Step numbers end this far into the step column; the cursor's triangle
// stands in the margin left of it, never over a number.
constexpr double kStepNumberRight = 40;
constexpr double kCursorMarkWidth = 8, kCursorMarkHeight = 12, kCursorMarkGap = 4;
// The side panel at zoom 1 (it grows with the zoom, its text too).
constexpr float kStatePanelWidth = 340, kStatePanelHeight = 230;

using base::Join;

// A box of the diagram where it is on screen: at `origin`, scaled by `zoom`.
nlohmann::json BoxJson(const trace::Box& b, ImVec2 origin, float zoom) {
  return {std::lround(origin.x + b.x * zoom), std::lround(origin.y + b.y * zoom),
          std::lround(b.w * zoom), std::lround(b.h * zoom)};
}

}  // namespace

TracePane::TracePane(std::string label, trace::Trace t) : label_(std::move(label)) {
  SetTrace(std::move(t), std::nullopt);
}

void TracePane::SetTrace(trace::Trace t, std::optional<int> cursor) {
  trace_ = std::move(t);
  diagram_ = trace::Layout(trace_);
  sources_ = trace::SourcesOf(trace_);
  set_cursor(cursor.value_or(last_step()));
}

void TracePane::set_cursor(int c) {
  c = std::clamp(c, 0, std::max(0, last_step()));
  // Two frames: in the first a new trace's canvas has no size to scroll yet.
  if (c != cursor_) scroll_to_cursor_ = 2;
  cursor_ = c;
}

bool TracePane::Draw(const char* id, ImVec2 size, bool keyboard, bool panel_beside) {
  bool clicked = false;
  ImGui::PushID(id);
  ImGui::BeginChild("pane", size, false);

  ImGui::TextUnformatted(label_.c_str());
  ImGui::SameLine();
  if (trace_.violation) {
    ImGui::TextColored(Col4(trace::palette::kViolation), "VIOLATION of %s at step %d",
                       trace_.violation->property.c_str(), trace_.violation->step);
  } else if (!status_.empty()) {
    ImGui::TextDisabled("%s", status_.c_str());
  } else {
    ImGui::TextDisabled("no violation (%s)", trace_.end.c_str());
  }
  if (zoom_ != 1) {
    ImGui::SameLine();
    ImGui::TextDisabled("zoom %d%% (Ctrl+0 resets)", static_cast<int>(std::lround(zoom_ * 100)));
  }

  if (keyboard && !ImGui::GetIO().WantTextInput) {
    auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
    if (pressed(ImGuiKey_DownArrow)) set_cursor(cursor_ + 1);
    if (pressed(ImGuiKey_UpArrow)) set_cursor(cursor_ - 1);
    if (pressed(ImGuiKey_PageDown)) set_cursor(cursor_ + 10);
    if (pressed(ImGuiKey_PageUp)) set_cursor(cursor_ - 10);
    if (pressed(ImGuiKey_Home)) set_cursor(0);
    if (pressed(ImGuiKey_End)) set_cursor(last_step());
  }
  if (ImGui::ArrowButton("prev", ImGuiDir_Left)) set_cursor(cursor_ - 1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("next", ImGuiDir_Right)) set_cursor(cursor_ + 1);
  ImGui::SameLine();
  int c = cursor_;
  ImGui::SetNextItemWidth(std::min(360.f, ImGui::GetContentRegionAvail().x - 80));
  if (ImGui::SliderInt("step", &c, 0, std::max(0, last_step()))) set_cursor(c);
  if (ImGui::IsItemActivated()) clicked = true;

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float panel_w = kStatePanelWidth * zoom_, panel_h = kStatePanelHeight * zoom_;
  ImVec2 canvas_size = panel_beside ? ImVec2(std::max(100.f, avail.x - panel_w - 8), avail.y)
                                    : ImVec2(avail.x, std::max(100.f, avail.y - panel_h - 8));
  ImGui::PushStyleColor(ImGuiCol_ChildBg, Col(trace::palette::kBackground));
  ImGui::BeginChild("canvas", canvas_size, true, ImGuiWindowFlags_HorizontalScrollbar);
  origin_ = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  clip_min_ = dl->GetClipRectMin();
  clip_max_ = dl->GetClipRectMax();
  ImGui::InvisibleButton("diagram", ImVec2(static_cast<float>(diagram_.width) * zoom_,
                                           static_cast<float>(diagram_.height) * zoom_));
  const bool hovered = ImGui::IsItemHovered();
  // Zoom for a projector: Ctrl and the wheel over the diagram.
  if (hovered && ImGui::GetIO().KeyCtrl && ImGui::GetIO().MouseWheel != 0) {
    set_zoom(zoom_ * (ImGui::GetIO().MouseWheel > 0 ? 1.1f : 1 / 1.1f));
  }
  std::optional<int> row_under_mouse;
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    for (const trace::DiagramStep& s : diagram_.steps) {
      if (s.row.Contains((m.x - origin_.x) / zoom_, (m.y - origin_.y) / zoom_)) {
        row_under_mouse = s.index;
      }
    }
  }
  if (ImGui::IsItemClicked()) {
    clicked = true;
    if (row_under_mouse) set_cursor(*row_under_mouse);
  }
  if (row_under_mouse && *row_under_mouse < static_cast<int>(trace_.steps.size())) {
    const auto& r = trace_.steps[static_cast<size_t>(*row_under_mouse)];
    ImGui::SetTooltip("step %d: %s", r.index,
                      r.index == 0 ? "the initial state" : trace::StepLine(r).c_str());
  }
  if (scroll_to_cursor_ > 0 && cursor_ < static_cast<int>(diagram_.steps.size())) {
    const trace::DiagramStep& step = diagram_.steps[static_cast<size_t>(cursor_)];
    const trace::Box& row = step.row;
    const float top = ImGui::GetScrollY(), height = ImGui::GetWindowHeight();
    if (row.y * zoom_ < top || row.bottom() * zoom_ > top + height - 20) {
      ImGui::SetScrollY(static_cast<float>(row.y) * zoom_ - height / 2);
    }
    // The acting client's lane too: with many clients it may be off to
    // the right (or, scrolled, to the left).
    if (step.lane >= 0) {
      const trace::Box& box = step.box;
      const float left = ImGui::GetScrollX(), width = ImGui::GetWindowWidth();
      if (box.x * zoom_ < left || box.right() * zoom_ > left + width - 20) {
        ImGui::SetScrollX(std::max(0.f, static_cast<float>(box.x) * zoom_ - 40 * zoom_));
      }
    }
    --scroll_to_cursor_;
  }
  DrawDiagram(dl, origin_);
  ImGui::EndChild();
  ImGui::PopStyleColor();
  if (ImGui::IsItemClicked()) clicked = true;

  if (panel_beside) ImGui::SameLine();
  ImGui::BeginChild("state", panel_beside ? ImVec2(panel_w, avail.y) : ImVec2(avail.x, panel_h),
                    true);
  ImGui::SetWindowFontScale(zoom_);  // readable from the back of a room
  state_panel_ = {ImGui::GetWindowPos(), ImGui::GetWindowSize(), ImGui::GetFontSize()};
  DrawStatePanel();
  ImGui::EndChild();

  ImGui::EndChild();
  ImGui::PopID();
  return clicked;
}

void TracePane::DrawDiagram(ImDrawList* dl, ImVec2 o) {
  namespace pal = trace::palette;
  const trace::Diagram& d = diagram_;
  // Diagram pixels to screen pixels, at the pane's zoom.
  const float z = zoom_;
  auto P = [&](double x, double y) {
    return ImVec2(o.x + static_cast<float>(x) * z, o.y + static_cast<float>(y) * z);
  };
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize() * z;
  auto rect = [&](const trace::Box& b, ImU32 col, float rounding = 0) {
    dl->AddRectFilled(P(b.x, b.y), P(b.right(), b.bottom()), col, rounding);
  };
  auto outline = [&](const trace::Box& b, ImU32 col, float thickness, float rounding = 0) {
    dl->AddRect(P(b.x, b.y), P(b.right(), b.bottom()), col, rounding, 0, thickness);
  };
  auto text = [&](double x, double y, uint32_t colour, const std::string& s) {
    dl->AddText(font, font_size, P(x, y), Col(colour), s.c_str());
  };
  auto text_right = [&](double right, double y, uint32_t colour, const std::string& s) {
    const float w = ImGui::CalcTextSize(s.c_str()).x * z;
    dl->AddText(font, font_size, ImVec2(P(right, y).x - w, P(right, y).y), Col(colour), s.c_str());
  };

  rect({0, 0, d.width, d.height}, Col(pal::kBackground));
  text(d.step_column.x, d.step_column.y - 24, pal::kText, d.title);
  text(d.step_column.x + 4, d.step_column.y + 14, pal::kMutedText, "step");
  text(d.clock_column.x + 4, d.clock_column.y + 14, pal::kMutedText, "clock");
  for (const trace::ServerColumn& c : d.servers) {
    text(c.header.x + 6, c.header.y + 6, pal::kText, c.title);
    text(c.header.x + 6, c.header.y + 20, pal::kMutedText, c.subtitle);
  }

  // The headers of the lanes and the servers, `dy` below where the layout
  // puts them (drawn again at the top once the rows scroll under it).
  auto headers = [&](double dy) {
    auto down = [dy](trace::Box b) {
      b.y += dy;
      return b;
    };
    if (dy > 0) {
      rect({0, d.step_column.y + dy - 6, d.width, d.step_column.h + 6}, Col(pal::kBackground));
      text(d.step_column.x + 4, d.step_column.y + dy + 14, pal::kMutedText, "step");
      text(d.clock_column.x + 4, d.clock_column.y + dy + 14, pal::kMutedText, "clock");
      for (const trace::ServerColumn& c : d.servers) {
        text(c.header.x + 6, c.header.y + dy + 6, pal::kText, c.title);
        text(c.header.x + 6, c.header.y + dy + 20, pal::kMutedText, c.subtitle);
      }
    }
    for (const trace::Lane& l : d.lanes) {
      const trace::Box h = down(l.header);
      rect(h, Col(pal::kLaneHeader), 3);
      std::string name = l.name;
      if (l.skew != 0)
        name += " (skew " + std::string(l.skew > 0 ? "+" : "") + std::to_string(l.skew) + ")";
      text(h.x + 8, h.y + 4, pal::kLaneHeaderText, name);
      text(h.x + 8, h.y + 19, pal::kLaneHeaderText, trace::LaneSubtitle(l));
    }
  };
  for (size_t i = 0; i < d.lanes.size(); ++i) {
    rect(d.lanes[i].body, Col(i % 2 ? pal::kLaneBodyAlt : pal::kLaneBody));
  }
  headers(0);

  for (const trace::DiagramStep& s : d.steps) {
    if (s.violating) rect(s.row, Col(pal::kViolationBand));
    if (s.index == cursor_) rect(s.row, Col(kCursorBand, 200));
    dl->AddLine(P(s.row.x, s.row.bottom()), P(s.row.right(), s.row.bottom()), Col(pal::kGrid));
    if (s.cycle_turn > 0) {
      rect(s.cycle_bar, Col(s.cycle_turn == 1 ? pal::kCycle : pal::kCycleAgain));
    }
    text_right(d.step_column.x + kStepNumberRight, s.row.y + 13, pal::kText,
               std::to_string(s.index));
    if (s.index == cursor_) {
      const double w = ImGui::CalcTextSize(std::to_string(s.index).c_str()).x;
      cursor_number_ = {d.step_column.x + kStepNumberRight - w, s.row.y + 13, w, 14};
    }
    const bool tick = s.kind == trace::StepKind::kTick;
    text_right(d.clock_column.x + 56, s.row.y + 13, tick ? pal::kText : pal::kMutedText,
               (tick ? "tick " : "") + std::to_string(s.clock));
    if (tick && !d.lanes.empty()) {
      const double y = s.row.y + d.row_height / 2;
      for (double x = d.lanes.front().body.x; x < d.lanes.back().body.right(); x += 10) {
        dl->AddLine(P(x, y), P(std::min(x + 6, d.lanes.back().body.right()), y),
                    Col(pal::kMutedText));
      }
    }
    if (s.kind == trace::StepKind::kStart && !d.lanes.empty()) {
      text(d.lanes.front().body.x + 28, s.row.y + 13, pal::kMutedText, "initial state");
    }
  }

  // Arrows from commands to their servers, under the columns they pass.
  for (const trace::DiagramStep& s : d.steps) {
    if (s.arrow) {
      dl->AddLine(P(s.arrow->x1, s.arrow->y), P(s.arrow->x2 - 6, s.arrow->y), Col(pal::kBoxBorder),
                  1.5f);
    }
  }
  for (size_t k = 0; k < d.servers.size(); ++k) {
    const trace::ServerColumn& c = d.servers[k];
    if (d.servers.size() > 1) {
      dl->AddLine(P(c.body.x, c.header.y), P(c.body.x, c.body.bottom()), Col(pal::kGrid));
    }
    for (const trace::KeySpan& span : c.spans) {
      rect(span.box,
           Col(span.down      ? pal::kDownFill
               : span.present ? pal::kKeyFill
                              : pal::kBackground),
           3);
      outline(span.box, Col(span.present ? pal::kKeyBorder : pal::kGrid), 1, 3);
      text(span.box.x + 8, span.box.y + 4, span.present ? pal::kText : pal::kMutedText, span.label);
      for (int row = span.from_row; row <= span.to_row; ++row) {
        const std::string& detail = span.details[static_cast<size_t>(row - span.from_row)];
        const trace::DiagramStep& s = d.steps[static_cast<size_t>(row)];
        text(span.box.x + 8, s.row.y + (row == span.from_row ? 21 : 13), pal::kMutedText, detail);
      }
    }
  }
  for (const trace::ServerEvent& e : d.server_events) {
    rect(e.box, Col(e.fault ? pal::kFaultFill : pal::kBoxFill), 4);
    outline(e.box, Col(e.fault ? pal::kFaultFill : pal::kKeyBorder), 1, 4);
    const uint32_t ink = e.fault ? pal::kFaultText : pal::kText;
    text(e.box.x + 8, e.box.y + 3, ink, e.label);
    text(e.box.x + 8, e.box.y + 17, ink, e.note);
  }
  for (const trace::DiagramStep& s : d.steps) {
    if (s.arrow) {
      const double x = s.arrow->x2, y = s.arrow->y;
      dl->AddTriangleFilled(P(x, y), P(x - 8, y - 4.5), P(x - 8, y + 4.5), Col(pal::kBoxBorder));
    }
  }

  for (const trace::Bar& b : d.bars) {
    rect(b.box, Col(b.kind == trace::BarKind::kHolding ? pal::kHolding : pal::kCritical), 2);
  }

  for (const trace::DiagramStep& s : d.steps) {
    if (s.lane < 0) continue;
    const bool fault = s.kind == trace::StepKind::kFault;
    rect(s.box, Col(fault ? pal::kFaultFill : pal::kBoxFill), 4);
    outline(s.box, Col(s.violating ? pal::kViolation : pal::kBoxBorder), s.violating ? 2.5f : 1.f,
            4);
    const uint32_t ink = fault ? pal::kFaultText : pal::kText;
    text(s.box.x + 7, s.box.y + 3, ink, s.command);
    std::string second = s.reply.empty() ? "" : "-> " + s.reply;
    text(s.box.x + 7, s.box.y + 17, ink, second);
    // After the reply: the notes in green, a warning in its own colour.
    std::string before = second;
    auto after_reply = [&](const std::string& what, uint32_t colour) {
      if (!before.empty()) before += "  ";
      const float w = ImGui::CalcTextSize(before.c_str()).x;  // at zoom 1
      text(s.box.x + 7 + w, s.box.y + 17, fault ? ink : colour, what);
      before += what;
    };
    if (!s.notes.empty()) after_reply(trace::NotesText(s), pal::kCritical);
    if (!s.warning.empty()) after_reply(s.warning, pal::kWarning);
    for (size_t k = 0; k < s.why.size(); ++k) {
      text(s.box.x + 7, s.box.y + 31 + d.line_height * static_cast<double>(k),
           fault ? ink : pal::kMutedText, s.why[k]);
    }
  }
  for (const trace::DiagramStep& s : d.steps) {
    for (const trace::DiagramStep::LaneNote& n : s.lane_notes) {
      const trace::Lane& lane = d.lanes[static_cast<size_t>(n.lane)];
      for (size_t k = 0; k < n.lines.size(); ++k) {
        text(lane.body.x + 35, s.row.y + 25 + d.line_height * static_cast<double>(k),
             pal::kMutedText, n.lines[k]);
      }
    }
  }

  if (d.marker) {
    const trace::Marker& m = *d.marker;
    rect(m.flag, Col(pal::kViolation));
    rect(m.banner, Col(pal::kViolationBand), 4);
    rect({m.banner.x, m.banner.y, 6, m.banner.h}, Col(pal::kViolation));
    text(m.banner.x + 16, m.banner.y + 7, pal::kViolation, m.headline);
    text(m.banner.x + 16, m.banner.y + 23, pal::kText, m.message);
  }

  // The cursor's mark, in the margin left of the step numbers.
  if (cursor_ < static_cast<int>(d.steps.size())) {
    const trace::Box& row = d.steps[static_cast<size_t>(cursor_)].row;
    outline(row, Col(kCursorMark), 2);
    cursor_mark_ = {d.step_column.x - kCursorMarkGap - kCursorMarkWidth,
                    row.y + row.h / 2 - kCursorMarkHeight / 2, kCursorMarkWidth, kCursorMarkHeight};
    const trace::Box& m = cursor_mark_;
    dl->AddTriangleFilled(P(m.x, m.y), P(m.x, m.bottom()), P(m.right(), m.y + m.h / 2),
                          Col(kCursorMark));
  }

  // Sticky headers: the rows scrolled under the top edge keep their lanes named.
  header_shift_ = std::max(0.0, static_cast<double>(clip_min_.y - o.y) / z - d.step_column.y + 4);
  if (header_shift_ > 0) headers(header_shift_);

  double x = d.legend.x;
  auto item = [&](uint32_t colour, const std::string& label, double w, double h) {
    rect({x, d.legend.y + (16 - h) / 2, w, h}, Col(colour));
    text(x + w + 6, d.legend.y + 1, pal::kMutedText, label);
    x += w + 6 + 7 * static_cast<double>(label.size()) + 24;
  };
  item(pal::kHolding, "believes it holds the lock", 6, 16);
  item(pal::kCritical, "inside the critical section", 6, 16);
  if (d.marker) item(pal::kViolation, "violating step", 12, 12);
}

nlohmann::json TracePane::LayoutJson() const {
  nlohmann::json lanes = nlohmann::json::array();
  for (const trace::Lane& l : diagram_.lanes) {
    trace::Box header = l.header;
    header.y += header_shift_;  // where it is drawn: sticky at the top once scrolled
    lanes.push_back({{"name", l.name}, {"header", BoxJson(header, origin_, zoom_)}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const trace::DiagramStep& s : diagram_.steps) rows.push_back(BoxJson(s.row, origin_, zoom_));
  nlohmann::json servers = nlohmann::json::array();
  for (const trace::ServerColumn& c : diagram_.servers) {
    servers.push_back({{"title", c.title}, {"header", BoxJson(c.header, origin_, zoom_)}});
  }
  nlohmann::json events = nlohmann::json::array();
  for (const trace::ServerEvent& e : diagram_.server_events) {
    events.push_back({{"step", e.step},
                      {"server", diagram_.servers[static_cast<size_t>(e.column)].title},
                      {"label", e.label},
                      {"box", BoxJson(e.box, origin_, zoom_)}});
  }
  nlohmann::json j = {
      {"label", label_},
      {"lanes", lanes},
      {"servers", servers},
      {"server_events", events},
      {"rows", rows},
      {"cursor", cursor_},
      {"cursor_mark", BoxJson(cursor_mark_, origin_, zoom_)},
      {"cursor_number", BoxJson(cursor_number_, origin_, zoom_)},
      {"zoom", zoom_},
      {"state_panel",
       {{"box",
         {std::lround(state_panel_.pos.x), std::lround(state_panel_.pos.y),
          std::lround(state_panel_.size.x), std::lround(state_panel_.size.y)}},
        {"font_size", state_panel_.font_size}}},
      {"visible",
       {std::lround(clip_min_.x), std::lround(clip_min_.y), std::lround(clip_max_.x - clip_min_.x),
        std::lround(clip_max_.y - clip_min_.y)}}};
  if (cursor_ < static_cast<int>(diagram_.steps.size()) &&
      diagram_.steps[static_cast<size_t>(cursor_)].lane >= 0) {
    const trace::DiagramStep& s = diagram_.steps[static_cast<size_t>(cursor_)];
    j["cursor_step"] = {{"lane", diagram_.lanes[static_cast<size_t>(s.lane)].name},
                        {"box", BoxJson(s.box, origin_, zoom_)}};
  }
  if (diagram_.marker) {
    j["marker"] = {{"step", diagram_.marker->step},
                   {"property", diagram_.marker->property},
                   {"flag", BoxJson(diagram_.marker->flag, origin_, zoom_)}};
  } else {
    j["marker"] = nullptr;
  }
  return j;
}

}  // namespace lockstep::viewer
