// A scenario's initial keyspace loads in O(n log n): 200,000 keys, given in
// the order that made a sorted insert per entry quadratic (each new key
// first), each with its own writer; and the cost of loading counted in
// instructions, which grows with the keys as n log n does, not as n².
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"
#include "sim/world/model.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

// The documented race with `keys` initial keys, each key sorting before
// the ones given earlier, each with its own writer.
json WithKeys(int keys) {
  json doc = json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
  doc.erase("schedule");
  json keyspace = json::array();
  for (int i = keys - 1; i >= 0; --i) {
    // Zero-padded, so that key order is number order: each key sorts first.
    char key[16];
    std::snprintf(key, sizeof key, "k%07d", i);
    keyspace.push_back(
        {{"key", key}, {"value", std::to_string(i)}, {"writer", "W" + std::to_string(i)}});
  }
  doc["keyspace"] = keyspace;
  return doc;
}

// Release only: the sanitizers check the same load on smaller keyspaces.
TEST_CASE("a scenario with 200,000 initial keys loads and starts", "[input][sweep]") {
  constexpr int kKeys = 200'000;
  const json doc = WithKeys(kKeys);

  scenario::Scenario s = scenario::LoadScenario(doc, "big.json");
  world::Model model(s.world, /*use_forget_history=*/false);
  world::WorldState state = model.Initial();

  const kv::Keyspace& ks = state.servers[0].keyspace;
  REQUIRE(ks.size() == static_cast<size_t>(kKeys));
  CHECK(ks.entries().front().key == "k0000000");
  CHECK(ks.entries().back().key == "k0199999");
  REQUIRE(ks.Find("k0123456", 0) != nullptr);
  CHECK(ks.Find("k0123456", 0)->value == "123456");
  // Writers: the clients' names, then one per key, each key's own.
  CHECK(model.writer_names().size() == s.world.clients.size() + kKeys);
  const world::ValueGhost g = world::Model::GhostOf(state.servers[0], "k0123456");
  REQUIRE(g.writer >= 0);
  CHECK(model.writer_names()[static_cast<size_t>(g.writer)] == "W123456");
  CHECK(g.owner == g.writer);  // a lock in the initial keyspace is its writer's
}

// The instructions `lockstep replay` executes on the scenario with `keys`
// initial keys and no schedule (load, check, the initial state, its
// printout), as Valgrind's callgrind counts them: the same on every run
// and machine, whatever its speed.
long long LoadInstructions(const testing::TempDir& tmp, int keys) {
  json doc = WithKeys(keys);
  doc["schedule"] = json::array();
  const std::string file = tmp.Write("keys-" + std::to_string(keys) + ".json", doc.dump());
  const std::string valgrind = "/usr/bin/valgrind";  // Debian's; .ci/install-deps installs it
  INFO(valgrind << " is missing: .ci/install-deps installs it");
  REQUIRE(std::filesystem::exists(valgrind));
  const testing::ProcessResult r = testing::RunProgram(
      {valgrind, "--tool=callgrind", "--callgrind-out-file=" + tmp.File("callgrind.out"),
       LOCKSTEP_BINARY, "replay", file});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.err, m, std::regex("Collected : ([0-9]+)")));
  return std::stoll(m[1]);
}

TEST_CASE("loading initial keys costs n log n instructions and not n squared", "[sweep]") {
  testing::TempDir tmp;
  const long long none = LoadInstructions(tmp, 0);
  const long long some = LoadInstructions(tmp, 2'000) - none;
  const long long four_times = LoadInstructions(tmp, 8'000) - none;
  std::cout << "instructions for 2,000 keys " << some << ", for 8,000 " << four_times << "\n";
  // Four times the keys: about 4.1 times the instructions (measured; n log n
  // gives 4.7 at most), where a quadratic load gives 16.
  CHECK(four_times < 8 * some);
  CHECK(four_times > 3 * some);
}

}  // namespace
}  // namespace lockstep
