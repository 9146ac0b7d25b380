// A trace names the folder its programs run in relative to itself when both
// sit in the scenario's folder or the one lockstep runs in: the folder
// moved (or cloned elsewhere) whole, the trace still replays byte for byte,
// and it names no absolute path of the machine that wrote it. Saved outside
// both, it keeps the absolute folder, and replays on this machine.
#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Has;
using testing::RunLockstep;

// Takes the lock with one SETNX and ends.
constexpr const char* kOneSetnxClient =
    "import os, socket\n"
    "port = int(os.environ['LOCKSTEP_REDIS_PORTS'].split()[0])\n"
    "s = socket.create_connection(('127.0.0.1', port))\n"
    "s.sendall(b'*3\\r\\n$5\\r\\nSETNX\\r\\n$1\\r\\nk\\r\\n$1\\r\\n1\\r\\n')\n"
    "s.recv(64)\n";

// ROOT/project/{scenario.json, client/one_setnx.py}: the program runs in
// the scenario's subfolder client/.
std::string WriteProject(const testing::TempDir& root) {
  fs::create_directories(root.path() / "project" / "client");
  root.Write("project/client/one_setnx.py", kOneSetnxClient);
  const json doc = {
      {"name", "one-setnx"},
      {"clients",
       {{{"name", "C1"},
         {"may_never_enter", true},
         {"algorithm",
          {{"process", {{"command", {"/usr/bin/python3", "one_setnx.py"}}, {"cwd", "client"}}}}}}}},
      {"lock", {{"key", "k"}, {"ttl", 5}}},
      {"clock", {{"start", 0}, {"horizon", 2}}}};
  return root.Write("project/scenario.json", doc.dump(2));
}

std::string RecordedFolder(const std::string& trace_file) {
  const json t = json::parse(testing::ReadText(trace_file));
  return t["scenario"]["clients"][0]["algorithm"]["process"]["cwd"].get<std::string>();
}

TEST_CASE("a trace saved in its scenario's folder names its program's folder relatively",
          "[process]") {
  testing::TempDir root;
  const std::string scenario = WriteProject(root);
  const std::string trace = (root.path() / "project" / "traces" / "one.json").string();
  fs::create_directories(root.path() / "project" / "traces");
  const auto ran =
      RunLockstep({"run", scenario, "--seed", "1", "--trace-out", trace, "--allow-programs"});
  INFO(ran.err);
  REQUIRE(ran.exit_code == 0);
  CHECK(RecordedFolder(trace) == "../client");
  CHECK_FALSE(Has(testing::ReadText(trace), root.path().string()));

  // The project moved whole: the folder is taken from the trace's own.
  fs::rename(root.path() / "project", root.path() / "moved");
  const auto replayed = RunLockstep(
      {"replay", (root.path() / "moved" / "traces" / "one.json").string(), "--allow-programs"});
  INFO(replayed.out << replayed.err);
  CHECK(replayed.exit_code == 0);
  CHECK(Has(replayed.out, "replay reproduces the trace byte for byte"));
  // Written again elsewhere in the project, it names the folder from there.
  const std::string again = (root.path() / "moved" / "again.json").string();
  CHECK(RunLockstep({"replay", (root.path() / "moved" / "traces" / "one.json").string(),
                     "--trace-out", again, "--allow-programs"})
            .exit_code == 0);
  CHECK(RecordedFolder(again) == "client");
}

TEST_CASE("a trace saved outside its scenario's folder keeps the absolute folder", "[process]") {
  testing::TempDir root;
  const std::string scenario = WriteProject(root);
  fs::create_directories(root.path() / "elsewhere");
  const std::string trace = (root.path() / "elsewhere" / "one.json").string();
  REQUIRE(RunLockstep({"run", scenario, "--seed", "1", "--trace-out", trace, "--allow-programs"})
              .exit_code == 0);
  const std::string folder = (root.path() / "project" / "client").string();
  CHECK(RecordedFolder(trace) == folder);
  const auto to_stdout =
      RunLockstep({"run", scenario, "--seed", "1", "--trace-out", "-", "--allow-programs"});
  CHECK(Has(to_stdout.out, "\"cwd\": " + json(folder).dump()));
  const auto replayed = RunLockstep({"replay", trace, "--allow-programs"});
  INFO(replayed.out << replayed.err);
  CHECK(replayed.exit_code == 0);
  CHECK(Has(replayed.out, "replay reproduces the trace byte for byte"));
}

}  // namespace
}  // namespace lockstep
