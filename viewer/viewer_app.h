// The viewer's window: traces side by side, or the play mode's game, with
// a toolbar to open more. Everything it shows comes from the trace layer
// (trace::Trace, trace::Layout); only the play mode reaches into the engine,
// through PlaySession.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "viewer/play_session.h"
#include "viewer/trace_pane.h"

namespace lockstep::viewer {

struct ViewerOptions {
  std::vector<std::string> traces;  // traces (or scenarios with a schedule) to open
  std::string play;                 // a scenario to play, if not empty
  std::vector<std::string> moves;   // play: choices to make first, in schedule form
  float zoom = 1;                   // the diagrams, the side panels and their text
};

class ViewerApp {
 public:
  explicit ViewerApp(const ViewerOptions& options);

  // Draws one frame of the interface. REQUIRES: inside an ImGui frame.
  void Frame();

  // Problems met while opening files or playing, for the terminal too.
  const std::vector<std::string>& errors() const { return errors_; }
  // Where the last frame drew each pane's diagram (see TracePane).
  nlohmann::json LayoutJson() const;

 private:
  void Open(const std::string& path, bool beside);
  void StartPlay(const std::string& path);
  void DrawToolbar();
  void DrawPlayPanel(float width, float height);
  void AfterMove();
  // The game's keys; true iff the game moved.
  bool PlayKeys();
  void ZoomKeys();
  void SetZoom(float zoom);

  static constexpr float kMinZoom = 0.25f, kMaxZoom = 4, kZoomStep = 1.25f;
  static constexpr float kPlayPanelWidth = 400;  // at zoom 1

  std::vector<std::unique_ptr<TracePane>> panes_;
  int active_ = 0;
  float zoom_ = 1;
  // The play panel as the last frame drew it, for LayoutJson.
  float play_panel_width_ = 0, play_panel_font_ = 0;
  bool about_open_ = false;
  bool link_cursors_ = true;
  std::unique_ptr<PlaySession> play_;
  std::optional<Hint> hint_;
  std::string play_message_;
  char path_[512] = {};
  char save_path_[512] = {};
  std::vector<std::string> files_;  // offered in the toolbar
  std::vector<std::string> errors_;
  std::string error_shown_;
};

}  // namespace lockstep::viewer
