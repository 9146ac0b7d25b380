// A key's writer and owner live in its entry: what a restart gets back is
// kept without them, and a key that comes back keeps the facts it had
// before the restart; a key that does not exist has none. Its provenance
// as a time a client wrote is marked in whatever kind of value holds it.
#include "sim/world/ghost_state.h"

#include <functional>

#include <catch2/catch.hpp>

#include "sim/world/world.h"

namespace lockstep::world {
namespace {

kv::Entry Written(std::string key, std::string value, int writer, int owner) {
  kv::Entry e;
  e.key = kv::Text(key);
  e.value = kv::Text(value);
  e.writer = writer;
  e.owner = owner;
  return e;
}

TEST_CASE("a restart brings values back and keeps each key's writer and owner from before it") {
  ServerState s;
  s.keyspace.PutAll({Written("lock", "10", 0, 0), Written("old", "1", 1, -1)});
  CHECK(Model::GhostOf(s, "lock") == ValueGhost{0, 0});
  Persist(s);
  for (const kv::Entry& e : s.persisted.entries()) {
    INFO(e.key);
    CHECK(GhostIn(e) == ValueGhost{});  // what is persisted carries no ghost
  }
  // After the sync: client 2 takes "lock" over, "old" is removed, "new" written.
  kv::Entry& lock = s.keyspace.mutable_entries()[0];
  lock.value = kv::Text("20");
  SetGhost(s, "lock", {2, 2});
  s.keyspace.Replace("old", std::nullopt);
  s.keyspace.Replace("new", Written("new", "5", 3, -1));

  RestartFrom(s, s.persisted);
  REQUIRE(s.keyspace.size() == 2);
  CHECK(s.keyspace.Find("lock", 0)->value == "10");      // the persisted value...
  CHECK(Model::GhostOf(s, "lock") == ValueGhost{2, 2});  // ...with the facts from before
  CHECK(s.keyspace.Find("old", 0)->value == "1");
  CHECK(Model::GhostOf(s, "old") == ValueGhost{});  // absent before the restart: none
  CHECK(Model::GhostOf(s, "new") == ValueGhost{});  // gone with its entry
}

TEST_CASE("a negative writer forgets both facts, and a key without an entry takes none") {
  ServerState s;
  s.keyspace.PutAll({Written("k", "v", -1, -1)});
  SetGhost(s, "k", {1, 1});
  CHECK(Model::GhostOf(s, "k") == ValueGhost{1, 1});
  SetGhost(s, "k", {-1, 1});
  CHECK(Model::GhostOf(s, "k") == ValueGhost{});
  SetGhost(s, "absent", {1, 1});
  CHECK(s.keyspace.size() == 1);
  CHECK(Model::GhostOf(s, "absent") == ValueGhost{});
}

// A world of one client, C1, running `body`, horizon 3.
WorldConfig OneClient(std::function<void(Client&)> body) {
  WorldConfig cfg;
  cfg.horizon = 3;
  ClientSetup c;
  c.name = "C1";
  c.algorithm = "test";
  c.body = std::move(body);
  cfg.clients.push_back(std::move(c));
  return cfg;
}

// A time a client sends (a ClockPlus argument) is marked where it is kept:
// a string's value, or an item of a sorted set or hash, so that a search
// without a horizon keeps such a state's clock (explore/fingerprint.cc).
TEST_CASE("a time a client writes into a sorted set or a hash marks its entry as a timestamp") {
  for (const char* kind : {"ZADD", "HSET", "SET", "plain ZADD"}) {
    INFO(kind);
    const std::string what = kind;
    World w(OneClient([what](Client& client) {
      if (what == "ZADD") client.Call({"ZADD", "k", Client::ClockPlus(2), "m"});
      if (what == "HSET") client.Call({"HSET", "k", "f", Client::ClockPlus(2)});
      if (what == "SET") client.Call({"SET", "k", Client::ClockPlus(2)});
      if (what == "plain ZADD") client.Call({"ZADD", "k", "2", "m"});
    }));
    w.Apply(Action::Step(0));
    const kv::Entry* e = w.state().servers[0].keyspace.Find("k", 0);
    REQUIRE(e != nullptr);
    CHECK(e->timestamp == (what != "plain ZADD"));
  }
}

// A later write to the same collection that sends no time leaves the time
// an earlier one wrote in it: the mark stays.
TEST_CASE("a collection keeps its timestamp mark through a later write that sends no time") {
  for (const char* kind : {"ZADD", "HSET"}) {
    INFO(kind);
    const std::string what = kind;
    World w(OneClient([what](Client& client) {
      if (what == "ZADD") {
        client.Call({"ZADD", "k", Client::ClockPlus(2), "m"});
        client.Call({"ZADD", "k", "7", "n"});
      } else {
        client.Call({"HSET", "k", "f", Client::ClockPlus(2)});
        client.Call({"HSET", "k", "g", "7"});
      }
    }));
    w.Apply(Action::Step(0));
    w.Apply(Action::Step(0));
    const kv::Entry* e = w.state().servers[0].keyspace.Find("k", 0);
    REQUIRE(e != nullptr);
    CHECK(e->items.size() == 4);
    CHECK(e->timestamp);
  }
}

}  // namespace
}  // namespace lockstep::world
