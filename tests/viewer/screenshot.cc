// The viewer, looked at: it renders the documented race under a virtual X
// server (xvfb-run, Mesa's software OpenGL) to a PNG, and the picture is
// checked against the layout the viewer printed: not blank, one header
// band per lane, the violation marker's colour at the violating step.
#include <png.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include <catch2/catch.hpp>
#include <sys/wait.h>

#include "sim/run/runner.h"
#include "sim/trace/diagram.h"
#include "sim/trace/json_reader.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  uint32_t At(int x, int y) const {
    const size_t i =
        (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3;
    return (uint32_t{rgb[i]} << 16) | (uint32_t{rgb[i + 1]} << 8) | rgb[i + 2];
  }
};

Image ReadPng(const std::string& path) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return out;
  image.format = PNG_FORMAT_RGB;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) return {};
  return out;
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= p.size();) {
    size_t colon = p.find(':', start);
    if (colon == std::string::npos) colon = p.size();
    if (access((p.substr(start, colon - start) + "/" + program).c_str(), X_OK) == 0) return true;
    start = colon + 1;
  }
  return false;
}

// Runs the viewer under xvfb-run with software OpenGL; returns its output.
testing::ProcessResult RunViewer(const std::vector<std::string>& args) {
  testing::TempDir tmp;
  std::string out = tmp.File("stdout"), err = tmp.File("stderr");
  std::vector<std::string> argv = {"xvfb-run", "-a", "-s", "-screen 0 1920x1200x24",
                                   LOCKSTEP_VIEWER_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::fflush(nullptr);  // else the child writes our buffered output again
  pid_t pid = fork();
  if (pid == 0) {
    setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);
    // Under AddressSanitizer (.ci/test) Mesa's software driver, loaded and
    // unloaded by libGL, leaves 240 bytes behind that LeakSanitizer reports
    // from an unloaded ("<unknown module>") library, where no suppression can
    // name it. Leak checking is off for the viewer's process only; its other
    // checks stay on, and the play mode's code is leak-checked without a
    // window (play_mode.cc). A later option wins, so appending is enough.
    if (const char* asan = std::getenv("ASAN_OPTIONS")) {
      setenv("ASAN_OPTIONS", (std::string(asan) + ":detect_leaks=0").c_str(), 1);
    }
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    execvp("xvfb-run", cargv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  testing::ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = testing::ReadText(out);
  r.err = testing::ReadText(err);
  return r;
}

// Pixels of `colour` inside [x, x+w) x [y, y+h).
int Count(const Image& img, uint32_t colour, const nlohmann::json& box) {
  int n = 0;
  const int x0 = box[0], y0 = box[1], w = box[2], h = box[3];
  for (int y = std::max(0, y0); y < std::min(img.height, y0 + h); ++y) {
    for (int x = std::max(0, x0); x < std::min(img.width, x0 + w); ++x) n += img.At(x, y) == colour;
  }
  return n;
}

struct Shot {
  nlohmann::json layout;
  Image image;
};

// A projector's size by default: the race with its reasons fits without
// scrolling.
Shot Screenshot(const testing::TempDir& tmp, const std::vector<std::string>& args, int width = 1920,
                int height = 1200) {
  REQUIRE(OnPath("xvfb-run"));  // Debian's xvfb (see .ci/install-deps)
  const std::string png = tmp.File("shot.png");
  std::vector<std::string> all = {"--screenshot",        png,        "--width",
                                  std::to_string(width), "--height", std::to_string(height)};
  all.insert(all.end(), args.begin(), args.end());
  testing::ProcessResult r = RunViewer(all);
  INFO("viewer stdout: " << r.out << "\nviewer stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  Shot s;
  s.layout = json::Parse(r.out);
  s.image = ReadPng(png);
  REQUIRE(s.image.width == width);
  REQUIRE(s.image.height == height);
  return s;
}

// The checks both screenshots share: the documented race's diagram with
// three lanes and the marker at step 8.
void CheckDocsRacePicture(const Shot& s) {
  const Image& img = s.image;
  std::set<uint32_t> colours;
  for (int y = 0; y < img.height; y += 2) {
    for (int x = 0; x < img.width; x += 2) colours.insert(img.At(x, y));
  }
  INFO("distinct colours: " << colours.size());
  CHECK(colours.size() > 40);  // not blank: text, boxes, bars, bands

  const nlohmann::json& pane = s.layout["panes"][0];
  // Lanes: one header band per client, in the header colour, and exactly
  // that many bands along a line through them.
  REQUIRE(pane["lanes"].size() == 3);
  const int band_y = static_cast<int>(pane["lanes"][0]["header"][1]) + 2;
  int bands = 0;
  bool in_band = false;
  for (int x = 0; x < img.width; ++x) {
    const bool here = img.At(x, band_y) == trace::palette::kLaneHeader;
    if (here && !in_band) ++bands;
    in_band = here;
  }
  CHECK(bands == 3);
  for (const auto& lane : pane["lanes"]) {
    INFO("lane " << lane["name"]);
    CHECK(Count(img, trace::palette::kLaneHeader, lane["header"]) >
          static_cast<int>(lane["header"][2]) * static_cast<int>(lane["header"][3]) / 2);
  }

  // The marker, in its own colour, in the violating step's row, and that
  // colour in no other step's row.
  REQUIRE(pane["marker"]["step"] == 8);
  const nlohmann::json& flag = pane["marker"]["flag"];
  const int area = static_cast<int>(flag[2]) * static_cast<int>(flag[3]);
  CHECK(Count(img, trace::palette::kViolation, flag) == area);
  const nlohmann::json& row8 = pane["rows"][8];
  CHECK(static_cast<int>(flag[1]) >= static_cast<int>(row8[1]));
  CHECK(static_cast<int>(flag[1]) + static_cast<int>(flag[3]) <=
        static_cast<int>(row8[1]) + static_cast<int>(row8[3]));
  for (int i = 0; i < 8; ++i) {
    INFO("row " << i);
    CHECK(Count(img, trace::palette::kViolation, pane["rows"][i]) == 0);
  }
}

TEST_CASE("the viewer draws the documented race with its lanes and the violation marked") {
  testing::TempDir tmp;
  trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const std::string trace_path = tmp.Write("race.json", trace::ToJsonText(t));
  Shot s = Screenshot(tmp, {trace_path});
  CHECK(s.layout["mode"] == "traces");
  CheckDocsRacePicture(s);
  if (const char* keep = std::getenv("LOCKSTEP_KEEP_SCREENSHOT")) {
    std::filesystem::copy_file(tmp.File("shot.png"), keep,
                               std::filesystem::copy_options::overwrite_existing);
  }
}

TEST_CASE("the viewer in play mode shows the race the player made") {
  testing::TempDir tmp;
  Shot s = Screenshot(tmp, {"--play", testing::ScenarioPath("setnx-docs-race.json"), "--moves",
                            "C1,C2,C1,C2,C1,C1,C2,C2"});
  CHECK(s.layout["mode"] == "play");
  CHECK(s.layout["status"].get<std::string>().find(
            "mutual_exclusion broken at step 8 by C1 and C2") != std::string::npos);
  CheckDocsRacePicture(s);
}

TEST_CASE(
    "the viewer shows the acting lane of five, zooms its panels, and keeps the story closed") {
  // Five clients on a laptop's screen: C5's lane is right of what fits.
  testing::TempDir tmp;
  const std::vector<std::string> game = {"--play", testing::ScenarioPath("setnx-naive.json"),
                                         "--moves", "C1,C2,C3,C4,C5"};
  std::vector<std::string> zoomed = game;
  zoomed.insert(zoomed.end(), {"--zoom", "1.5"});
  const Shot plain = Screenshot(tmp, game, 1280, 800);
  const Shot big = Screenshot(tmp, zoomed, 1280, 800);
  for (const Shot* s : {&plain, &big}) {
    const nlohmann::json& pane = s->layout["panes"][0];
    INFO("zoom " << s->layout["zoom"] << ", pane " << pane.dump());
    // The step at the cursor is C5's, and its box is in view.
    REQUIRE(pane["cursor_step"]["lane"] == "C5");
    const nlohmann::json &box = pane["cursor_step"]["box"], &seen = pane["visible"];
    CHECK(box[0].get<int>() >= seen[0].get<int>());
    CHECK(box[0].get<int>() + box[2].get<int>() <= seen[0].get<int>() + seen[2].get<int>());
    // The description tells the answer: closed until the player opens it.
    CHECK(s->layout["play_panel"]["about_open"] == false);
    // The cursor's triangle leaves the step number alone.
    const nlohmann::json &mark = pane["cursor_mark"], &number = pane["cursor_number"];
    CHECK(mark[0].get<int>() + mark[2].get<int>() <= number[0].get<int>());
  }
  // Zoomed for a projector: the panels and their text grow with the diagram.
  CHECK(big.layout["zoom"] == 1.5);
  const nlohmann::json &p1 = plain.layout["play_panel"], &p2 = big.layout["play_panel"];
  CHECK(p2["width"].get<double>() == Approx(1.5 * p1["width"].get<double>()));
  CHECK(p2["font_size"].get<double>() == Approx(1.5 * p1["font_size"].get<double>()));
  const nlohmann::json &s1 = plain.layout["panes"][0]["state_panel"],
                       &s2 = big.layout["panes"][0]["state_panel"];
  CHECK(s2["font_size"].get<double>() == Approx(1.5 * s1["font_size"].get<double>()));
  CHECK(s2["box"][3].get<double>() == Approx(1.5 * s1["box"][3].get<double>()).margin(2));
}

TEST_CASE("a screenshot over its own input is refused before anything is drawn") {
  testing::TempDir tmp;
  trace::Trace t = run::ReplaySchedule(
      scenario::LoadScenarioFile(testing::ScenarioPath("setnx-docs-race.json")));
  const std::string text = trace::ToJsonText(t);
  const std::string trace_path = tmp.Write("race.json", text);
  std::filesystem::create_symlink(trace_path, tmp.File("link.png"));
  testing::ProcessResult r = RunViewer({"--screenshot", tmp.File("link.png"), trace_path});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "lockstep-viewer: --screenshot " + tmp.File("link.png") + ": is the input " +
                     trace_path + " (the same file); refusing to overwrite it\n");
  CHECK(testing::ReadText(trace_path) == text);
}

TEST_CASE("the viewer refuses a bad trace, naming the file and the place") {
  testing::TempDir tmp;
  const std::string bad = tmp.Write("bad.json", R"({"format": "lockstep-trace/1", "seed": "x"})");
  testing::ProcessResult r = RunViewer({"--screenshot", tmp.File("shot.png"), bad});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("lockstep-viewer: " + bad + ": at /") != std::string::npos);
}

TEST_CASE("the viewer starts no program a scenario names without --allow-programs") {
  testing::TempDir tmp;
  const std::string marker = tmp.File("ran");
  nlohmann::json scenario = {
      {"clients",
       {{{"name", "C1"}, {"algorithm", {{"process", {{"command", {"/usr/bin/touch", marker}}}}}}}}},
      {"lock", {{"key", "k"}, {"ttl", 2}}},
      {"clock", {{"start", 0}, {"horizon", 2}}}};
  const std::string play = tmp.Write("play.json", scenario.dump());
  scenario["schedule"] = {"C1"};
  const std::string scheduled = tmp.Write("scheduled.json", scenario.dump());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--play", play}, std::vector<std::string>{scheduled}}) {
    std::vector<std::string> shot = {"--screenshot", tmp.File("shot.png")};
    shot.insert(shot.end(), args.begin(), args.end());
    testing::ProcessResult r = RunViewer(shot);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("C1 would run /usr/bin/touch") != std::string::npos);
    CHECK(r.err.find("--allow-programs") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(marker));
  }
  // Allowed, it starts: the marker is what the refusals did not leave.
  testing::ProcessResult r =
      RunViewer({"--allow-programs", "--screenshot", tmp.File("shot.png"), "--play", play});
  INFO(r.err);
  CHECK(std::filesystem::exists(marker));
}

TEST_CASE("the viewer prints its version and the commit built") {
  testing::ProcessResult r = RunViewer({"--version"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("lockstep-viewer ", 0) == 0);
  CHECK(r.out.find(" (commit ") != std::string::npos);
}

}  // namespace
}  // namespace lockstep
