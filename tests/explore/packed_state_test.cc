// Exact storage keeps each state whole, as the bytes Fingerprinter::Of
// packs. Those bytes must tell states apart exactly as the fingerprint
// does: equal bytes with different fingerprints would merge states the
// search must keep apart (a datum left out of the packing); different
// bytes with one fingerprint would keep one state twice (a datum packed
// that the fingerprint ignores). Every state reached in shipped scenarios
// that cover each part of the state is checked both ways.
#include "sim/explore/packed_state.h"

#include <deque>
#include <fstream>
#include <map>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/base/hash.h"
#include "sim/check/property.h"
#include "sim/explore/execution.h"
#include "sim/explore/packed_table.h"
#include "sim/explore/state_space.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

struct Checked {
  size_t states = 0;
  bool holds = true;
  std::string why;
};

// Walks up to `limit` states breadth first, violations or not, and checks
// that fingerprints and bytes correspond one to one.
Checked WalkAndCompare(const scenario::Scenario& s, bool symmetry, size_t limit) {
  const explore::Properties properties = explore::MakeProperties(s.properties);
  explore::SpaceOptions options;
  options.symmetry = symmetry;
  options.max_steps = s.max_steps;
  // Every ghost fact, so that each part of the packing is used.
  options.ghost =
      check::Property::kWriters | check::Property::kLatestAcquirer | check::Property::kResource;
  explore::StateSpace space(s.world, properties, options);
  std::map<std::pair<uint64_t, uint64_t>, std::string> bytes_of;
  std::map<std::string, std::pair<uint64_t, uint64_t>> print_of;
  std::deque<std::pair<world::WorldState, int>> queue;
  Checked out;
  auto visit = [&](const world::WorldState& st, int depth) {
    explore::PackedState packed;
    const explore::Fingerprint f = space.Identity(st, nullptr, nullptr, &packed);
    const std::pair<uint64_t, uint64_t> print{f.a, f.b};
    const std::string bytes(packed.bytes());
    const auto [b, new_print] = bytes_of.emplace(print, bytes);
    const auto [p, new_bytes] = print_of.emplace(bytes, print);
    if (b->second != bytes || p->second != print) {
      out.holds = false;
      out.why = new_print ? "equal bytes, different fingerprints" : "one fingerprint, two packings";
    }
    if (new_print && out.holds && bytes_of.size() <= limit) queue.emplace_back(st, depth);
  };
  world::WorldState s0;
  (void)space.Initial(&s0);
  visit(s0, 0);
  std::vector<world::Action> enabled;
  std::optional<check::Violation> end;
  while (!queue.empty() && out.holds) {
    auto [st, depth] = std::move(queue.front());
    queue.pop_front();
    if (space.Offers(st, depth, &enabled, &end) != explore::Offer::kActions) continue;
    for (const world::Action& a : std::vector<world::Action>(enabled)) {
      world::WorldState next = st;
      (void)space.Step(next, a, depth + 1);
      visit(next, depth + 1);
    }
  }
  out.states = bytes_of.size();
  return out;
}

TEST_CASE("exact storage's bytes tell states apart exactly as the fingerprint does") {
  struct Case {
    const char* file;
    size_t clients;  // the first contending clients kept (0: all)
  };
  // Between them: tokens and a fenced resource, the writers' ghosts,
  // several servers with replicas, restarts with and without what was
  // synced, clock jumps, all time with starts kept to their bound, Lua.
  for (const Case& c : {Case{"setnx-naive.json", 3}, Case{"getset-loser-overwrite.json", 3},
                        Case{"fenced-stall.json", 0}, Case{"redlock-instance-tokens-stall.json", 2},
                        Case{"replica-failover.json", 2}, Case{"restart-none.json", 2},
                        Case{"restart-always.json", 2}, Case{"clock-jump.json", 0},
                        Case{"getset-all-time.json", 0}, Case{"redlock-safe.json", 1},
                        Case{"set-px-script-stall.json", 0}, Case{"getset-delay-2.json", 2}}) {
    std::ifstream in(testing::ScenarioPath(c.file));
    nlohmann::json doc = nlohmann::json::parse(in);
    if (c.clients > 0 && doc["clients"].size() > c.clients) {
      doc["clients"].erase(doc["clients"].begin() + static_cast<long>(c.clients),
                           doc["clients"].end());
    }
    const scenario::Scenario s = scenario::LoadScenario(doc, c.file);
    for (bool symmetry : {false, true}) {
      INFO(c.file << (symmetry ? " with symmetry" : ""));
      const Checked r = WalkAndCompare(s, symmetry, 4'000);
      INFO(r.why);
      CHECK(r.holds);
      CHECK(r.states > 20);
    }
  }
}

// One shard grown past 2^22 slots, where a slot's place needs more bits
// than it keeps of the fingerprint and takes the rest from the bytes:
// every state is found again, with what was stored beside it.
TEST_CASE("exact storage finds every state again in a shard past four million slots", "[sweep]") {
  explore::PackedTable table(/*sleep=*/true, /*depth=*/false, /*threads=*/false, /*shard_bits=*/0);
  constexpr uint64_t kStates = 3'300'000;  // over 3/4 of 2^22: the index doubles past it
  auto state = [](uint64_t i) {
    explore::PackedState p;
    p.Word(i);
    p.Text("lock.foo");
    return std::string(p.bytes());
  };
  auto print = [](uint64_t i) {
    return explore::Fingerprint{base::Mix64(i), base::Mix64(i ^ 0x5555)};
  };
  for (uint64_t i = 0; i < kStates; ++i) {
    const bool fresh =
        table.InsertOrUpdate(print(i), state(i), {static_cast<uint32_t>(i), 0}, [](auto&) {});
    if (!fresh) FAIL("state " << i << " taken for one kept before");
  }
  CHECK(table.size() == kStates);
  for (uint64_t i = 0; i < kStates; i += 7) {
    uint32_t sleep = 0;
    const bool fresh = table.InsertOrUpdate(print(i), state(i), {},
                                            [&](explore::VisitedEntry& e) { sleep = e.sleep; });
    if (fresh || sleep != i) FAIL("state " << i << " not found again with its sleep set");
  }
  // The same fingerprint with other bytes is another state.
  CHECK(table.InsertOrUpdate(print(1), state(kStates), {}, [](auto&) {}));
  CHECK(table.size() == kStates + 1);
}

// A state longer than a chunk (a scenario may hold a value of megabytes)
// gets a chunk of its own; the states around it are kept as ever.
TEST_CASE("exact storage keeps a state longer than its chunks") {
  explore::PackedTable table(/*sleep=*/false, /*depth=*/true, /*threads=*/false);
  auto state = [](uint64_t i, size_t length) {
    explore::PackedState p;
    p.Word(i);
    p.Text(std::string(length, 'x'));
    return std::string(p.bytes());
  };
  const std::vector<size_t> lengths = {10, 3'000'000, 20, 1'048'576, 5};
  for (uint64_t i = 0; i < lengths.size(); ++i) {
    CHECK(table.InsertOrUpdate({1, 2}, state(i, lengths[i]), {0, static_cast<uint32_t>(i)},
                               [](auto&) {}));
  }
  for (uint64_t i = 0; i < lengths.size(); ++i) {
    uint32_t depth = 99;
    CHECK_FALSE(table.InsertOrUpdate({1, 2}, state(i, lengths[i]), {},
                                     [&](explore::VisitedEntry& e) { depth = e.depth; }));
    CHECK(depth == i);
  }
  CHECK(table.size() == lengths.size());
  CHECK(table.bytes() > 4'000'000);
}

}  // namespace
}  // namespace lockstep
