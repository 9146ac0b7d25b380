// One trace in the viewer: its space-time diagram (trace::Layout, the same
// geometry `lockstep render` draws as SVG) drawn with Dear ImGui, a cursor
// on one step, and the state at the cursor: the global and client clocks,
// the server's keyspace, who is in the critical section and who holds.
//
// The cursor moves with the keyboard (Up/Down, PageUp/PageDown, Home/End)
// when the pane is active, with the slider, or with a click on a row.
#pragma once

#include <imgui.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/trace/diagram.h"
#include "sim/trace/trace.h"

namespace lockstep::viewer {

// An opaque colour 0xRRGGBB for ImGui's style.
ImVec4 Col4(uint32_t rgb);

class TracePane {
 public:
  TracePane(std::string label, trace::Trace t);

  // Replaces the trace (a game that moved on); the cursor goes to `cursor`,
  // or to the last step.
  void SetTrace(trace::Trace t, std::optional<int> cursor = std::nullopt);

  // Draws the pane into the current ImGui window, in a region `size` big.
  // `keyboard`: this pane takes the cursor keys. Returns true iff the user
  // clicked inside it (the caller makes it the active pane).
  bool Draw(const char* id, ImVec2 size, bool keyboard, bool panel_beside);

  int cursor() const { return cursor_; }
  void set_cursor(int c);
  // Zoom for a projector, 0.25 to 4 (Ctrl and the wheel over the diagram;
  // ViewerApp's Ctrl +/-/0): the diagram, the side panel and its text.
  float zoom() const { return zoom_; }
  void set_zoom(float z) { zoom_ = std::clamp(z, 0.25f, 4.f); }
  // Said in the pane's header instead of "no violation (...)", e.g. by a
  // game in progress; "" for the trace's own end.
  void set_status(std::string s) { status_ = std::move(s); }
  int last_step() const { return static_cast<int>(trace_.steps.size()) - 1; }
  const trace::Trace& trace() const { return trace_; }
  const std::string& label() const { return label_; }

  // Where the last frame drew the diagram's parts, in window pixels (for
  // the screenshot test): lanes' header bands and the violation flag.
  nlohmann::json LayoutJson() const;

 private:
  void DrawDiagram(ImDrawList* dl, ImVec2 origin);
  void DrawStatePanel();
  void DrawSourcePanel();

  std::string label_;
  trace::Trace trace_;
  trace::Diagram diagram_;
  std::map<std::string, std::string> sources_;  // the algorithms' text (trace::SourcesOf)
  int cursor_ = 0;
  int scroll_to_cursor_ = 0;                // frames left to bring the cursor's step into view
  ImVec2 origin_{0, 0};                     // the diagram's (0,0) on screen, last frame
  ImVec2 clip_min_{0, 0}, clip_max_{0, 0};  // the visible part of the canvas
  double header_shift_ = 0;
  trace::Box cursor_mark_, cursor_number_;  // in diagram pixels, last frame
  struct Panel {
    ImVec2 pos, size;
    float font_size = 0;
  } state_panel_;  // where the side panel was, last frame
  float zoom_ = 1;
  std::string status_;  // how far down the sticky headers are drawn, last frame
};

}  // namespace lockstep::viewer
