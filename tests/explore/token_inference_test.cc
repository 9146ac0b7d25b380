// Symmetry renames random tokens with their clients only if no client reads
// one back. A Lua client whose scenario does not say is assumed not to, and
// its run checks it: the search then gets the reduction the declaration
// would give, and a client that does read one back is searched again
// without it, the report saying why.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/explore.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

// The shipped scenario with its clients running the Lua port `file`,
// saying `never_reads_tokens` if given.
json WithPort(const char* scenario, const char* file, std::optional<bool> never_reads_tokens) {
  json doc = json::parse(testing::ReadText(testing::ScenarioPath(scenario)));
  for (json& c : doc["clients"]) {
    c["algorithm"] = {{"lua", testing::SourceDir() + "/examples/lua/" + file}};
    if (never_reads_tokens) c["algorithm"]["never_reads_tokens"] = *never_reads_tokens;
  }
  return doc;
}

run::ExploreResult Explore(const json& doc) {
  return run::Explore(scenario::LoadScenario(doc, "s.json"));
}

TEST_CASE("a Lua client that never reads a token back gets it inferred, and its tokens renamed",
          "[explore][symmetry]") {
  const run::ExploreResult said =
      Explore(WithPort("set-px-script-safe.json", "set_px_script.lua", true));
  const run::ExploreResult unsaid =
      Explore(WithPort("set-px-script-safe.json", "set_px_script.lua", std::nullopt));
  const run::ExploreResult refused =
      Explore(WithPort("set-px-script-safe.json", "set_px_script.lua", false));
  CHECK(said.tokens_renamed);
  CHECK(said.tokens_inferred.empty());
  CHECK(unsaid.tokens_renamed);
  CHECK(unsaid.tokens_inferred == std::vector<std::string>{"C1", "C2", "C3"});
  CHECK(unsaid.search.stats.states == said.search.stats.states);
  // Said false, it is not assumed: no renaming, more states.
  CHECK_FALSE(refused.tokens_renamed);
  CHECK(refused.search.stats.states > said.search.stats.states);
  CHECK(unsaid.safe());

  testing::TempDir tmp;
  const std::string file = tmp.Write(
      "s.json", WithPort("set-px-script-safe.json", "set_px_script.lua", std::nullopt).dump());
  const testing::ProcessResult r = testing::RunLockstep({"explore", file});
  INFO(r.out << r.err);
  CHECK(Has(r.out,
            "C1,C2,C3 interchangeable, their random tokens renamed with them (no reply "
            "C1, C2 and C3 read held one, as their runs checked)"));
}

TEST_CASE("a Lua client that reads its token back is searched again without renaming",
          "[explore][symmetry]") {
  // GET, compare in the client, DEL: the GET's reply is its token.
  const run::ExploreResult unsaid =
      Explore(WithPort("set-px-get-del-stall.json", "get_compare_del.lua", std::nullopt));
  const run::ExploreResult refused =
      Explore(WithPort("set-px-get-del-stall.json", "get_compare_del.lua", false));
  CHECK_FALSE(unsaid.tokens_renamed);
  CHECK(unsaid.tokens_inferred.empty());
  CHECK(Has(unsaid.tokens_read_back, "a reply it read holds a random token"));
  CHECK(unsaid.search.verdict == refused.search.verdict);
  CHECK(unsaid.search.stats.states == refused.search.stats.states);
  REQUIRE(unsaid.counterexample);
  CHECK(unsaid.counterexample->trace.schedule == refused.counterexample->trace.schedule);

  testing::TempDir tmp;
  const std::string file = tmp.Write(
      "s.json", WithPort("set-px-get-del-stall.json", "get_compare_del.lua", std::nullopt).dump());
  const testing::ProcessResult r =
      testing::RunLockstep({"explore", file, "--json", "--out", tmp.path().string()});
  INFO(r.out << r.err);
  const json report = json::parse(r.out);
  CHECK(report["reductions"]["tokens_renamed"] == false);
  CHECK(Has(report["reductions"]["tokens_read_back"].get<std::string>(), "get_compare_del.lua:"));
}

TEST_CASE("a counterexample found with inferred renaming replays byte for byte",
          "[explore][symmetry]") {
  testing::TempDir tmp;
  const std::string file = tmp.Write(
      "s.json", WithPort("set-px-script-stall.json", "set_px_script.lua", std::nullopt).dump());
  const testing::ProcessResult r =
      testing::RunLockstep({"explore", file, "--json", "--out", tmp.path().string()});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);
  const json report = json::parse(r.out);
  CHECK(report["reductions"]["tokens_renamed"] == true);
  const testing::ProcessResult replay =
      testing::RunLockstep({"replay", report["counterexample"]["file"]});
  INFO(replay.out << replay.err);
  CHECK(replay.exit_code == 1);
  CHECK(Has(replay.out, "replay reproduces the trace byte for byte"));
}

}  // namespace
}  // namespace lockstep
