// A scenario or a trace is data: no command starts the program it names
// without the user's say (--allow-programs, LOCKSTEP_ALLOW_PROGRAMS=1, or
// `lockstep allow FILE`), and each says exactly what it would start. The
// program here leaves a marker file, so that "not started" is seen.
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
using testing::TempDir;

// Marks that it ran, takes the lock with one SETNX and ends.
constexpr const char* kMarkingClient =
    "import os, socket\n"
    "open(os.environ['MARK'], 'a').write('ran\\n')\n"
    "port = int(os.environ['LOCKSTEP_REDIS_PORTS'].split()[0])\n"
    "s = socket.create_connection(('127.0.0.1', port))\n"
    "s.sendall(b'*3\\r\\n$5\\r\\nSETNX\\r\\n$1\\r\\nk\\r\\n$1\\r\\n1\\r\\n')\n"
    "s.recv(64)\n";

struct Files {
  TempDir dir;
  std::string marker = dir.File("ran");
  std::string scenario;
  json doc;
  Files() {
    dir.Write("client.py", kMarkingClient);
    doc = {
        {"name", "marker"},
        {"clients",
         {{{"name", "C1"},
           {"may_never_enter", true},
           {"algorithm",
            {{"process",
              {{"command", {"/usr/bin/python3", "client.py"}}, {"env", {{"MARK", marker}}}}}}}}}},
        {"lock", {{"key", "k"}, {"ttl", 5}}},
        {"clock", {{"start", 0}, {"horizon", 2}}}};
    scenario = dir.Write("scenario.json", doc.dump(2));
  }
  bool Ran() const { return fs::exists(marker); }
};

// The refusal names the program found, its argv, the folder and the
// environment the file adds, and the ways to allow it.
void CheckRefusal(const testing::ProcessResult& r, const Files& f) {
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err, "C1 would run /usr/bin/python3 with argv [\"/usr/bin/python3\",\"client.py\"]"));
  CHECK(Has(r.err, "in the folder " + f.dir.path().string()));
  CHECK(Has(r.err, "{\"MARK\":\"" + f.marker + "\"}"));
  CHECK(Has(r.err, "--allow-programs"));
  CHECK(Has(r.err, "lockstep allow"));
  CHECK_FALSE(f.Ran());
}

TEST_CASE("a scenario that names a program starts it only with the user's say", "[process]") {
  Files f;
  CheckRefusal(RunLockstep({"explore", f.scenario}), f);
  CheckRefusal(RunLockstep({"run", f.scenario, "--seed", "1"}), f);
  CheckRefusal(RunLockstep({"render", f.scenario, "--play-html", f.dir.File("game.html")}), f);
  CHECK_FALSE(fs::exists(f.dir.File("game.html")));
  const std::string levels = f.dir.Write(
      "levels.json", json{{"levels", {{{"scenario", "scenario.json"}, {"title", "t"}}}}}.dump());
  CheckRefusal(RunLockstep({"render", "--course", f.dir.File("course"), "--levels", levels}), f);
  CHECK_FALSE(fs::exists(f.dir.File("course")));
  // list describes it, and starts nothing.
  const auto listed = RunLockstep({"list", "--dir", f.dir.path().string()});
  CHECK(Has(listed.out, "starts programs"));
  CHECK_FALSE(f.Ran());

  // Allowed, it runs: the marker is what the refusals above did not leave.
  const auto allowed = RunLockstep({"explore", "--allow-programs", f.scenario});
  INFO(allowed.err);
  CHECK(allowed.exit_code == 0);
  CHECK(f.Ran());
}

TEST_CASE("a trace whose scenario names a program is shown as recorded, not replayed",
          "[process]") {
  Files f;
  const std::string trace = f.dir.File("trace.json");
  REQUIRE(RunLockstep({"run", "--allow-programs", f.scenario, "--seed", "1", "--trace-out", trace})
              .exit_code == 0);
  REQUIRE(f.Ran());
  fs::remove(f.marker);

  const auto shown = RunLockstep({"replay", trace});
  CheckRefusal(shown, f);
  CHECK(Has(shown.out, "SETNX k"));  // the recorded steps
  CHECK(Has(shown.err, "not replayed"));
  CHECK(RunLockstep({"render", trace, "--svg", f.dir.File("t.svg")}).exit_code == 0);
  CHECK(fs::exists(f.dir.File("t.svg")));
  CHECK_FALSE(f.Ran());

  // The same steps as a scenario's schedule: replaying it would start it.
  json scheduled = f.doc;
  scheduled["schedule"] = json::parse(testing::ReadText(trace))["schedule"];
  const std::string with_schedule = f.dir.Write("scheduled.json", scheduled.dump());
  CheckRefusal(RunLockstep({"replay", with_schedule}), f);
  CheckRefusal(RunLockstep({"render", with_schedule, "--svg", f.dir.File("s.svg")}), f);
  CHECK_FALSE(fs::exists(f.dir.File("s.svg")));

  // The variable for CI says the same as the flag.
  const auto replayed = testing::RunProgram(
      {"/usr/bin/env", "LOCKSTEP_ALLOW_PROGRAMS=1", testing::LockstepBinary(), "replay", trace});
  INFO(replayed.err);
  CHECK(replayed.exit_code == 0);
  CHECK(Has(replayed.out, "replay reproduces the trace byte for byte"));
  CHECK(f.Ran());
}

TEST_CASE("lockstep allow trusts exactly the programs a file names, and no other", "[process]") {
  Files f;
  const std::string config = "XDG_CONFIG_HOME=" + f.dir.File("config");
  const auto with_config = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", config, testing::LockstepBinary()});
    return testing::RunProgram(args);
  };
  const auto allowed = with_config({"allow", f.scenario});
  INFO(allowed.out << allowed.err);
  REQUIRE(allowed.exit_code == 0);
  CHECK(Has(allowed.out, "allowed: C1 would run /usr/bin/python3"));
  CHECK_FALSE(f.Ran());
  const std::string list = f.dir.File("config/lockstep/allowed-programs");
  REQUIRE(fs::exists(list));

  CHECK(with_config({"explore", f.scenario}).exit_code == 0);
  CHECK(f.Ran());
  fs::remove(f.marker);
  // Its trace starts the same program in the same folder: trusted too.
  const std::string trace = f.dir.File("trace.json");
  CHECK(with_config({"run", f.scenario, "--seed", "1", "--trace-out", trace}).exit_code == 0);
  CHECK(with_config({"replay", trace}).exit_code == 0);
  fs::remove(f.marker);

  // Another argument, another environment or another folder is asked again.
  json changed = f.doc;
  changed["clients"][0]["algorithm"]["process"]["command"].push_back("--other");
  const auto other = with_config({"explore", f.dir.Write("argv.json", changed.dump())});
  CHECK(other.exit_code == 2);
  CHECK(Has(other.err, "[\"/usr/bin/python3\",\"client.py\",\"--other\"]"));
  changed = f.doc;
  changed["clients"][0]["algorithm"]["process"]["env"]["EXTRA"] = "1";
  CHECK(with_config({"explore", f.dir.Write("env.json", changed.dump())}).exit_code == 2);
  fs::create_directory(f.dir.File("elsewhere"));
  changed = f.doc;
  changed["clients"][0]["algorithm"]["process"]["cwd"] = f.dir.path().string() + "/elsewhere";
  fs::copy_file(f.dir.File("client.py"), f.dir.File("elsewhere/client.py"));
  CHECK(with_config({"explore", f.dir.Write("cwd.json", changed.dump())}).exit_code == 2);
  CHECK_FALSE(f.Ran());
  // And the trust is the user's alone: without that list, nothing is trusted.
  CheckRefusal(RunLockstep({"explore", f.scenario}), f);
}

}  // namespace
}  // namespace lockstep
