// The world: fibers parked at commands, atomic steps, local code inside the
// step that resumed it, the clock, sleep, crashes and the assumptions.
#include "sim/world/world.h"

#include <catch2/catch.hpp>

namespace lockstep::world {
namespace {

ClientSetup Setup(std::string name, std::function<void(Client&)> body, Millis skew = 0) {
  ClientSetup s;
  s.name = std::move(name);
  s.algorithm = "test";
  s.skew = skew;
  s.body = std::move(body);
  return s;
}

std::vector<std::string> Texts(const World& w, const std::vector<Action>& as) {
  std::vector<std::string> out;
  for (const auto& a : as) out.push_back(FormatAction(a, w.client_names()));
  return out;
}

TEST_CASE("clients park at their first command and steps run in the order chosen") {
  WorldConfig cfg;
  cfg.horizon = 5;
  std::vector<std::string> log;
  cfg.clients.push_back(Setup("C1", [&](Client& c) {
    log.push_back("C1 starts");
    c.Call({"SET", "k", "one"});
    log.push_back("C1 after SET");
  }));
  cfg.clients.push_back(Setup("C2", [&](Client& c) {
    log.push_back("C2 starts");
    log.push_back("C2 read " + *c.Get("k"));
  }));
  World w(cfg);
  CHECK(log == std::vector<std::string>{"C1 starts", "C2 starts"});
  CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"C1", "C2", "tick"});

  StepRecord r = w.Apply(Action::Step(0));
  CHECK(r.command == std::vector<std::string>{"SET", "k", "one"});
  CHECK(r.reply->ToString() == "OK");
  CHECK(log.back() == "C1 after SET");  // local code ran inside the step
  CHECK(r.events == std::vector<std::string>{"C1 finishes"});
  CHECK(w.client(0).status == ClientStatus::kDone);

  w.Apply(Action::Step(1));
  CHECK(log.back() == "C2 read one");
  CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"tick"});
}

TEST_CASE("the clock moves only by tick, up to the horizon, and client clocks carry their skew") {
  WorldConfig cfg;
  cfg.start_time = 10;
  cfg.horizon = 12;
  std::vector<Millis> seen;
  cfg.clients.push_back(Setup(
      "C1",
      [&](Client& c) {
        for (;;) {
          seen.push_back(c.Now());
          c.Call({"GET", "k"});
        }
      },
      /*skew=*/3));
  World w(cfg);
  CHECK(seen == std::vector<Millis>{13});
  w.Apply(Action::Tick());
  CHECK(w.now() == 11);
  CHECK(w.ClientClock(0) == 14);
  w.Apply(Action::Step(0));
  CHECK(seen.back() == 14);
  w.Apply(Action::Tick());
  std::string why;
  CHECK_FALSE(w.IsEnabled(Action::Tick(), &why));
  CHECK(why == "the clock is at the horizon (12)");
}

TEST_CASE("a timestamp argument is read in the command's own step when max_arg_delay is 0") {
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.clients.push_back(Setup("C1", [](Client& c) { c.SetNx("lock", Client::ClockPlus(3)); }));
  World w(cfg);
  w.Apply(Action::Tick());
  w.Apply(Action::Tick());
  CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"C1", "tick"});
  StepRecord r = w.Apply(Action::Step(0));
  CHECK(r.command == std::vector<std::string>{"SETNX", "lock", "5"});
}

TEST_CASE("times 64 apart are sent as their own digits") {
  // Model::TimeText keeps the texts of times lately sent in 64 places by
  // time: these three share one place.
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.clients.push_back(Setup("C1", [](Client& c) {
    for (Millis offset : {3, 67, 131, 67, 3}) c.Call({"SET", "k", Client::ClockPlus(offset)});
  }));
  World w(cfg);
  std::vector<std::string> sent;
  for (int i = 0; i < 5; ++i) sent.push_back(w.Apply(Action::Step(0)).command.back());
  CHECK(sent == std::vector<std::string>{"3", "67", "131", "67", "3"});
}

TEST_CASE("with a delay bound, the scheduler chooses how old a timestamp argument is") {
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.assumptions.max_arg_delay = 2;
  cfg.clients.push_back(Setup("C1", [](Client& c) { c.SetNx("lock", Client::ClockPlus(3)); }));
  cfg.clients.push_back(Setup("C2", [](Client& c) { c.Get("lock"); }));
  World w(cfg);
  for (int i = 0; i < 3; ++i) w.Apply(Action::Tick());
  // Ready since 0 and bound 2: ages 0..2; a command without timestamps has age 0 only.
  CHECK(Texts(w, w.EnabledActions()) ==
        std::vector<std::string>{"C1", "C1~1", "C1~2", "C2", "tick"});
  std::string why;
  CHECK_FALSE(w.IsEnabled(Action::Step(0, 3), &why));
  CHECK(why == "C1's arguments can be at most 2 ticks old here");
  StepRecord r = w.Apply(Action::Step(0, 2));
  CHECK(r.command == std::vector<std::string>{"SETNX", "lock", "4"});
}

TEST_CASE("without a delay bound, arguments may be as old as the client's previous step") {
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.assumptions.max_arg_delay = std::nullopt;
  cfg.clients.push_back(Setup("C1", [](Client& c) { c.SetNx("lock", Client::ClockPlus(3)); }));
  World w(cfg);
  for (int i = 0; i < 4; ++i) w.Apply(Action::Tick());
  CHECK(w.EnabledActions().size() == 6);  // C1 with ages 0..4, and tick
}

TEST_CASE("entering the critical section belongs to the step whose reply gave the lock") {
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.clients.push_back(Setup("C1", [](Client& c) {
    if (c.SetNx("lock", "x")) {
      c.EnterCriticalSection(5);
      c.LeaveCriticalSection();
      c.Del("lock");
      c.ForgetLock();
    }
  }));
  World w(cfg);
  StepRecord r1 = w.Apply(Action::Step(0));
  CHECK(r1.events == std::vector<std::string>{"C1 enters the critical section"});
  CHECK(r1.in_critical_section == std::vector<std::string>{"C1"});
  StepRecord r2 = w.Apply(Action::Step(0));
  CHECK(r2.command.empty());
  CHECK(r2.events == std::vector<std::string>{"C1 leaves the critical section"});
  CHECK(r2.in_critical_section.empty());
  CHECK(r2.holding == std::vector<std::string>{"C1"});
  StepRecord r3 = w.Apply(Action::Step(0));
  CHECK(r3.holding.empty());
  CHECK(r3.keyspace.empty());
}

TEST_CASE("holders_release_in_time stops the clock at a holder's own timestamp") {
  WorldConfig cfg;
  cfg.horizon = 100;
  cfg.assumptions.holders_release_in_time = true;
  cfg.clients.push_back(Setup("C1", [](Client& c) {
    c.SetNx("lock", "x");
    c.EnterCriticalSection(2);
    c.LeaveCriticalSection();
    c.ForgetLock();
  }));
  World w(cfg);
  w.Apply(Action::Step(0));
  w.Apply(Action::Tick());
  w.Apply(Action::Tick());
  std::string why;
  CHECK_FALSE(w.IsEnabled(Action::Tick(), &why));
  CHECK(why ==
        "C1 still holds the lock and must release it before its clock passes 2 "
        "(holders_release_in_time)");
  w.Apply(Action::Step(0));  // leaves; ForgetLock runs in the same step
  CHECK(w.IsEnabled(Action::Tick(), nullptr));
}

TEST_CASE("max_hold_ticks bounds how long the clock runs while a client holds") {
  WorldConfig cfg;
  cfg.horizon = 100;
  cfg.assumptions.max_hold_ticks = 1;
  cfg.clients.push_back(Setup("C1", [](Client& c) {
    c.Get("k");
    c.EnterCriticalSection(1000);
    c.LeaveCriticalSection();
  }));
  World w(cfg);
  w.Apply(Action::Tick());
  w.Apply(Action::Step(0));  // acquires at 1
  w.Apply(Action::Tick());   // 2 = 1 + 1: allowed
  CHECK_FALSE(w.IsEnabled(Action::Tick(), nullptr));
}

TEST_CASE("a sleeping client is not runnable until the clock wakes it") {
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.clients.push_back(Setup("C1", [](Client& c) {
    c.Sleep(2);
    c.Get("k");
  }));
  World w(cfg);
  CHECK(w.client(0).status == ClientStatus::kSleeping);
  std::string why;
  CHECK_FALSE(w.IsEnabled(Action::Step(0), &why));
  CHECK(why == "C1 cannot run: it is sleeping until the clock reaches 2");
  w.Apply(Action::Tick());
  CHECK(w.client(0).status == ClientStatus::kSleeping);
  StepRecord r = w.Apply(Action::Tick());
  CHECK(r.events == std::vector<std::string>{"C1 wakes"});
  CHECK(w.client(0).status == ClientStatus::kReady);
}

// A back-off of any length from 1 to 3: the scheduler may wake the client at
// clock 1 or 2 ("C1"), and the clock reaching 3 wakes it whatever happens.
TEST_CASE("a client that sleeps between two bounds wakes at any tick between them") {
  auto wake_times = [](bool scheduler_wakes) {
    std::vector<Millis> woken;
    WorldConfig cfg;
    cfg.horizon = 10;
    cfg.clients.push_back(Setup("C1", [&woken](Client& c) {
      c.SleepBetween(1, 3);
      woken.push_back(c.Now());
      c.Get("k");
    }));
    World w(cfg);
    CHECK(w.client(0).status == ClientStatus::kSleeping);
    CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"tick"});
    for (Millis t = 1; t <= 3 && woken.empty(); ++t) {
      StepRecord r = w.Apply(Action::Tick());
      if (t == 3) {
        CHECK(r.events == std::vector<std::string>{"C1 wakes"});
        break;
      }
      CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"C1", "tick"});
      if (scheduler_wakes && t == 2) {
        r = w.Apply(Action::Step(0));
        CHECK(r.events == std::vector<std::string>{"C1 wakes"});
      }
    }
    CHECK(w.client(0).status == ClientStatus::kReady);
    return woken;
  };
  CHECK(wake_times(true) == std::vector<Millis>{2});
  CHECK(wake_times(false) == std::vector<Millis>{3});
}

TEST_CASE("a crashed client never runs again and the crash budget is counted") {
  WorldConfig cfg;
  cfg.horizon = 10;
  cfg.faults.crash = 1;
  for (const char* n : {"C1", "C2"}) {
    cfg.clients.push_back(Setup(n, [](Client& c) {
      for (;;) c.Get("k");
    }));
  }
  World w(cfg);
  CHECK(Texts(w, w.EnabledActions()) ==
        std::vector<std::string>{"C1", "C2", "tick", "crash C1", "crash C2"});
  w.Apply(Action::Crash(0));
  CHECK(w.client(0).status == ClientStatus::kCrashed);
  CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"C2", "tick"});
  std::string why;
  CHECK_FALSE(w.IsEnabled(Action::Crash(1), &why));
  CHECK(why == "the crash budget (1) is used up");
}

TEST_CASE("a client marked crashed in the configuration never starts") {
  WorldConfig cfg;
  cfg.horizon = 1;
  bool ran = false;
  ClientSetup dead = Setup("C3", [&](Client&) { ran = true; });
  dead.crashed = true;
  cfg.clients.push_back(dead);
  World w(cfg);
  CHECK_FALSE(ran);
  CHECK(Texts(w, w.EnabledActions()) == std::vector<std::string>{"tick"});
}

TEST_CASE("random numbers come from the seed, per client, whatever the interleaving") {
  auto draw = [](uint64_t seed, bool c2_first) {
    WorldConfig cfg;
    cfg.horizon = 1;
    cfg.seed = seed;
    std::vector<uint64_t> got(2);
    for (int i = 0; i < 2; ++i) {
      cfg.clients.push_back(Setup(i == 0 ? "C1" : "C2", [&got, i](Client& c) {
        c.Get("k");
        got[i] = c.Random();
      }));
      cfg.clients.back().draws_numbers = true;
    }
    World w(cfg);
    w.Apply(Action::Step(c2_first ? 1 : 0));
    w.Apply(Action::Step(c2_first ? 0 : 1));
    return got;
  };
  CHECK(draw(7, false) == draw(7, true));
  CHECK(draw(7, false) != draw(8, false));
  CHECK(draw(7, false)[0] != draw(7, false)[1]);
}

TEST_CASE("a client that promised tokens only cannot draw a random number") {
  // Symmetry may swap two such clients: their tokens are renamed, but a
  // number (a back-off, say) could change what they do.
  WorldConfig cfg;
  cfg.horizon = 1;
  std::string token;
  cfg.clients.push_back(Setup("C1", [&](Client& c) {
    token = c.RandomToken();
    c.Get("k");
    c.Random();
  }));
  World w(cfg);
  CHECK(token.size() == 16);
  CHECK(token.find_first_not_of("0123456789abcdef") == std::string::npos);
  try {
    w.Apply(Action::Step(0));
    FAIL("Random() was allowed");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("draws random values only as tokens"));
  }
}

TEST_CASE("worlds torn down mid-run release their fibers (thousands in a row)") {
  // An object on each fiber's stack counts its constructions and
  // destructions: a fiber torn down without unwinding its stack leaks it.
  struct OnFiberStack {
    int* alive;
    explicit OnFiberStack(int* a) : alive(a) { ++*alive; }
    ~OnFiberStack() { --*alive; }
  };
  int alive = 0, started = 0;
  for (int i = 0; i < 3000; ++i) {
    WorldConfig cfg;
    cfg.horizon = 3;
    for (const char* n : {"C1", "C2", "C3"}) {
      cfg.clients.push_back(Setup(n, [&alive, &started](Client& c) {
        OnFiberStack held(&alive);
        ++started;
        std::vector<std::string> strings(3, "on the fiber's stack");
        for (;;) c.Get("k");
      }));
    }
    {
      World w(cfg);
      w.Apply(Action::Step(i % 3));
      REQUIRE(alive >= 1);
    }
    REQUIRE(alive == 0);
  }
  CHECK(started >= 3000);
}

}  // namespace
}  // namespace lockstep::world
