// A scenario's initial keyspace loads in O(n log n): 200,000 keys, given in
// the order that made a sorted insert per entry quadratic (each new key
// first), each with its own writer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"
#include "sim/world/model.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;

TEST_CASE("a scenario with 200,000 initial keys loads and starts", "[input]") {
  constexpr int kKeys = 200'000;
  json doc = json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
  doc.erase("schedule");
  json keyspace = json::array();
  for (int i = kKeys - 1; i >= 0; --i) {
    // Zero-padded, so that key order is number order: each key sorts first.
    char key[16];
    std::snprintf(key, sizeof key, "k%07d", i);
    keyspace.push_back(
        {{"key", key}, {"value", std::to_string(i)}, {"writer", "W" + std::to_string(i)}});
  }
  doc["keyspace"] = keyspace;

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

}  // namespace
}  // namespace lockstep
