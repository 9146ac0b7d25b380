// What a state fingerprint must tell apart: states with different futures.
#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "sim/world/random_draw.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// Two setnx-getset clients writing a resource, fenced or not; the property
// checked (mutual exclusion) reads no resource ghost state.
std::string Scenario(bool fenced) {
  return std::string(R"({"name":"resource-state",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"}],
    "clock":{"start":0,"horizon":3},
    "resource":{"fenced":)") +
         (fenced ? "true" : "false") + R"(},
    "properties":["mutual_exclusion"],"expect":"safe"})";
}

TEST_CASE("what a fenced resource accepted is part of the state, whatever the properties read") {
  for (bool fenced : {true, false}) {
    INFO("fenced " << fenced);
    testing::TempDir dir;
    const scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write("s.json", Scenario(fenced)));
    world::Model model(sc.world, /*use_forget_history=*/false);
    explore::Fingerprinter fp(model, /*symmetry=*/false, /*abstract=*/false,
                              explore::GhostOf(explore::MakeProperties(sc.properties)));
    const world::WorldState before = model.Initial();
    world::WorldState after = before;  // the resource accepted token 5
    after.resource_written = true;
    after.resource_max = 5;
    // Fenced, the resource now refuses tokens up to 5: another future.
    // Unfenced, it accepts every write either way: the same state.
    CHECK((fp.Of(before, nullptr, nullptr) == fp.Of(after, nullptr, nullptr)) == !fenced);
  }
}

// Two clients alike (the same Lua lock, tokens compared only at the
// server), so that symmetry may rename their tokens.
constexpr const char* kAlike = R"json({"name":"alike",
    "clients":[
      {"name":"C1","algorithm":{"lua_inline":"redis.call('SET', 'k', lock.random_token())",
       "never_reads_tokens":true,"relative_time":true}},
      {"name":"C2","algorithm":{"lua_inline":"redis.call('SET', 'k', lock.random_token())",
       "never_reads_tokens":true,"relative_time":true}}],
    "clock":{"start":1000,"horizon":HORIZON},
    "properties":["mutual_exclusion"],"expect":"safe"})json";

scenario::Scenario LoadAlike(testing::TempDir& dir, const std::string& horizon) {
  std::string text = kAlike;
  text.replace(text.find("HORIZON"), 7, horizon);
  return scenario::LoadScenarioFile(dir.Write("s.json", text));
}

// The state with one entry at key "k" of `kind` holding `items`.
world::WorldState WithEntry(world::Model& model, kv::Entry::Kind kind,
                            std::vector<std::string> items) {
  world::WorldState s = model.Initial();
  kv::Entry e;
  e.key = kv::Text("k");
  e.kind = kind;
  e.items = std::move(items);
  s.servers[0].keyspace.mutable_entries().push_back(e);
  return s;
}

TEST_CASE(
    "a sorted set that holds a client's token is hashed unrenamed, and a list's token "
    "renamed with its client") {
  testing::TempDir dir;
  const scenario::Scenario sc = LoadAlike(dir, "1003");
  world::Model model(sc.world, /*use_forget_history=*/true);
  REQUIRE(model.tokens_renamable());
  explore::Fingerprinter fp(model, /*symmetry=*/true, /*abstract=*/true, 0);
  REQUIRE(fp.classes().size() == 1);
  const uint64_t seed = sc.world.seed;
  const std::string mine = world::TokenText(world::DrawValue(seed, 0, 1));
  const std::string theirs = world::TokenText(world::DrawValue(seed, 1, 1));
  // C1's first token and C2's first token: one state up to the swap of the
  // two clients, whose own states are alike.
  for (kv::Entry::Kind kind : {kv::Entry::Kind::kList, kv::Entry::Kind::kZset}) {
    INFO(kv::KindName(kind));
    const bool zset = kind == kv::Entry::Kind::kZset;
    const auto items = [&](const std::string& token) {
      return zset ? std::vector<std::string>{token, "1"} : std::vector<std::string>{token};
    };
    const world::WorldState a = WithEntry(model, kind, items(mine));
    const world::WorldState b = WithEntry(model, kind, items(theirs));
    // A sorted set orders equal scores by the members' bytes, which
    // renaming would not keep: told apart, as a key holding a token is.
    CHECK((fp.Of(a, nullptr, nullptr) == fp.Of(b, nullptr, nullptr)) == !zset);
  }
}

TEST_CASE("without a horizon a time written into a collection keeps the clock in the state") {
  testing::TempDir dir;
  const scenario::Scenario sc = LoadAlike(dir, "null");
  world::Model model(sc.world, /*use_forget_history=*/true);
  explore::Fingerprinter fp(model, /*symmetry=*/false, /*abstract=*/true, 0);
  REQUIRE(fp.time_window() > 0);
  for (bool stamped : {false, true}) {
    INFO("marked as a time a client wrote: " << stamped);
    // ZADD k 1012 m at clock 1012, and the same set at clock 1013: the
    // score is the clock in one and a tick ago in the other.
    world::WorldState at12 = WithEntry(model, kv::Entry::Kind::kZset, {"m", "1012"});
    at12.servers[0].keyspace.mutable_entries()[0].timestamp = stamped;
    at12.now = 1012;
    world::WorldState at13 = at12;
    at13.now = 1013;
    CHECK((fp.Of(at12, nullptr, nullptr) == fp.Of(at13, nullptr, nullptr)) == !stamped);
  }
}

}  // namespace
}  // namespace lockstep
