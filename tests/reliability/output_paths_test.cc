// Where lockstep writes: devices, FIFOs, symlinks and standard output are
// written, never replaced; an output that is an input, an empty path or a
// kind of file that is never written is refused (exit 2) before any work;
// no trace is written that lockstep could not read back. Nothing here
// touches a file outside a temporary folder, even if the code were broken:
// devices are reached through a symlink made in that folder.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::RunLockstep;
using testing::TempDir;

std::string Race() { return testing::ScenarioPath("setnx-docs-race.json"); }

// The trace that `replay` writes for the race, as a regular file.
std::string RaceTrace(const TempDir& tmp) {
  std::string path = tmp.File("reference.json");
  REQUIRE(RunLockstep({"replay", Race(), "--trace-out", path}).exit_code == 1);
  return testing::ReadText(path);
}

mode_t TypeOf(const std::string& path, bool follow) {
  struct stat st;
  REQUIRE((follow ? stat(path.c_str(), &st) : lstat(path.c_str(), &st)) == 0);
  return st.st_mode & S_IFMT;
}

TEST_CASE("a symlink to a character device is written through, and stays a link", "[output]") {
  TempDir tmp;
  std::string link = tmp.File("null.json");
  fs::create_symlink("/dev/null", link);
  auto r = RunLockstep({"replay", Race(), "--trace-out", link});
  CHECK(r.exit_code == 1);
  CHECK(TypeOf(link, false) == S_IFLNK);
  CHECK(fs::read_symlink(link) == "/dev/null");
  CHECK(TypeOf("/dev/null", false) == S_IFCHR);
}

TEST_CASE("a FIFO is written directly, not replaced by a file", "[output]") {
  TempDir tmp;
  const std::string expected = RaceTrace(tmp);
  std::string fifo = tmp.File("trace.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // Both ends held open here: the trace (a few KiB) fits in the pipe's
  // buffer, so lockstep never waits for a reader, and nothing waits forever
  // if it never opens the FIFO.
  int read_end = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(read_end >= 0);
  int write_end = open(fifo.c_str(), O_WRONLY);
  REQUIRE(write_end >= 0);
  auto r = RunLockstep({"replay", Race(), "--trace-out", fifo});
  close(write_end);
  std::string got;
  char buffer[4096];
  for (ssize_t n; (n = read(read_end, buffer, sizeof buffer)) > 0;)
    got.append(buffer, static_cast<size_t>(n));
  close(read_end);
  CHECK(r.exit_code == 1);
  CHECK(got == expected);
  CHECK(TypeOf(fifo, false) == S_IFIFO);
}

TEST_CASE("the paths - and /dev/fd/1 are standard output, and the report then goes to stderr",
          "[output]") {
  TempDir tmp;
  const std::string expected = RaceTrace(tmp);
  for (const char* path : {"-", "/dev/fd/1"}) {
    INFO(path);
    auto r = RunLockstep({"replay", Race(), "--trace-out", path});
    CHECK(r.exit_code == 1);
    CHECK(r.out == expected);
    CHECK(r.err.find("trace written to " + std::string(path)) != std::string::npos);
  }
  auto r = RunLockstep({"render", Race(), "--svg", "-"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("<?xml", 0) == 0);
  CHECK(r.err == "wrote -\n");
}

TEST_CASE("a symlink to a regular file is followed: the target is replaced, the link kept",
          "[output]") {
  TempDir tmp;
  std::string target = tmp.Write("target.svg", "old");
  std::string link = tmp.File("link.svg");
  fs::create_symlink(target, link);
  auto r = RunLockstep({"render", Race(), "--svg", link});
  CHECK(r.exit_code == 0);
  CHECK(TypeOf(link, false) == S_IFLNK);
  CHECK(testing::ReadText(target).rfind("<?xml", 0) == 0);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(tmp.path())) files += !e.is_symlink();
  CHECK(files == 1);  // no temporary left beside the target
}

struct Refusal {
  const char* what;
  std::vector<std::string> args;  // "IN" is the input's path, "DIR" the temporary folder
  const char* message;            // expected in stderr
};

TEST_CASE("an output that is an input, empty, a directory or a dangling link is refused",
          "[output]") {
  const std::vector<Refusal> cases = {
      {"replay over its input",
       {"replay", "IN", "--trace-out", "IN"},
       "--trace-out IN: is the input IN (the same file); refusing to overwrite it"},
      {"run over a hard link of its input",
       {"run", "IN", "--seed", "3", "--trace-out", "DIR/hard.json"},
       "--trace-out DIR/hard.json: is the input IN (the same file)"},
      {"render over a symlink to its input",
       {"render", "IN", "--svg", "DIR/soft.json"},
       "--svg DIR/soft.json: is the input IN (the same file)"},
      {"explore saving its counterexample over its input",
       {"explore", "DIR/setnx-docs-race-mutual_exclusion-3clients.json", "--out", "DIR"},
       "--out DIR/setnx-docs-race-mutual_exclusion-3clients.json: is the input "
       "DIR/setnx-docs-race-mutual_exclusion-3clients.json (the same file)"},
      {"empty --trace-out",
       {"replay", "IN", "--trace-out", ""},
       "--trace-out: expected a path, got an empty one"},
      {"empty --out", {"explore", "IN", "--out", ""}, "--out: expected a path, got an empty one"},
      {"empty --svg", {"render", "IN", "--svg", ""}, "--svg: expected a path, got an empty one"},
      {"empty input", {"run", "", "--seed", "1"}, "expected a path, got an empty one"},
      {"a directory",
       {"replay", "IN", "--trace-out", "DIR"},
       "--trace-out DIR: is a directory; expected a regular file, a character device, a FIFO"},
      {"a dangling symlink",
       {"replay", "IN", "--trace-out", "DIR/dangling.json"},
       "--trace-out DIR/dangling.json: is a symlink to nothing"},
  };
  for (const Refusal& c : cases) {
    INFO(c.what);
    TempDir tmp;
    const std::string dir = tmp.path().string();
    const std::string original = testing::ReadText(Race());
    std::string in = tmp.Write("in.json", original);
    tmp.Write("setnx-docs-race-mutual_exclusion-3clients.json", original);
    fs::create_hard_link(in, tmp.File("hard.json"));
    fs::create_symlink(in, tmp.File("soft.json"));
    fs::create_symlink(tmp.File("nowhere/x.json"), tmp.File("dangling.json"));
    // One pass, left to right: a placeholder's text is never searched again,
    // so a temporary folder whose random name holds "IN" or "DIR" is only a
    // path (searching the result again once never ended on such a name).
    auto expand = [&](const std::string& s) {
      std::string out;
      for (size_t at = 0; at < s.size();) {
        if (s.compare(at, 3, "DIR") == 0) {
          out += dir;
          at += 3;
        } else if (s.compare(at, 2, "IN") == 0) {
          out += in;
          at += 2;
        } else {
          out += s[at++];
        }
      }
      return out;
    };
    std::vector<std::string> args;
    for (const auto& a : c.args) args.push_back(expand(a));
    auto r = RunLockstep(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(expand(c.message)) != std::string::npos);
    // lockstep's own refusals are one line (the option parser adds a hint).
    if (r.err.rfind("lockstep: ", 0) == 0) CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK(testing::ReadText(in) == original);
    CHECK(testing::ReadText(tmp.File("setnx-docs-race-mutual_exclusion-3clients.json")) ==
          original);
    size_t entries = 0;
    for (const auto& e : fs::directory_iterator(tmp.path())) entries += (void(e), 1);
    CHECK(entries == 5);  // nothing created
  }
}

TEST_CASE("lockstep writes no trace larger than it reads back: exit 3, nothing written",
          "[output]") {
  // Every step records the keyspace: 200 keys of 4 KiB make each step about
  // 800 KiB, so a run of about twenty steps passes the 16 MiB that replay reads.
  json s = json::parse(testing::ReadText(testing::ScenarioPath("set-px-script-safe.json")));
  for (int i = 0; i < 200; ++i) {
    s["keyspace"].push_back({{"key", "k" + std::to_string(i)}, {"value", std::string(4000, 'v')}});
  }
  TempDir tmp;
  std::string file = tmp.Write("wide.json", s.dump());
  std::string out = tmp.File("trace.json");
  auto r = RunLockstep({"run", file, "--seed", "1", "--trace-out", out});
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("bytes, more than the 16 MiB that lockstep reads: not written to " + out) !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace lockstep
