// A process client is searched as a built-in algorithm is: setnx_port.py,
// the built-ins setnx-naive and setnx-getset written as a Python program
// that speaks RESP and says its critical section, its loop heads
// (forget_history), its timestamp arguments (clock_plus) and that it draws
// no numbers of its own, gives the built-ins' verdicts, distinct states,
// transitions and shortest counterexamples, with the same clients
// interchangeable, in every mode of `explore` that drives a client.
// Release only: each search starts Python a hundred times or more.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

// `doc` with each client of setnx-naive or setnx-getset running the port.
json Ported(json doc) {
  for (json& c : doc["clients"]) {
    if (!c.contains("algorithm") || !c["algorithm"].is_string()) continue;
    if (std::optional<json> port = testing::SetnxPortFor(c["algorithm"])) c["algorithm"] = *port;
  }
  return doc;
}

json Explore(const testing::TempDir& dir, const std::string& file,
             const std::vector<std::string>& mode) {
  std::vector<std::string> args = {"explore", dir.File(file), "--allow-programs",
                                   "--json",  "--out",        dir.File("out")};
  args.insert(args.end(), mode.begin(), mode.end());
  const testing::ProcessResult r = testing::RunLockstep(args);
  INFO(file << " " << r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 1));
  return json::parse(r.out);
}

// The shipped scenario `name`, at `horizon` if given, searched in `mode`
// with the built-ins and with the port: both give the `verdict` expected.
void Compare(const std::string& name, std::optional<int> horizon,
             const std::vector<std::string>& mode, const std::string& verdict) {
  testing::TempDir dir;
  json doc = json::parse(testing::ReadText(testing::ScenarioPath(name + ".json")));
  doc.erase("schedule");
  if (horizon) doc["clock"]["horizon"] = *horizon;
  dir.Write("built-in.json", doc.dump(2));
  dir.Write("port.json", Ported(doc).dump(2));
  std::string shown = name;
  for (const std::string& m : mode) shown += " " + m;
  INFO(shown);
  const json built_in = Explore(dir, "built-in.json", mode);
  const json port = Explore(dir, "port.json", mode);
  CHECK(built_in["verdict"] == verdict);
  if (verdict == "safe") CHECK(built_in["vacuous"] == false);  // each enters in some schedule
  CHECK(port["verdict"] == built_in["verdict"]);
  CHECK(port.value("vacuous", false) == built_in.value("vacuous", false));
  CHECK(port["reductions"] == built_in["reductions"]);  // the same clients interchangeable
  // Two threads share the visited states: which reaches the violation
  // first, and so the counts, is their race; verdict and shortest
  // counterexample are not.
  const bool threads = std::find(mode.begin(), mode.end(), "--jobs") != mode.end();
  if (!threads) {
    CHECK(port["states"] == built_in["states"]);
    CHECK(port["transitions"] == built_in["transitions"]);
  }
  CHECK(built_in.contains("counterexample") == port.contains("counterexample"));
  if (built_in.contains("counterexample") && port.contains("counterexample")) {
    CHECK(port["counterexample"]["schedule"] == built_in["counterexample"]["schedule"]);
  }
}

TEST_CASE("the Python port of setnx-naive is the built-in in every mode of explore",
          "[process][sweep]") {
  // The documented race with timestamp arguments up to a tick old: the
  // scheduler ages the port's clock_plus arguments as the built-in's.
  // Every mode that drives a client differently; not --storage, which keeps
  // the fingerprints of the same states whatever client made them (each
  // storage is checked against exact storage in explore/storage_test.cc).
  const std::vector<std::vector<std::string>> modes = {{},
                                                       {"--no-cache"},
                                                       {"--no-symmetry"},
                                                       {"--no-por"},
                                                       {"--jobs", "2"},
                                                       {"--strategy", "bfs"},
                                                       {"--strategy", "distributed"}};
  for (const std::vector<std::string>& mode : modes) {
    std::vector<std::string> with_delay = mode;
    with_delay.insert(with_delay.end(), {"--max-arg-delay", "1"});
    Compare("setnx-docs-race", 11, with_delay, "violation");
  }
}

TEST_CASE("the Python port of setnx-getset and setnx-naive: a safe space, and release on leave",
          "[process][sweep]") {
  // SAFE, and each contender enters in some schedule (the vacuity check).
  Compare("getset-docs-fix", 12, {}, "safe");
  // Released in the step that leaves (lockstep:leave with a command).
  Compare("setnx-naive", std::nullopt, {"--clients", "2", "--strategy", "bfs"}, "violation");
}

}  // namespace
}  // namespace lockstep
