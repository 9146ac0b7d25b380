// The command table's metadata (as in Redis 7.0's src/commands/*.json),
// lookup, arity and key extraction; plus the Keyspace's non-command API and
// Reply rendering.
#include "sim/kv/command_table.h"

#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "sim/kv/reply.h"
#include "tests/kv/kv_test_util.h"

namespace lockstep::kv {
namespace {

using testing::Server;

TEST_CASE("The table holds every modelled command once, upper case", "[kv][table]") {
  std::set<std::string> names;
  for (const CommandSpec& spec : CommandTable()) {
    std::string name(spec.name);
    for (char c : name) CHECK((c >= 'A' && c <= 'Z'));
    names.insert(name);
  }
  CHECK(names == std::set<std::string>{"GET",
                                       "SET",
                                       "SETNX",
                                       "GETSET",
                                       "DEL",
                                       "EXISTS",
                                       "INCR",
                                       "INCRBY",
                                       "DECR",
                                       "DECRBY",
                                       "EXPIRE",
                                       "PEXPIRE",
                                       "EXPIREAT",
                                       "PEXPIREAT",
                                       "PERSIST",
                                       "TTL",
                                       "PTTL",
                                       "RPUSH",
                                       "LLEN",
                                       "TYPE",
                                       "SELECT",
                                       "EVAL",
                                       "HSET",
                                       "HGET",
                                       "HDEL",
                                       "HEXISTS",
                                       "HINCRBY",
                                       "HLEN",
                                       "HGETALL",
                                       "ZADD",
                                       "ZINCRBY",
                                       "ZREM",
                                       "ZSCORE",
                                       "ZCARD",
                                       "ZCOUNT",
                                       "ZRANGE",
                                       "ZRANGEBYSCORE",
                                       "ZREVRANGE",
                                       "ZREVRANGEBYSCORE",
                                       "ZREMRANGEBYSCORE",
                                       "ZRANK",
                                       "ZREVRANK",
                                       "TIME"});
  CHECK(names.size() == CommandTable().size());
}

TEST_CASE("Arity, access and keys match Redis's command json", "[kv][table]") {
  struct Want {
    const char* name;
    int arity;
    Access access;
    int first, last, step;
  };
  const Want wants[] = {
      {"GET", 2, Access::kRead, 1, 1, 1},        {"SET", -3, Access::kWrite, 1, 1, 1},
      {"SETNX", 3, Access::kWrite, 1, 1, 1},     {"GETSET", 3, Access::kWrite, 1, 1, 1},
      {"DEL", -2, Access::kWrite, 1, -1, 1},     {"EXISTS", -2, Access::kRead, 1, -1, 1},
      {"INCR", 2, Access::kWrite, 1, 1, 1},      {"INCRBY", 3, Access::kWrite, 1, 1, 1},
      {"DECR", 2, Access::kWrite, 1, 1, 1},      {"DECRBY", 3, Access::kWrite, 1, 1, 1},
      {"EXPIRE", -3, Access::kWrite, 1, 1, 1},   {"PEXPIRE", -3, Access::kWrite, 1, 1, 1},
      {"EXPIREAT", -3, Access::kWrite, 1, 1, 1}, {"PEXPIREAT", -3, Access::kWrite, 1, 1, 1},
      {"TTL", 2, Access::kRead, 1, 1, 1},        {"PTTL", 2, Access::kRead, 1, 1, 1},
      {"RPUSH", -3, Access::kWrite, 1, 1, 1},    {"LLEN", 2, Access::kRead, 1, 1, 1},
      {"TYPE", 2, Access::kRead, 1, 1, 1},       {"PERSIST", 2, Access::kWrite, 1, 1, 1},
  };
  for (const Want& w : wants) {
    INFO(w.name);
    const CommandSpec* spec = FindCommand(w.name);
    REQUIRE(spec != nullptr);
    CHECK(spec->arity == w.arity);
    CHECK(spec->access == w.access);
    CHECK(spec->first_key == w.first);
    CHECK(spec->last_key == w.last);
    CHECK(spec->key_step == w.step);
  }
}

TEST_CASE("FindCommand is case-insensitive and exact", "[kv][table]") {
  CHECK(FindCommand("setnx") == FindCommand("SETNX"));
  CHECK(FindCommand("PExpireAt") != nullptr);
  CHECK(FindCommand("SETN") == nullptr);
  CHECK(FindCommand("SETNXX") == nullptr);
  CHECK(FindCommand("") == nullptr);
  CHECK(FindCommand(std::string("GET\0", 4)) == nullptr);
}

TEST_CASE("ArityOk: exact for positive arity, minimum for negative", "[kv][table]") {
  const CommandSpec& get = *FindCommand("GET");
  const CommandSpec& set = *FindCommand("SET");
  CHECK_FALSE(ArityOk(get, 1));
  CHECK(ArityOk(get, 2));
  CHECK_FALSE(ArityOk(get, 3));
  CHECK_FALSE(ArityOk(set, 2));
  CHECK(ArityOk(set, 3));
  CHECK(ArityOk(set, 9));
}

TEST_CASE("CommandKeys follows the key positions", "[kv][table]") {
  CHECK(CommandKeys(*FindCommand("SET"), {"SET", "k", "v", "EX", "1"}) ==
        std::vector<std::string>{"k"});
  CHECK(CommandKeys(*FindCommand("DEL"), {"DEL", "a", "b", "a"}) ==
        std::vector<std::string>{"a", "b", "a"});
  CHECK(CommandKeys(*FindCommand("EXPIRE"), {"EXPIRE", "k", "1", "NX"}) ==
        std::vector<std::string>{"k"});
}

TEST_CASE("CommandKeyPositions names the keys CommandKeys copies, for every command",
          "[kv][table]") {
  const std::vector<std::vector<std::string>> tails = {
      {}, {"k"}, {"k", "v"}, {"a", "b", "c"}, {"2", "a", "b", "c"}, {"-1", "a"}, {"9", "a"}};
  for (const CommandSpec& spec : CommandTable()) {
    for (const auto& tail : tails) {
      std::vector<std::string> argv{std::string(spec.name)};
      argv.insert(argv.end(), tail.begin(), tail.end());
      if (!ArityOk(spec, argv.size())) continue;
      INFO(spec.name << " with " << tail.size() << " arguments");
      const KeyPositions at = CommandKeyPositions(spec, argv);
      std::vector<std::string> named;
      for (size_t i = at.first; i < at.end; i += at.step) named.push_back(argv[i]);
      CHECK(named.size() == at.count());
      CHECK(named == CommandKeys(spec, argv));
      CHECK(at.end <= argv.size());
    }
  }
  const KeyPositions del = CommandKeyPositions(*FindCommand("DEL"), {"DEL", "a", "b", "a"});
  CHECK((del.first == 1 && del.end == 4 && del.step == 1 && del.count() == 3));
  const KeyPositions none = CommandKeyPositions(*FindCommand("EVAL"), {"EVAL", "s", "-1"});
  CHECK(none.count() == 0);
}

TEST_CASE("Every table command has a handler", "[kv][table]") {
  for (const CommandSpec& spec : CommandTable()) {
    INFO(spec.name);
    std::vector<std::string> argv{std::string(spec.name)};
    const size_t argc = static_cast<size_t>(spec.arity < 0 ? -spec.arity : spec.arity);
    while (argv.size() < argc) argv.push_back("1");
    Keyspace ks;
    const Reply r = Execute(ks, argv, 0);
    CHECK(r.text.str().find("unknown command") == std::string::npos);
    CHECK(r.text.str().find("wrong number") == std::string::npos);
  }
}

TEST_CASE("Reply::ToString renders like redis-cli", "[kv][reply]") {
  CHECK(Reply::Integer(-3).ToString() == "(integer) -3");
  CHECK(Reply::Bulk("v").ToString() == "\"v\"");
  CHECK(Reply::Bulk("a\"b\\\n\x01").ToString() == "\"a\\\"b\\\\\\n\\x01\"");
  CHECK(Reply::Nil().ToString() == "(nil)");
  CHECK(Reply::Ok().ToString() == "OK");
  CHECK(Reply::Error("ERR syntax error").ToString() == "(error) ERR syntax error");
  CHECK(Reply::Array({Reply::Bulk("a"), Reply::Integer(1), Reply::Nil()}).ToString() ==
        "[\"a\", (integer) 1, (nil)]");
  CHECK(Reply::Array({}).ToString() == "[]");
  CHECK(std::string(TypeName(Reply::Type::kStatus)) == "status");
  CHECK(std::string(TypeName(Reply::Type::kBulk)) == "bulk");
  CHECK(Reply::Error("x").is_error());
  CHECK(Reply::Nil().is_nil());
}

TEST_CASE("PutString, Live and PurgeExpired respect deadlines", "[kv][keyspace]") {
  Keyspace ks;
  ks.PutString("b", "2", 100);
  ks.PutString("a", "1", std::nullopt);
  ks.PutString("c", "3", 50);
  REQUIRE(ks.size() == 3);
  CHECK(ks.entries()[0].key == "a");  // key order
  CHECK(ks.entries()[2].key == "c");
  CHECK(ks.Live(50).size() == 3);
  const std::vector<Entry> live = ks.Live(51);
  REQUIRE(live.size() == 2);
  CHECK(live[0].key == "a");
  CHECK(live[1].key == "b");
  CHECK(ks.size() == 3);  // Live does not purge
  ks.PurgeExpired(51);
  CHECK(ks.size() == 2);
  ks.PutString("b", "22", std::nullopt);  // replaces, drops the deadline
  CHECK(ks.Find("b", 1000)->value == "22");
  CHECK(Execute(ks, {"GET", "a"}, 0).ToString() == "\"1\"");
}

TEST_CASE("FindKey finds every key and no other, scanned or searched", "[kv][keyspace]") {
  // Up to 8 entries are scanned, more are searched: both ways, every key
  // present is found at its place, and keys between, before and after are
  // not; a key given as bytes and the same key kept (compared by address)
  // find the same entry.
  for (int n : {0, 1, 2, 8, 9, 40}) {
    INFO(n);
    Keyspace ks;
    for (int i = 0; i < n; ++i) ks.PutString("k" + std::to_string(100 + 2 * i), "v", std::nullopt);
    const std::vector<Entry>& entries = ks.entries();
    for (int i = 0; i < n; ++i) {
      const std::string key = "k" + std::to_string(100 + 2 * i);
      auto it = FindKey(entries, key);
      REQUIRE(it != entries.end());
      CHECK(it->key == key);
      CHECK(FindKey(entries, Text(key)) == it);
      const std::string between = "k" + std::to_string(101 + 2 * i);
      CHECK(FindKey(entries, between) == entries.end());
      CHECK(FindKey(entries, Text(between)) == entries.end());
    }
    for (const char* absent : {"a", "z", "k1"}) {  // k1: a prefix of every key
      CHECK(FindKey(entries, absent) == entries.end());
      CHECK(FindKey(entries, Text(absent)) == entries.end());
    }
  }
}

TEST_CASE("commands run on kept arguments as on strings", "[kv][keyspace]") {
  Keyspace ks;
  const Args set{Text("SET"), Text("lock"), Text("1001")};
  CHECK(Execute(ks, set, 5).ToString() == "OK");
  CHECK(ks.Find("lock", 5)->value == set[2]);
  const Args getset{Text("GETSET"), Text("lock"), Text("1002")};
  CHECK(Execute(ks, getset, 5).ToString() == "\"1001\"");
  CHECK(Execute(ks, std::vector<std::string>{"GET", "lock"}, 5).ToString() == "\"1002\"");
}

TEST_CASE("Hash is stable and depends on every field", "[kv][keyspace]") {
  Keyspace a;
  Keyspace b;
  CHECK(a.Hash() == b.Hash());
  // FNV-1a 64 of the 8-byte little-endian count 0: fixed on every machine.
  CHECK(a.Hash() == 0xa8c7f832281a39c5ULL);
  a.PutString("k", "v", std::nullopt);
  Execute(b, {"SET", "k", "v"}, 0);
  CHECK(a == b);
  CHECK(a.Hash() == b.Hash());
  Keyspace c;
  c.PutString("k", "v", 10);
  CHECK(c.Hash() != a.Hash());
  Keyspace d;
  d.PutString("k", "w", std::nullopt);
  CHECK(d.Hash() != a.Hash());
  Keyspace e;
  Execute(e, {"RPUSH", "k", "v"}, 0);
  CHECK(e.Hash() != a.Hash());
  // Field boundaries are unambiguous.
  Keyspace f;
  f.PutString("kv", "", std::nullopt);
  CHECK(f.Hash() != a.Hash());
}

TEST_CASE("Purging makes keyspaces with equal live contents equal", "[kv][keyspace]") {
  Keyspace a;
  Keyspace b;
  a.PutString("k", "v", std::nullopt);
  b.PutString("k", "v", std::nullopt);
  b.PutString("old", "x", 5);
  CHECK(a.Hash() != b.Hash());
  b.PurgeExpired(6);
  CHECK(a == b);
  CHECK(a.Hash() == b.Hash());
}

TEST_CASE("Execute purges only the expired keys it touches", "[kv][keyspace]") {
  Server s;
  s.ks.PutString("a", "1", 5);
  s.ks.PutString("b", "2", 5);
  CHECK(s.Run(10, {"GET", "a"}) == "(nil)");
  CHECK(s.last_effect.saw_expired);
  CHECK(s.ks.size() == 1);
  CHECK(s.ks.entries()[0].key == "b");
}

TEST_CASE("Execute on empty argv is an error, not a throw", "[kv][keyspace]") {
  Keyspace ks;
  CHECK(Execute(ks, std::vector<std::string>{}, 0).is_error());
}

TEST_CASE("The table says which arguments are times and which commands read the clock",
          "[kv][command_table]") {
  auto times = [](std::vector<std::string> argv) {
    const CommandSpec* spec = FindCommand(argv[0]);
    REQUIRE(spec != nullptr);
    std::vector<std::string> out;
    for (const TimeArgument& t : TimeArguments(*spec, argv)) {
      out.push_back(std::to_string(t.index) + (t.instant ? " at " : " for ") +
                    std::to_string(t.unit_ms));
    }
    return out;
  };
  CHECK(times({"SET", "k", "v", "NX", "pxat", "12", "GET"}) == std::vector<std::string>{"5 at 1"});
  CHECK(times({"SET", "k", "v", "EX", "3", "EXAT", "9"}) ==
        std::vector<std::string>{"4 for 1000", "6 at 1000"});
  CHECK(times({"SET", "k", "v", "PX"}).empty());  // no value after it
  CHECK(times({"EXPIREAT", "k", "100"}) == std::vector<std::string>{"2 at 1000"});
  CHECK(times({"PEXPIREAT", "k", "100", "GT"}) == std::vector<std::string>{"2 at 1"});
  CHECK(times({"EXPIRE", "k", "5"}) == std::vector<std::string>{"2 for 1000"});
  CHECK(times({"PEXPIRE", "k", "5"}) == std::vector<std::string>{"2 for 1"});
  CHECK(times({"GET", "k"}).empty());
  CHECK(times({"TTL", "k"}).empty());

  auto depends = [](std::vector<std::string> argv) {
    return DependsOnClock(*FindCommand(argv[0]), argv);
  };
  CHECK(depends({"TTL", "k"}));
  CHECK(depends({"pttl", "k"}));
  CHECK(depends({"EXPIRE", "k", "1"}));
  CHECK(depends({"SET", "k", "v", "PX"}));  // malformed, still a time option
  CHECK_FALSE(depends({"SET", "k", "v", "NX"}));
  CHECK_FALSE(depends({"GET", "k"}));
  CHECK_FALSE(depends({"EVAL", "return 1", "0"}));
}

}  // namespace
}  // namespace lockstep::kv
