// Several servers in one world: commands go to a named instance; a master's
// writes reach its replica only by replicate steps; failover promotes the
// replica and loses the rest; restarts may keep a server unavailable; a
// client with a request timeout waits it out before it sees the timeout.
#include <catch2/catch.hpp>

#include "sim/world/world.h"

namespace lockstep::world {
namespace {

ClientSetup SetupWithTimeout(std::string name, std::function<void(Client&)> body,
                             Millis timeout = 0) {
  ClientSetup s;
  s.name = std::move(name);
  s.algorithm = "test";
  s.request_timeout = timeout;
  s.body = std::move(body);
  return s;
}

ServerConfig Server(std::string name, int replica_of = -1) {
  ServerConfig s;
  s.name = std::move(name);
  s.replica_of = replica_of;
  return s;
}

const ServerRecord& ServerIn(const StepRecord& r, const std::string& name) {
  for (const ServerRecord& s : r.servers) {
    if (s.name == name) return s;
  }
  FAIL("no server " << name);
  return r.servers.front();
}

std::vector<std::string> Keys(const ServerRecord& s) {
  std::vector<std::string> keys;
  for (const kv::Entry& e : s.keyspace) keys.push_back(e.key);
  return keys;
}

std::vector<std::string> Texts(const World& w) {
  std::vector<std::string> out;
  for (const Action& a : w.EnabledActions()) {
    out.push_back(FormatAction(a, w.client_names(), w.model().server_names()));
  }
  return out;
}

TEST_CASE("each instance is its own keyspace and its own clock") {
  WorldConfig cfg;
  cfg.horizon = 5;
  cfg.servers = {Server("A"), Server("B")};
  cfg.servers[1].skew = 3;
  std::vector<std::string> replies;
  cfg.clients.push_back(SetupWithTimeout("C1", [&](Client& c) {
    c.CallOn(0, {"SET", "k", "a", "PX", "2"});
    c.CallOn(1, {"SET", "k", "b", "PX", "2"});
    replies.push_back(c.CallOn(0, {"GET", "k"}).ToString());
    replies.push_back(c.CallOn(1, {"GET", "k"}).ToString());
  }));
  World w(cfg);
  StepRecord r = w.Apply(Action::Step(0));
  CHECK(r.server == "A");
  r = w.Apply(Action::Step(0));
  CHECK(r.server == "B");
  CHECK(ServerIn(r, "A").clock == 0);
  CHECK(ServerIn(r, "B").clock == 3);
  w.Apply(Action::Step(0));
  w.Apply(Action::Step(0));
  CHECK(replies == std::vector<std::string>{"\"a\"", "\"b\""});
  // A jump on B moves B's clock alone, and B's key expires by it.
  cfg.faults.jump = 1;
  cfg.faults.jump_by = {3};
  World j(cfg);
  j.Apply(Action::Step(0));
  j.Apply(Action::Step(0));
  r = j.Apply(Action::Jump(3, 1));
  CHECK(ServerIn(r, "A").clock == 0);
  CHECK(ServerIn(r, "B").clock == 6);  // past the deadline 5
  CHECK(Keys(ServerIn(r, "A")) == std::vector<std::string>{"k"});
  CHECK(Keys(ServerIn(r, "B")).empty());
}

TEST_CASE("a master's writes reach its replica only by replicate steps, in order") {
  WorldConfig cfg;
  cfg.horizon = 5;
  cfg.servers = {Server("A"), Server("A2", 0)};
  cfg.clients.push_back(SetupWithTimeout("C1", [&](Client& c) {
    c.Call({"SET", "x", "1"});
    c.Call({"SET", "y", "2"});
  }));
  World w(cfg);
  w.Apply(Action::Step(0));
  StepRecord r = w.Apply(Action::Step(0));
  CHECK(ServerIn(r, "A").unreplicated == 2);
  CHECK(Keys(ServerIn(r, "A2")).empty());
  CHECK(Texts(w) == std::vector<std::string>{"tick", "replicate A"});
  r = w.Apply(Action::Replicate(0));
  CHECK(Keys(ServerIn(r, "A2")) == std::vector<std::string>{"x"});
  CHECK(r.events == std::vector<std::string>{"A2 applies A's write of x"});
  r = w.Apply(Action::Replicate(0));
  CHECK(Keys(ServerIn(r, "A2")) == std::vector<std::string>{"x", "y"});
  CHECK(ServerIn(r, "A").unreplicated == 0);
  CHECK(Texts(w) == std::vector<std::string>{"tick"});
}

TEST_CASE("failover promotes the replica, loses what was not replicated, and clients follow") {
  WorldConfig cfg;
  cfg.horizon = 5;
  cfg.faults.failover = 1;
  cfg.servers = {Server("A"), Server("A2", 0)};
  std::string seen;
  cfg.clients.push_back(SetupWithTimeout("C1", [&](Client& c) {
    c.Call({"SET", "x", "1"});
    c.Call({"SET", "y", "2"});
    seen = c.Call({"GET", "x"}).ToString() + " " + c.Call({"GET", "y"}).ToString();
  }));
  World w(cfg);
  w.Apply(Action::Step(0));
  w.Apply(Action::Step(0));
  w.Apply(Action::Replicate(0));
  StepRecord r = w.Apply(Action::Failover(0));
  CHECK(r.events ==
        std::vector<std::string>{"A fails; A2 is promoted to master, losing 1 unreplicated write"});
  CHECK(ServerIn(r, "A").role == "failed");
  CHECK(ServerIn(r, "A2").role == "master");
  r = w.Apply(Action::Step(0));
  CHECK(r.server == "A2");
  w.Apply(Action::Step(0));
  CHECK(seen == "\"1\" (nil)");
  // One failover per replica: there is none left to promote.
  CHECK(Texts(w) == std::vector<std::string>{"tick"});
}

TEST_CASE("a replica keeps expired keys but hides them, and drops them once promoted") {
  WorldConfig cfg;
  cfg.horizon = 5;
  cfg.faults.failover = 1;
  cfg.servers = {Server("A"), Server("A2", 0)};
  cfg.clients.push_back(SetupWithTimeout("C1", [&](Client& c) {
    c.Call({"SET", "k", "v", "PX", "1"});
  }));
  World w(cfg);
  w.Apply(Action::Step(0));
  w.Apply(Action::Replicate(0));
  w.Apply(Action::Tick());
  StepRecord r = w.Apply(Action::Tick());
  CHECK(Keys(ServerIn(r, "A")).empty());
  CHECK(Keys(ServerIn(r, "A2")).empty());            // hidden on read
  CHECK(w.state().servers[1].keyspace.size() == 1);  // but still there
  w.Apply(Action::Failover(0));
  CHECK(w.state().servers[1].keyspace.size() == 0);  // a master expires it
}

TEST_CASE("a client with a request timeout waits it out before it sees the timeout") {
  WorldConfig cfg;
  cfg.horizon = 5;
  cfg.faults.lose = 1;
  cfg.servers = {Server("A"), Server("B")};
  std::vector<std::pair<Millis, std::string>> seen;
  cfg.clients.push_back(SetupWithTimeout(
      "C1",
      [&](Client& c) {
        kv::Reply r = c.CallOn(1, {"SET", "k", "v"});
        seen.emplace_back(c.Now(), r.ToString());
      },
      2));
  World w(cfg);
  StepRecord r = w.Apply(Action::LoseReply(0));
  CHECK(r.server == "B");
  CHECK(Keys(ServerIn(r, "B")) == std::vector<std::string>{"k"});  // the write happened
  CHECK(seen.empty());
  CHECK(Texts(w) == std::vector<std::string>{"tick"});  // asleep until 2
  w.Apply(Action::Tick());
  r = w.Apply(Action::Tick());
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].first == 2);
  CHECK(seen[0].second.find("timeout") != std::string::npos);
}

TEST_CASE(
    "a delayed restart keeps the server unavailable for its delay, empty without persistence") {
  WorldConfig cfg;
  cfg.horizon = 6;
  cfg.faults.restart = 1;
  cfg.servers = {Server("A"), Server("B")};
  cfg.servers[1].persistence = Persistence::kNone;
  cfg.servers[1].restart_delay = 3;
  std::vector<std::string> replies;
  cfg.clients.push_back(SetupWithTimeout("C1", [&](Client& c) {
    c.CallOn(1, {"SET", "k", "v"});
    for (;;) {
      replies.push_back(c.CallOn(1, {"GET", "k"}).ToString());
      c.Sleep(1);
    }
  }));
  World w(cfg);
  w.Apply(Action::Step(0));
  StepRecord r = w.Apply(Action::Restart(1));
  CHECK(r.events == std::vector<std::string>{"B restarts, unavailable until 3"});
  CHECK(!ServerIn(r, "B").available);
  CHECK(Keys(ServerIn(r, "B")).empty());
  r = w.Apply(Action::Step(0));
  CHECK(std::find(r.events.begin(), r.events.end(), "B is unavailable") != r.events.end());
  for (int t = 1; t <= 3; ++t) {
    w.Apply(Action::Tick());
    w.Apply(Action::Step(0));
  }
  REQUIRE(replies.size() == 4);
  CHECK(replies[0].find("timeout") != std::string::npos);  // at 0
  CHECK(replies[2].find("timeout") != std::string::npos);  // at 2
  CHECK(replies[3] == "(nil)");                            // at 3: back, empty
}

}  // namespace
}  // namespace lockstep::world
