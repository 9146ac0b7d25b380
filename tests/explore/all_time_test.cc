// Search without a horizon (docs/design.md, "Time without a horizon"):
// times kept relative to the clock, gaps past the window alike. Checked
// three ways: the verdict for all time equals the verdict of bounded
// searches once they stabilise; the states reached from two start times
// far apart are the same states; and algorithms that break the promise
// are caught by that comparison.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/explore/time_line.h"
#include "sim/kv/int_parse.h"
#include "sim/scenario/scenario.h"
#include "sim/world/client.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using explore::Verdict;

std::string VerdictOf(const explore::SearchResult& r) {
  std::string v = explore::VerdictText(r.verdict);
  if (r.violation) v += ":" + r.violation->property;
  return v;
}

explore::SearchResult Search(const world::WorldConfig& w, const std::vector<std::string>& props,
                             bool collect = false) {
  explore::SearchOptions o;
  o.collect_states = collect;
  return explore::DepthFirstSearch(w, explore::MakeProperties(props), o);
}

scenario::Scenario WithClients(const std::string& name, size_t clients) {
  scenario::Scenario s = scenario::LoadScenarioFile(testing::ScenarioPath(name));
  s.world.clients.resize(std::min(clients, s.world.clients.size()));
  return s;
}

// The same world started `by` ticks later: every time in it moved along.
world::WorldConfig Shifted(world::WorldConfig w, world::Millis by) {
  w.start_time += by;
  for (kv::Entry& e : w.initial_keyspace) {
    if (e.deadline) *e.deadline += by;
    int64_t t = 0;
    if (e.timestamp && kv::ParseInt64(e.value, &t)) e.value = kv::Text(std::to_string(t + by));
  }
  return w;
}

std::vector<explore::Fingerprint> StatesFrom(const world::WorldConfig& w,
                                             const std::vector<std::string>& props) {
  explore::SearchResult r = Search(w, props, true);
  REQUIRE(r.verdict != Verdict::kIncomplete);
  std::vector<explore::Fingerprint> states = r.states;
  std::sort(states.begin(), states.end(),
            [](const auto& x, const auto& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  return states;
}

TEST_CASE("all time: the GETSET fix is safe and the naive takeover is not, for 2 to 5 clients",
          "[explore][all-time]") {
  for (size_t n = 2; n <= 5; ++n) {
    INFO(n << " clients");
    scenario::Scenario fix = WithClients("getset-bounded.json", n);
    fix.world.horizon = std::nullopt;
    const explore::SearchResult safe = Search(fix.world, fix.properties);
    CHECK(VerdictOf(safe) == "safe");
    scenario::Scenario naive = WithClients("setnx-naive.json", n);
    naive.world.horizon = std::nullopt;
    CHECK(VerdictOf(Search(naive.world, naive.properties)) == "violation:mutual_exclusion");
  }
}

TEST_CASE("all time: the verdict equals the bounded searches' once they stabilise",
          "[explore][all-time][sweep]") {
  // Every shipped scenario that can be searched without a horizon, with
  // few enough clients that the bounded searches stay small.
  int compared = 0;
  for (const std::string& file : testing::AllScenarioPaths()) {
    scenario::Scenario s = scenario::LoadScenarioFile(file);
    bool relative = s.world.assumptions.max_arg_delay.has_value();
    for (const auto& c : s.world.clients) relative &= c.crashed || c.relative_time;
    if (!relative || s.world.servers.size() > 1) continue;  // several servers: too large here
    s.world.clients.resize(std::min<size_t>(s.world.clients.size(), 2));
    INFO(file);
    world::WorldConfig all = s.world;
    all.horizon = std::nullopt;
    const explore::SearchResult unbounded = Search(all, s.properties);
    if (unbounded.stats.states > 3'000) continue;
    // Horizons 8 ticks apart until two agree: the bounded verdict is stable.
    std::string previous;
    std::string stable;
    for (world::Millis h = 8; h <= 40; h += 8) {
      world::WorldConfig bounded = s.world;
      bounded.horizon = s.world.start_time + h;
      const std::string v = VerdictOf(Search(bounded, s.properties));
      if (v == previous) {
        stable = v;
        break;
      }
      previous = v;
    }
    REQUIRE_FALSE(stable.empty());
    CHECK(VerdictOf(unbounded) == stable);
    ++compared;
  }
  CHECK(compared >= 8);
}

TEST_CASE("all time: the states reached from start 0 and from start 1,000,003 are the same",
          "[explore][all-time]") {
  for (const char* name : {"getset-bounded.json", "setnx-expire-crash.json",
                           "set-px-script-stall.json", "fenced-stall.json"}) {
    INFO(name);
    scenario::Scenario s = WithClients(name, 3);
    s.world.horizon = std::nullopt;
    // Ghost state in the fingerprints, no check cutting the search short.
    const std::vector<std::string> none;
    const auto from_start = StatesFrom(s.world, none);
    CHECK(from_start.size() > 10);
    CHECK(StatesFrom(Shifted(s.world, 1'000'003), none) == from_start);
  }
}

// A one-client world whose algorithm is `body`, declared relative.
world::WorldConfig OneClient(std::function<void(world::Client&)> body) {
  world::WorldConfig w;
  world::ClientSetup c;
  c.name = "C1";
  c.algorithm = "test";
  c.relative_time = true;
  c.time_constants = 3;
  c.body = std::move(body);
  w.clients.push_back(std::move(c));
  w.horizon = std::nullopt;
  return w;
}

TEST_CASE("all time: an algorithm that breaks the promise is caught by the shifted start",
          "[explore][all-time]") {
  // Honest: it writes its deadline as a time and compares differences.
  auto honest = [](world::Client& c) {
    for (int i = 0; i < 3; ++i) {
      c.ForgetHistory("loop", {i});
      c.Call({"SET", "k", world::Value::Time(c.Now() + 2)});
      c.Sleep(1);
    }
  };
  // Writes a time as a plain literal: the model cannot know it is one.
  auto literal = [](world::Client& c) {
    for (int i = 0; i < 3; ++i) {
      c.ForgetHistory("loop", {i});
      c.Call({"SET", "k", std::to_string(c.Now() + 2)});
      c.Sleep(1);
    }
  };
  // Decides by the clock's parity: not a function of differences.
  auto parity = [](world::Client& c) {
    for (int i = 0; i < 3; ++i) {
      c.ForgetHistory("loop", {i});
      c.Call({"SET", "k", c.Now() % 2 == 0 ? "even" : "odd"});
      c.Sleep(1);
    }
  };
  const std::vector<std::string> none;
  CHECK(StatesFrom(OneClient(honest), none) == StatesFrom(Shifted(OneClient(honest), 101), none));
  CHECK(StatesFrom(OneClient(literal), none) != StatesFrom(Shifted(OneClient(literal), 101), none));
  CHECK(StatesFrom(OneClient(parity), none) != StatesFrom(Shifted(OneClient(parity), 101), none));
}

// A client that throws (a client_error) once at least 3 ticks have passed
// between its start and the reply to a GET: it compares the elapsed time
// with 3, and declares that it compares it with at most `longest`.
std::function<void(world::Client&)> SlowIsAnError(world::Millis longest) {
  return [longest](world::Client& c) {
    const world::Millis start = c.NowAsStart(longest);
    c.Call({"GET", "k"});
    if (c.Now() - start >= 3) throw std::runtime_error("3 ticks or more since the start");
  };
}

TEST_CASE("all time: a start is kept only as old as it is compared and too small a bound is caught",
          "[explore][all-time]") {
  const std::vector<std::string> errors = {"client_error"};
  // Horizon 10 or none; with state caching, or plain enumeration (which
  // names no state, so merges none).
  auto verdict = [&](world::Millis longest, std::optional<world::Millis> horizon, bool cache) {
    world::WorldConfig w = OneClient(SlowIsAnError(longest));
    w.horizon = horizon;
    explore::SearchOptions o;
    o.reductions.cache = cache;
    return VerdictOf(explore::DepthFirstSearch(w, explore::MakeProperties(errors), o));
  };
  // Honest: the elapsed time is compared with 3, and said so.
  CHECK(verdict(3, 10, false) == "violation:client_error");
  CHECK(verdict(3, 10, true) == "violation:client_error");
  CHECK(verdict(3, std::nullopt, true) == "violation:client_error");
  // A bound too small merges a start 2 ticks old with older ones, and the
  // search without a horizon misses what plain enumeration finds: the
  // comparison the soundness harness makes tells them apart. (With a
  // horizon the clock is part of the state, and this client's one start
  // leaves nothing to merge.)
  CHECK(verdict(1, 10, false) == "violation:client_error");
  CHECK(verdict(1, std::nullopt, true) == "safe");
  // Kept whole (no bound), the start makes the space larger, not wrong.
  const std::vector<std::string> none;
  CHECK(StatesFrom(OneClient(SlowIsAnError(3)), none).size() <
        StatesFrom(OneClient([](world::Client& c) {
                     const world::Millis start = c.Now();
                     c.Call({"GET", "k"});
                     if (c.Now() - start >= 3) throw std::runtime_error("late");
                   }),
                   none)
            .size());
}

TEST_CASE("all time: Redlock ends safe and in the same states from a shifted start",
          "[explore][all-time]") {
  // Two clients on one instance, ttl 3, retry 1: without a bound on its
  // attempt's start, past 2.9 million states after a minute, unended.
  const nlohmann::json doc = {
      {"clients",
       {{{"name", "C1"}, {"algorithm", "redlock"}}, {{"name", "C2"}, {"algorithm", "redlock"}}}},
      {"lock", {{"ttl", 3}, {"request_timeout", 1}, {"retry_delay", 1}}},
      {"clock", {{"horizon", nullptr}}},
      {"assumptions", {{"max_arg_delay", 0}, {"holders_release_in_time", true}}},
      {"properties", {"mutual_exclusion"}},
      {"expect", "safe"}};
  const scenario::Scenario s = scenario::LoadScenario(doc, "redlock-one-instance.json");
  const explore::SearchResult r = Search(s.world, s.properties);
  CHECK(VerdictOf(r) == "safe");
  CHECK(r.stats.states < 5'000);
  const std::vector<std::string> none;
  CHECK(StatesFrom(s.world, none) == StatesFrom(Shifted(s.world, 1'000'003), none));
}

TEST_CASE("all time: a time beyond the window is refused, not abstracted", "[explore][all-time]") {
  world::WorldConfig w = OneClient([](world::Client& c) {
    c.Call({"SET", "k", "v", "PX", "1000"});  // a deadline 1000 ticks ahead
    c.Sleep(1);
  });
  // The key's deadline is ahead of the clock by more than the window
  // (2 * (3 + 2 + ...)): the abstraction would merge what differs.
  try {
    Search(w, {});
    FAIL("expected the search to refuse the time");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("beyond the window") != std::string::npos);
  }
}

TEST_CASE("all time: the window widens by every clock jump a scenario allows",
          "[explore][all-time]") {
  // A jump moves the clock by its size in one step: two times that far
  // apart must still be told apart, or a key that expires across the jump
  // and one that does not would be alike.
  const scenario::Scenario s = WithClients("getset-all-time.json", 2);
  world::WorldConfig jumps = s.world;
  jumps.faults.jump = 2;
  jumps.faults.jump_by = {6, -3};
  CHECK(explore::TimeWindow(jumps) == explore::TimeWindow(s.world) + 2 * (6 + 3) * 2);
}

TEST_CASE("all time: a lock left without a TTL and a long wait end in finitely many states",
          "[explore][all-time]") {
  // A crashed holder's lock never expires; the waiter sleeps and retries
  // for ever. Without a horizon the clock runs on, yet its states repeat.
  scenario::Scenario s = WithClients("setnx-expire-crash.json", 2);
  s.world.horizon = std::nullopt;
  const explore::SearchResult r = Search(s.world, {"mutual_exclusion"});
  CHECK(r.verdict == Verdict::kSafe);
  CHECK(r.stats.states < 5'000);
}

TEST_CASE("all time: scenarios the abstraction cannot follow are refused with the place",
          "[explore][all-time]") {
  auto load = [](nlohmann::json doc) -> std::string {
    try {
      scenario::LoadScenario(doc, "t.json");
    } catch (const base::InputError& e) {
      return e.what();
    }
    return "loaded";
  };
  nlohmann::json doc = {{"clients", {{{"name", "C1"}, {"algorithm", "setnx-getset"}}}},
                        {"clock", {{"horizon", nullptr}}},
                        {"expect", "safe"}};
  CHECK(load(doc) == "loaded");
  nlohmann::json lua = doc;
  lua["clients"][0]["algorithm"] = {{"lua_inline", "lock.call('GET', 'k')"}};
  CHECK_THAT(load(lua),
             Catch::Contains("/clients/0/algorithm") && Catch::Contains("relative_time"));
  nlohmann::json delay = doc;
  delay["assumptions"] = {{"max_arg_delay", nullptr}};
  CHECK_THAT(load(delay), Catch::Contains("/assumptions/max_arg_delay"));
  nlohmann::json missing = doc;
  missing["clock"] = nlohmann::json::object();
  CHECK_THAT(load(missing), Catch::Contains("horizon"));
}

}  // namespace
}  // namespace lockstep
