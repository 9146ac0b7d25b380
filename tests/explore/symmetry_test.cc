// Symmetry checked against an oracle that shares none of its code: every
// reachable state is enumerated breadth first with no reduction, and its
// orbit under the permutations of interchangeable clients is computed by
// applying each permutation (renaming every datum that names a client) and
// keeping the least plain fingerprint. Symmetry is sound iff no symmetric
// fingerprint covers states of two orbits; the search with symmetry must
// then give the verdict of the search without it.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "sim/world/random_draw.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Fingerprint;
using explore::FingerprintHash;

// Every token the clients can have drawn (up to 64 draws each), by its
// text: client i's draw d written as the model writes it.
using TokenTable = std::map<std::string, std::pair<int, uint64_t>>;
TokenTable Tokens(uint64_t seed, int clients) {
  TokenTable table;
  for (int i = 0; i < clients; ++i) {
    for (uint64_t d = 1; d <= 64; ++d)
      table[world::TokenText(world::DrawValue(seed, i, d))] = {i, d};
  }
  return table;
}

// `to[i]`: the client that client i becomes. Client i's tokens become the
// same draws of client to[i].
world::WorldState Permute(const world::WorldState& s, const std::vector<int>& to,
                          const TokenTable& tokens, uint64_t seed) {
  const int n = static_cast<int>(to.size());
  auto rename = [&](int c) { return c >= 0 && c < n ? to[c] : c; };
  auto rename_text = [&](std::string& text) {
    auto it = tokens.find(text);
    if (it != tokens.end()) {
      text = world::TokenText(world::DrawValue(seed, to[it->second.first], it->second.second));
    }
  };
  auto rename_entry = [&](kv::Entry& e) {
    std::string value = e.value;
    rename_text(value);
    e.value = kv::Text(value);
    for (std::string& item : e.items) rename_text(item);
    e.writer = rename(e.writer);
    e.owner = rename(e.owner);
  };
  world::WorldState out = s;
  for (int i = 0; i < n; ++i) {
    world::ClientSlot slot = s.clients[i];
    uint8_t mask = 0;
    for (int j = 0; j < n; ++j) {
      if (slot.acquired_after >> j & 1) mask |= static_cast<uint8_t>(1u << to[j]);
    }
    slot.acquired_after = mask;
    slot.superseded_by = rename(slot.superseded_by);
    out.clients[to[i]] = slot;
  }
  for (world::ServerState& sv : out.servers) {
    for (world::ReplicatedWrite& w : sv.backlog) {
      for (auto& k : w.keys) {
        if (k.entry) rename_entry(*k.entry);
      }
    }
    for (kv::Entry& e : sv.keyspace.mutable_entries()) rename_entry(e);
    for (kv::Entry& e : sv.persisted.mutable_entries()) rename_entry(e);
  }
  return out;
}

// Every permutation that maps each symmetry class onto itself.
std::vector<std::vector<int>> ClassPermutations(int n,
                                                const std::vector<std::vector<int>>& classes) {
  std::vector<std::vector<int>> all{[&] {
    std::vector<int> id(n);
    for (int i = 0; i < n; ++i) id[i] = i;
    return id;
  }()};
  for (const auto& cls : classes) {
    std::vector<std::vector<int>> next;
    std::vector<int> images = cls;
    std::sort(images.begin(), images.end());
    do {
      for (std::vector<int> p : all) {
        for (size_t k = 0; k < cls.size(); ++k) p[cls[k]] = images[k];
        next.push_back(p);
      }
    } while (std::next_permutation(images.begin(), images.end()));
    all = std::move(next);
  }
  return all;
}

struct Census {
  size_t states = 0;         // reachable states, plain
  size_t orbits = 0;         // their orbits
  size_t symmetric = 0;      // their symmetric fingerprints
  size_t merged_orbits = 0;  // symmetric fingerprints that cover two orbits (unsound)
  bool tokens_renamed = false;
  bool violation = false;
};

bool Less(const Fingerprint& x, const Fingerprint& y) {
  return std::tie(x.a, x.b) < std::tie(y.a, y.b);
}

Census Enumerate(const scenario::Scenario& sc) {
  world::Model model(sc.world, /*use_forget_history=*/false);
  explore::Properties props = explore::MakeProperties(sc.properties);
  const uint32_t ghost = explore::GhostOf(props);
  explore::Fingerprinter plain(model, /*symmetry=*/false, /*abstract=*/false, ghost);
  explore::Fingerprinter symmetric(model, /*symmetry=*/true, /*abstract=*/false, ghost);
  const auto perms = ClassPermutations(model.client_count(), symmetric.classes());
  REQUIRE(perms.size() > 1);
  const TokenTable tokens = Tokens(sc.world.seed, model.client_count());

  Census c;
  std::unordered_set<Fingerprint, FingerprintHash> seen;
  std::unordered_map<Fingerprint, Fingerprint, FingerprintHash> orbit_of_symmetric;
  std::unordered_set<Fingerprint, FingerprintHash> orbits;
  std::deque<world::WorldState> queue{model.Initial()};
  seen.insert(plain.Of(queue.front(), nullptr, nullptr));
  std::vector<world::Action> enabled;
  while (!queue.empty()) {
    world::WorldState s = std::move(queue.front());
    queue.pop_front();
    Fingerprint orbit = plain.Of(s, nullptr, nullptr);
    for (const auto& p : perms)
      orbit =
          std::min(orbit, plain.Of(Permute(s, p, tokens, sc.world.seed), nullptr, nullptr), Less);
    orbits.insert(orbit);
    auto [it, fresh] = orbit_of_symmetric.emplace(symmetric.Of(s, nullptr, nullptr), orbit);
    if (!fresh && !(it->second == orbit)) ++c.merged_orbits;
    model.EnabledActions(s, &enabled);
    if (enabled.empty() && check::CheckAllEnd(props, model, s, 0)) c.violation = true;
    for (const world::Action& a : enabled) {
      world::WorldState next = s;
      model.Apply(next, a, nullptr);
      if (check::CheckAll(props, model, next, 0)) c.violation = true;
      if (seen.insert(plain.Of(next, nullptr, nullptr)).second) queue.push_back(std::move(next));
    }
  }
  c.tokens_renamed = model.tokens_renamable();
  c.states = seen.size();
  c.orbits = orbits.size();
  c.symmetric = orbit_of_symmetric.size();
  return c;
}

explore::SearchResult Search(const scenario::Scenario& sc, bool symmetry, bool por) {
  explore::SearchOptions o;
  o.reductions.symmetry = symmetry;
  o.reductions.por = por;
  o.reductions.forget_history = false;
  return explore::DepthFirstSearch(sc.world, explore::MakeProperties(sc.properties), o);
}

Census CheckAgainstOracle(const std::string& text) {
  testing::TempDir dir;
  scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write("s.json", text));
  Census c = Enumerate(sc);
  INFO("states " << c.states << ", orbits " << c.orbits << ", symmetric fingerprints "
                 << c.symmetric);
  CHECK(c.merged_orbits == 0);
  CHECK(c.symmetric == c.orbits);  // the canonical form is exact
  CHECK(c.violation == !sc.expect.safe);
  CHECK(c.orbits < c.states);  // the scenario has symmetry to use
  const explore::Verdict expected =
      c.violation ? explore::Verdict::kViolation : explore::Verdict::kSafe;
  for (bool por : {false, true}) {
    CHECK(Search(sc, /*symmetry=*/false, por).verdict == expected);
    explore::SearchResult r = Search(sc, /*symmetry=*/true, por);
    CHECK(r.verdict == expected);
    // Without a violation, the search visits one state per orbit.
    if (!c.violation) CHECK(r.stats.states == c.orbits);
  }
  return c;
}

TEST_CASE("symmetry: three clients and a fourth with its own lock settings", "[sweep]") {
  // C4's own retry delay makes it a class of its own; C1-C3 may be swapped.
  CheckAgainstOracle(R"({"name":"sym-override",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"},
               {"name":"C3","algorithm":"setnx-getset"},
               {"name":"C4","algorithm":"setnx-getset","lock":{"retry_delay":2}},
               {"name":"C5","crashed":true}],
    "keyspace":[{"key":"lock.foo","value":"3","writer":"C5"}],
    "lock":{"timeout":1},
    "clock":{"start":3,"horizon":4},
    "properties":["mutual_exclusion"],"expect":"safe"})");
}

// Who acquired after whom, and who superseded a holder, name clients: they
// must be renamed with them. The GETSET lock draws no random token, so its
// clients stay interchangeable once they hold the lock.
TEST_CASE("symmetry: three interchangeable clients and a fenced resource (stale_write)",
          "[sweep]") {
  CheckAgainstOracle(R"({"name":"sym-stale-write-fenced",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"},
               {"name":"C3","algorithm":"setnx-getset"}],
    "lock":{"timeout":1},
    "clock":{"start":0,"horizon":3},
    "faults":{"stall":1},
    "resource":{"fenced":true},
    "properties":["stale_write"],"expect":"safe"})");
}

TEST_CASE("symmetry: three interchangeable clients and an unfenced resource (stale_write)",
          "[sweep]") {
  CheckAgainstOracle(R"({"name":"sym-stale-write",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"},
               {"name":"C3","algorithm":"setnx-getset"}],
    "lock":{"timeout":1},
    "clock":{"start":0,"horizon":3},
    "faults":{"stall":1},
    "resource":{"fenced":false},
    "properties":["stale_write"],"expect":"violation:stale_write"})");
}

TEST_CASE("symmetry: mixed algorithms with equal settings are not interchangeable", "[sweep]") {
  // C1 and C2 run the naive takeover, C3 and C4 the GETSET fix: each pair
  // is a class, and no client of one pair may stand for one of the other.
  CheckAgainstOracle(R"({"name":"sym-mixed",
    "clients":[{"name":"C1","algorithm":"setnx-naive"},{"name":"C2","algorithm":"setnx-naive"},
               {"name":"C3","algorithm":"setnx-getset"},{"name":"C4","algorithm":"setnx-getset"},
               {"name":"C5","crashed":true}],
    "keyspace":[{"key":"lock.foo","value":"3","writer":"C5"}],
    "lock":{"timeout":1},
    "clock":{"start":4,"horizon":4},
    "properties":["mutual_exclusion"],"expect":"violation:mutual_exclusion"})");
}

TEST_CASE("symmetry: a client whose clock runs apart is not interchangeable with the others") {
  // C3 runs C1's and C2's algorithm with their settings, but its clock is
  // a tick ahead: it sees the crashed C4's timestamp expire a tick sooner,
  // so a state where it holds the lock is not one where C1 does.
  testing::TempDir dir;
  const std::string text = R"({"name":"sym-skew",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"},
               {"name":"C3","algorithm":"setnx-getset","skew":1},{"name":"C4","crashed":true}],
    "keyspace":[{"key":"lock.foo","value":"3","writer":"C4"}],
    "lock":{"timeout":1},
    "clock":{"start":3,"horizon":4},
    "properties":["mutual_exclusion"],"expect":"safe"})";
  CheckAgainstOracle(text);
  const scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write("s.json", text));
  world::Model model(sc.world, false);
  explore::Fingerprinter symmetric(model, /*symmetry=*/true, /*abstract=*/false);
  CHECK(symmetric.classes() == std::vector<std::vector<int>>{{0, 1}});
}

// Each client writes its own random token: the tokens are renamed with
// their clients, so states that differ only in who holds the lock merge.
TEST_CASE("symmetry: three clients of a token lock (SET NX PX, script release)") {
  const Census c = CheckAgainstOracle(R"({"name":"sym-set-px",
    "clients":[{"name":"C1","algorithm":"set-px-script"},{"name":"C2","algorithm":"set-px-script"},
               {"name":"C3","algorithm":"set-px-script"}],
    "lock":{"ttl":2,"retry_delay":1},
    "clock":{"start":0,"horizon":4},
    "assumptions":{"max_arg_delay":0,"holders_release_in_time":true},
    "properties":["mutual_exclusion","foreign_release"],"expect":"safe"})");
  CHECK(c.tokens_renamed);
}

// GET returns the holder's token, which may be another client's: a history
// would name that client, so tokens stay as they are (clients merge only
// before they draw), and the promise not to read tokens is held.
TEST_CASE("symmetry leaves tokens alone when some client reads them") {
  testing::TempDir dir;
  auto model_of = [&](const char* second) {
    scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write(
        "s.json", std::string(R"({"name":"t",
      "clients":[{"name":"C1","algorithm":"set-px-script"},{"name":"C2","algorithm":")") +
                      second +
                      R"("}], "clock":{"start":0,"horizon":2},"properties":["mutual_exclusion"],
      "expect":"safe"})"));
    return world::Model(sc.world, true).tokens_renamable();
  };
  CHECK(model_of("set-px-script"));
  CHECK(!model_of("set-px-get-del"));
  CHECK(!model_of("setnx-naive"));  // it GETs the lock's value, a token here

  // An algorithm that declares it never reads a token, and reads one.
  world::WorldConfig config;
  for (const char* name : {"C1", "C2"}) {
    world::ClientSetup c;
    c.name = name;
    c.algorithm = "reads-its-token";
    c.never_reads_tokens = true;
    c.body = [](world::Client& client) {
      client.Call({"SET", "k", client.RandomToken()});
      client.Get("k");
    };
    config.clients.push_back(c);
  }
  CHECK_THROWS_WITH(explore::DepthFirstSearch(config, {}, {}),
                    Catch::Matchers::Contains("which never_reads_tokens rules out"));
}

// The report says which clients symmetry may swap, and whether their
// tokens are renamed: a user who sees no reduction learns why.
TEST_CASE("explore reports the interchangeable clients and whether tokens are renamed", "[sweep]") {
  struct Case {
    const char* scenario;
    const char* line;
    nlohmann::json interchangeable;
    bool tokens_renamed;
  };
  for (const Case& c : {
           Case{"set-px-script-safe.json",
                "symmetry: C1,C2,C3 interchangeable, their random tokens renamed with them\n",
                {{"C1", "C2", "C3"}},
                true},
           Case{"getset-bounded.json",
                "symmetry: C1,C2,C3,C4,C5 interchangeable\n",
                {{"C1", "C2", "C3", "C4", "C5"}},
                false},
           Case{"redlock-jump.json",
                "symmetry: C1,C2 interchangeable, their random tokens renamed with them\n",
                nlohmann::json::array({nlohmann::json::array({"C1", "C2"})}), true},
           Case{"getset-skew.json", "symmetry: no two clients are interchangeable", {}, false},
       }) {
    INFO(c.scenario);
    const std::string file = testing::ScenarioPath(c.scenario);
    testing::TempDir out;
    const testing::ProcessResult text =
        testing::RunLockstep({"explore", file, "--out", out.path().string()});
    CHECK(text.out.find(c.line) != std::string::npos);
    const testing::ProcessResult j =
        testing::RunLockstep({"explore", file, "--json", "--out", out.path().string()});
    const nlohmann::json report = nlohmann::json::parse(j.out);
    CHECK(report["reductions"]["interchangeable"] ==
          (c.interchangeable.is_null() ? nlohmann::json::array() : c.interchangeable));
    CHECK(report["reductions"]["tokens_renamed"] == c.tokens_renamed);
    // Without symmetry, nothing is said of it.
    const testing::ProcessResult off =
        testing::RunLockstep({"explore", file, "--no-symmetry", "--out", out.path().string()});
    CHECK(off.out.find("symmetry:") == std::string::npos);
  }
}

TEST_CASE("symmetry renames every datum that names a client") {
  testing::TempDir dir;
  scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write("s.json", R"({"name":"names",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"},
               {"name":"C3","algorithm":"setnx-getset"}],
    "clock":{"start":0,"horizon":2},
    "resource":{"fenced":false},
    "properties":["stale_write"],"expect":"safe"})"));
  world::Model model(sc.world, false);
  explore::Fingerprinter sym(model, /*symmetry=*/true, /*abstract=*/false,
                             explore::GhostOf(explore::MakeProperties(sc.properties)));
  world::WorldState x = model.Initial();
  model.Apply(x, world::Action::Step(1), nullptr);  // C2 and C3 now differ
  x.clients[0].acquired_after = 1u << 1;            // C2 acquired after C1...
  x.clients[0].superseded_by = 1;                   // ...and wrote the resource
  const explore::Fingerprinter::PathState last_c2{0, 1}, last_c3{0, 2};
  auto of = [&](const world::WorldState& s, const explore::Fingerprinter::PathState& p) {
    return sym.Of(s, &p, nullptr);
  };
  // x with C2 and C3 swapped, the names in C1's ghost data and the last
  // client to move with them: the same state up to renaming.
  world::WorldState swapped = Permute(x, {0, 2, 1}, {}, sc.world.seed);
  CHECK(swapped.clients[0].acquired_after == 1u << 2);
  CHECK(of(x, last_c2) == of(swapped, last_c3));
  // The clients' own parts swapped, but C1's ghost data and the last mover
  // still naming C2: now C1 was superseded by the client that has not
  // moved. A different state, which must not share x's fingerprint.
  world::WorldState mixed = swapped;
  mixed.clients[0].acquired_after = 1u << 1;
  mixed.clients[0].superseded_by = 1;
  CHECK(!(of(x, last_c2) == of(mixed, last_c2)));
  CHECK(!(of(x, last_c2) == of(swapped, last_c2)));
}

// Redlock backs off by any number of ticks from 1 to its retry delay
// (Client::SleepBetween), each of which the explorer tries: its clients stay
// interchangeable, and their tokens are renamed with them.
TEST_CASE("symmetry: Redlock clients that back off", "[sweep]") {
  // Three clients on one instance, then two on three instances.
  for (const char* world : {R"("clients":[{"name":"C1","algorithm":"redlock"},
                                         {"name":"C2","algorithm":"redlock"},
                                         {"name":"C3","algorithm":"redlock"}],
                              "servers":[{"name":"A"}],"clock":{"start":0,"horizon":2},)",
                            R"("clients":[{"name":"C1","algorithm":"redlock"},
                                         {"name":"C2","algorithm":"redlock"}],
                              "servers":[{"name":"A"},{"name":"B"},{"name":"C"}],
                              "clock":{"start":0,"horizon":1},)"}) {
    const Census c = CheckAgainstOracle(std::string(R"({"name":"sym-redlock",)") + world +
                                        R"("lock":{"ttl":2,"retry_delay":2,"rounds":1},
      "assumptions":{"max_arg_delay":0},
      "properties":["mutual_exclusion","foreign_release"],"expect":"safe"})");
    CHECK(c.tokens_renamed);
  }
}

// A random number can change what a client does: an algorithm that draws
// one keeps its clients apart.
TEST_CASE("symmetry never merges clients whose algorithm draws random numbers") {
  testing::TempDir dir;
  scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write("s.json", R"({"name":"sym-numbers",
    "clients":[{"name":"C1","algorithm":{"lua_inline":"if lock.random() % 2 == 0 then redis.call('SET', 'k', 'x') end",
                                         "draws_numbers":true}},
               {"name":"C2","algorithm":{"lua_inline":"if lock.random() % 2 == 0 then redis.call('SET', 'k', 'x') end",
                                         "draws_numbers":true}}],
    "clock":{"start":0,"horizon":1},
    "properties":["mutual_exclusion"],"expect":"safe"})"));
  world::Model model(sc.world, false);
  explore::Fingerprinter symmetric(model, /*symmetry=*/true, /*abstract=*/false);
  CHECK(symmetric.classes().empty());
}

}  // namespace
}  // namespace lockstep
