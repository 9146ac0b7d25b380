#include "viewer/viewer_app.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <GLFW/glfw3.h>

#include "sim/base/input_error.h"
#include "sim/run/trace_file.h"
#include "sim/trace/diagram.h"

namespace lockstep::viewer {
namespace {

void CopyTo(char* buf, size_t size, const std::string& s) {
  std::snprintf(buf, size, "%s", s.c_str());
}

// JSON files a newcomer may want to open: scenarios and saved traces.
std::vector<std::string> OfferedFiles() {
  std::vector<std::string> out;
  for (const char* dir : {"scenarios", "counterexamples", "."}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::string> here;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json") here.push_back(e.path().lexically_normal().string());
    }
    std::sort(here.begin(), here.end());
    out.insert(out.end(), here.begin(), here.end());
  }
  return out;
}

}  // namespace

ViewerApp::ViewerApp(const ViewerOptions& options)
    : zoom_(std::clamp(options.zoom, kMinZoom, kMaxZoom)), files_(OfferedFiles()) {
  for (const std::string& t : options.traces) Open(t, /*beside=*/true);
  if (!options.play.empty()) {
    StartPlay(options.play);
    for (const std::string& m : options.moves) {
      std::string why;
      if (play_ && !play_->Choose(m, &why)) errors_.push_back("move " + m + ": " + why);
    }
    if (play_) AfterMove();
  }
  if (!options.traces.empty()) CopyTo(path_, sizeof path_, options.traces.back());
  if (!options.play.empty()) CopyTo(path_, sizeof path_, options.play);
}

void ViewerApp::Open(const std::string& path, bool beside) {
  std::optional<trace::Trace> t;
  try {
    t = run::LoadTraceFile(path);
  } catch (const base::InputError& e) {
    errors_.push_back(e.what());
    error_shown_ = e.what();
    return;
  }
  error_shown_.clear();
  auto pane = std::make_unique<TracePane>(path, std::move(*t));
  if (play_) {
    play_.reset();
    panes_.clear();
  }
  pane->set_zoom(zoom_);
  if (beside || panes_.empty()) {
    panes_.push_back(std::move(pane));
    active_ = static_cast<int>(panes_.size()) - 1;
  } else {
    panes_[static_cast<size_t>(active_)] = std::move(pane);
  }
}

void ViewerApp::StartPlay(const std::string& path) {
  try {
    play_ = std::make_unique<PlaySession>(PlaySession::FromFile(path));
  } catch (const base::InputError& e) {  // a ScenarioError, or programs not allowed
    errors_.push_back(e.what());
    error_shown_ = e.what();
    return;
  }
  error_shown_.clear();
  panes_.clear();
  panes_.push_back(std::make_unique<TracePane>("game: " + play_->scenario().name, play_->trace()));
  panes_.front()->set_zoom(zoom_);
  active_ = 0;
  hint_.reset();
  play_message_.clear();
  CopyTo(save_path_, sizeof save_path_, play_->scenario().name + "-game.json");
}

void ViewerApp::AfterMove() {
  hint_.reset();
  panes_.front()->SetTrace(play_->trace());
  // The game's trace ends where the player stopped, not "schedule finished".
  panes_.front()->set_status(play_->over()
                                 ? "game over: nothing left to do"
                                 : "your move (step " + std::to_string(play_->steps() + 1) + ")");
}

// Keys for the game: 1-8 run that client's next step, t ticks, u or Ctrl+Z
// undoes, h asks for the hint. ImGui 1.86 reads keys by GLFW's codes.
bool ViewerApp::PlayKeys() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || !play_) return false;
  auto key = [](int glfw_key) { return ImGui::IsKeyPressed(glfw_key, false); };
  auto choose = [&](auto matches) {
    for (const Choice& c : play_->choices()) {
      if (matches(c.action)) {
        std::string why;
        if (!play_->Choose(c.action, &why)) play_message_ = why;
        return true;
      }
    }
    return false;
  };
  if (!io.KeyCtrl) {
    for (int i = 0; i < 8; ++i) {
      if (key(GLFW_KEY_1 + i) || key(GLFW_KEY_KP_1 + i)) {
        return choose([i](const world::Action& a) {
          return a.kind == world::Action::Kind::kStep && a.client == i && a.arg_age == 0;
        });
      }
    }
    if (key(GLFW_KEY_T)) {
      return choose([](const world::Action& a) { return a.kind == world::Action::Kind::kTick; });
    }
    if (key(GLFW_KEY_H) && !play_->over()) hint_ = play_->AskHint();
  }
  if (key(GLFW_KEY_U) || (io.KeyCtrl && key(GLFW_KEY_Z))) return play_->Undo();
  return false;
}

void ViewerApp::DrawToolbar() {
  ImGui::SetNextItemWidth(360);
  ImGui::InputTextWithHint("##path", "trace or scenario file", path_, sizeof path_);
  ImGui::SameLine();
  if (ImGui::BeginCombo("##files", "files", ImGuiComboFlags_NoPreview)) {
    for (const std::string& f : files_) {
      if (ImGui::Selectable(f.c_str())) CopyTo(path_, sizeof path_, f);
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Open")) Open(path_, /*beside=*/false);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Replace the active trace");
  ImGui::SameLine();
  if (ImGui::Button("Open beside")) Open(path_, /*beside=*/true);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show it next to the others, to compare");
  ImGui::SameLine();
  if (ImGui::Button("Play")) StartPlay(path_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Be the scheduler: play this scenario step by step");
  if (!play_ && panes_.size() > 1) {
    ImGui::SameLine();
    ImGui::Checkbox("link cursors", &link_cursors_);
    ImGui::SameLine();
    if (ImGui::Button("Close active")) {
      panes_.erase(panes_.begin() + active_);
      active_ = std::max(0, active_ - 1);
    }
  }
  if (!error_shown_.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(Col4(trace::palette::kViolation), "%s", error_shown_.c_str());
    ImGui::PopTextWrapPos();
  }
}

// Ctrl and = (or +) zooms in, Ctrl and - out, Ctrl and 0 back to 100 %:
// every pane and side panel at once. ImGui 1.86 reads keys by GLFW's codes.
void ViewerApp::ZoomKeys() {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.KeyCtrl || io.WantTextInput) return;
  auto key = [](int glfw_key) { return ImGui::IsKeyPressed(glfw_key); };
  float zoom = zoom_;
  if (key(GLFW_KEY_EQUAL) || key(GLFW_KEY_KP_ADD)) zoom *= kZoomStep;
  if (key(GLFW_KEY_MINUS) || key(GLFW_KEY_KP_SUBTRACT)) zoom /= kZoomStep;
  if (key(GLFW_KEY_0) || key(GLFW_KEY_KP_0)) zoom = 1;
  SetZoom(zoom);
}

void ViewerApp::SetZoom(float zoom) {
  zoom_ = std::clamp(zoom, kMinZoom, kMaxZoom);
  for (auto& p : panes_) p->set_zoom(zoom_);
}

void ViewerApp::DrawPlayPanel(float width, float height) {
  ImGui::BeginChild("play", ImVec2(width, height), true);
  ImGui::SetWindowFontScale(zoom_);  // readable from the back of a room
  play_panel_font_ = ImGui::GetFontSize();
  const scenario::Scenario& s = play_->scenario();
  ImGui::Text("Be the scheduler: %s", s.name.c_str());
  // Closed at first: the description tells the answer the player looks for.
  about_open_ = ImGui::CollapsingHeader("About this scenario");
  if (about_open_) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(s.description.c_str());
    ImGui::TextDisabled("expected: %s; %s; crashes allowed: %d", s.expect.Text().c_str(),
                        world::HorizonText(s.world.horizon).c_str(), s.world.faults.crash);
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  ImGui::PushTextWrapPos(0);
  if (play_->violation()) {
    ImGui::PushStyleColor(ImGuiCol_Text, Col4(trace::palette::kViolation));
    ImGui::TextUnformatted("You broke the lock.");
    ImGui::TextUnformatted(play_->Status().c_str());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextUnformatted(play_->Status().c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::Spacing();

  bool moved = PlayKeys();
  for (size_t i = 0; i < play_->choices().size() && !moved; ++i) {
    const Choice& c = play_->choices()[i];
    ImGui::PushID(static_cast<int>(i));
    // A label too long for the panel goes on two lines, never cut.
    std::string label = c.text + ": " + c.preview;
    if (ImGui::CalcTextSize(label.c_str()).x > ImGui::GetContentRegionAvail().x - 12) {
      label = c.text + "\n" + c.preview;
    }
    if (ImGui::Button(label.c_str(), ImVec2(-1, 0))) {
      std::string why;
      if (!play_->Choose(c.action, &why)) play_message_ = why;
      moved = true;
    }
    ImGui::PopID();
    if (moved) break;  // the choices changed
  }
  if (!play_->tick_blocked().empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("tick: %s", play_->tick_blocked().c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::TextDisabled("keys: 1-8 a client's step, t tick, u undo, h hint, Ctrl+= / Ctrl+- zoom");
  ImGui::Spacing();
  ImGui::BeginDisabled(play_->steps() == 0);
  if (ImGui::Button("Undo")) moved = play_->Undo();
  ImGui::SameLine();
  if (ImGui::Button("Restart")) {
    play_->Restart();
    moved = true;
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(play_->over());
  if (ImGui::Button("Hint")) hint_ = play_->AskHint();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Is a violation still reachable from here? (breadth-first search)");
  }
  if (moved) AfterMove();

  if (hint_) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(hint_->text.c_str());
    ImGui::PopTextWrapPos();
    if (!hint_->moves.empty()) {
      if (ImGui::Button("Play the next move of the hint")) {
        std::string why;
        if (play_->Choose(hint_->moves.front(), &why)) {
          Hint rest = PlaySession::AfterFirstMove(*hint_);
          AfterMove();
          if (!rest.moves.empty()) hint_ = rest;
        } else {
          play_message_ = why;
        }
      }
    }
  }

  ImGui::Separator();
  ImGui::SetNextItemWidth(-70);
  ImGui::InputText("##save", save_path_, sizeof save_path_);
  ImGui::SameLine();
  if (ImGui::Button("Save")) {
    try {
      play_->Save(save_path_);
      play_message_ =
          "saved " + std::string(save_path_) + " (replay it: lockstep replay " + save_path_ + ")";
    } catch (const base::InputError& e) {
      play_message_ = e.what();
    }
  }
  if (!play_message_.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(play_message_.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();
  std::string moves;
  for (const auto& m : play_->ScheduleText()) moves += (moves.empty() ? "" : " ") + m;
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("moves: %s", moves.empty() ? "(none yet)" : moves.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

void ViewerApp::Frame() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("lockstep-viewer", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus);
  DrawToolbar();
  ImGui::Separator();
  ZoomKeys();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  if (play_) {
    const float panel = std::min(kPlayPanelWidth * zoom_, avail.x / 2);
    play_panel_width_ = panel;
    DrawPlayPanel(panel, avail.y);
    ImGui::SameLine();
    panes_.front()->Draw("game", ImVec2(avail.x - panel - 8, avail.y), true, avail.x > 1500);
  } else if (panes_.empty()) {
    ImGui::TextWrapped(
        "Open a trace (lockstep replay FILE --trace-out T.json writes one) or a scenario with a "
        "schedule, or choose a scenario and press Play to be the scheduler.");
  } else {
    const int before = panes_[static_cast<size_t>(active_)]->cursor();
    const float w =
        (avail.x - 8 * static_cast<float>(panes_.size() - 1)) / static_cast<float>(panes_.size());
    for (size_t i = 0; i < panes_.size(); ++i) {
      if (i > 0) ImGui::SameLine();
      const bool active = static_cast<int>(i) == active_;
      std::string id = "pane" + std::to_string(i);
      if (panes_[i]->Draw(id.c_str(), ImVec2(w, avail.y), active, panes_.size() == 1)) {
        active_ = static_cast<int>(i);
      }
    }
    const int after = panes_[static_cast<size_t>(active_)]->cursor();
    if (link_cursors_ && after != before) {
      for (auto& p : panes_) p->set_cursor(after);
    }
  }
  // Ctrl and the wheel zoomed one pane: the others and the panels follow.
  for (const auto& p : panes_) {
    if (p->zoom() != zoom_) {
      SetZoom(p->zoom());
      break;
    }
  }
  ImGui::End();
}

nlohmann::json ViewerApp::LayoutJson() const {
  nlohmann::json panes = nlohmann::json::array();
  for (const auto& p : panes_) panes.push_back(p->LayoutJson());
  nlohmann::json j = {{"mode", play_ ? "play" : "traces"},
                      {"panes", panes},
                      {"zoom", zoom_},
                      {"status", play_ ? play_->Status() : ""}};
  if (play_) {
    j["play_panel"] = {
        {"width", play_panel_width_}, {"font_size", play_panel_font_}, {"about_open", about_open_}};
  }
  return j;
}

}  // namespace lockstep::viewer
