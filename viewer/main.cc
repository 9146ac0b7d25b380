// lockstep-viewer: pictures of races. Opens traces as space-time diagrams
// (two side by side to compare), or plays a scenario with the user as the
// scheduler (--play). --screenshot renders one frame to a PNG, prints where
// the diagram's parts were drawn as JSON, and exits: how the tests look at
// the window.
#include <imgui.h>

#include <cfloat>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include "sim/base/input_error.h"
#include "sim/base/printable.h"
#include "sim/run/output_file.h"
#include "sim/run/version.h"
#include "sim/scenario/program_trust.h"
#include "viewer/png_writer.h"
#include "viewer/viewer_app.h"

namespace {

constexpr int kExitBadInput = 2;

void GlfwError(int code, const char* text) {
  std::fprintf(stderr, "lockstep-viewer: GLFW error %d: %s\n", code, text);
}

// Reads the back buffer (what the frame just drew), top row first.
std::vector<uint8_t> ReadFramebuffer(int w, int h) {
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<uint8_t> flipped(pixels.size());
  const size_t row = static_cast<size_t>(w) * 3;
  for (int y = 0; y < h; ++y) {
    std::copy_n(pixels.begin() + static_cast<std::ptrdiff_t>(row * static_cast<size_t>(h - 1 - y)),
                row, flipped.begin() + static_cast<std::ptrdiff_t>(row * static_cast<size_t>(y)));
  }
  return flipped;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lockstep-viewer: traces as space-time diagrams, and the scheduler as a game"};
  app.set_version_flag("--version", lockstep::run::VersionText("lockstep-viewer"),
                       "Print the version and the commit");
  lockstep::viewer::ViewerOptions options;
  std::string screenshot;
  std::string moves;
  int width = 1280, height = 800;
  app.add_option("TRACE", options.traces,
                 "Traces (or scenarios with a schedule) to open; two are shown side by side");
  app.add_option("--play", options.play, "Play this scenario: you choose every step");
  app.add_option("--moves", moves, "With --play: make these choices first (\"C1,C2,tick\")");
  app.add_option("--screenshot", screenshot,
                 "Render one frame to this PNG, print the layout as JSON, and exit");
  app.add_option("--zoom", options.zoom,
                 "Start zoomed, for a projector: the diagrams, the side panels and their text "
                 "(Ctrl+= and Ctrl+- change it)")
      ->check(CLI::Range(0.25, 4.0));
  app.add_flag_callback(
      "--allow-programs", [] { lockstep::scenario::SetProgramsAllowed(true); },
      "Start the programs a scenario names (process clients): none start without this, "
      "LOCKSTEP_ALLOW_PROGRAMS=1, or `lockstep allow FILE`");
  app.add_option("--width", width, "Window width")->check(CLI::Range(320, 8192));
  app.add_option("--height", height, "Window height")->check(CLI::Range(240, 8192));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  if (!screenshot.empty()) {
    std::vector<std::string> inputs = options.traces;
    if (!options.play.empty()) inputs.push_back(options.play);
    try {
      lockstep::run::CheckOutput("--screenshot", screenshot, inputs);
    } catch (const lockstep::base::InputError& e) {
      std::cerr << "lockstep-viewer: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  for (size_t start = 0; !moves.empty() && start <= moves.size();) {
    size_t comma = moves.find(',', start);
    if (comma == std::string::npos) comma = moves.size();
    if (comma > start) options.moves.push_back(moves.substr(start, comma - start));
    start = comma + 1;
  }

  lockstep::viewer::ViewerApp viewer(options);
  for (const std::string& e : viewer.errors()) {
    std::cerr << "lockstep-viewer: " << lockstep::base::Printable(e, /*keep_newlines=*/true)
              << "\n";
  }
  if (!screenshot.empty() && !viewer.errors().empty()) return kExitBadInput;

  glfwSetErrorCallback(GlfwError);
  if (!glfwInit()) {
    std::cerr << "lockstep-viewer: cannot open a window (is there a display?)\n";
    return kExitBadInput;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_RESIZABLE, screenshot.empty() ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, "lockstep-viewer", nullptr, nullptr);
  if (!window) {
    std::cerr << "lockstep-viewer: cannot create an OpenGL 3.0 window\n";
    glfwTerminate();
    return kExitBadInput;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the user's folder
  ImGui::StyleColorsLight();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 130");

  // A screenshot waits a few frames: ImGui sizes some windows from the
  // previous frame's contents.
  int frames_left = 4;
  int code = 0;
  while (!glfwWindowShouldClose(window)) {
    if (screenshot.empty()) {
      glfwWaitEventsTimeout(0.5);
    } else {
      glfwPollEvents();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // A screenshot shows the window as laid out, not where the pointer
    // happens to be (no hover, no tooltip).
    if (!screenshot.empty()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    ImGui::NewFrame();
    viewer.Frame();
    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.94f, 0.94f, 0.94f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (!screenshot.empty() && --frames_left == 0) {
      try {
        lockstep::viewer::WritePng(screenshot, fb_w, fb_h, ReadFramebuffer(fb_w, fb_h));
        nlohmann::json layout = viewer.LayoutJson();
        layout["framebuffer"] = {fb_w, fb_h};
        layout["png"] = screenshot;
        std::cout << layout.dump(2) << "\n";
      } catch (const lockstep::base::InputError& e) {
        std::cerr << "lockstep-viewer: " << e.what() << "\n";
        code = kExitBadInput;
      }
      break;
    }
    glfwSwapBuffers(window);
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return code;
}
