// A script can tell the model's Lua from Redis's and do on the real server
// what the model never ran: vetting in the model cannot see it. The replay
// therefore runs as a Redis user allowed the model's commands alone:
// whatever such a script tries beyond them (FLUSHALL, SELECT, MIGRATE) is
// refused by the server, so databases 1-15 stay as they are, nothing
// connects out, and the replay does not claim success.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>

#include "tests/redis/redis_server.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;
using testing::RunLockstep;

// A loopback port nothing answers on: whether anything connected to it.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    REQUIRE(listen(fd_, 16) == 0);
    REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { close(fd_); }
  int port() const { return port_; }
  // A connection made before now is in the backlog: accept finds it.
  bool Connected() const {
    const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) close(c);
    return c >= 0;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Scripts that behave as the model's run says in the model, and otherwise
// on Redis 7.0: the model's collectgarbage('count') is 0.
std::vector<std::pair<std::string, std::string>> DetectingScripts(int port) {
  return {
      {"gc-select-del",
       "if collectgarbage('count') > 0 then redis.call('SELECT','3') "
       "redis.call('DEL','precious') end return 1"},
      {"gc-migrate",
       "if collectgarbage('count') > 0 then redis.call('SET','m','1') "
       "redis.call('MIGRATE','127.0.0.1','" +
           std::to_string(port) + "','m','0','200') end return 1"},
  };
}

// A one-client scenario whose algorithm sends `script` once.
std::string ScriptScenario(const testing::TempDir& tmp, const std::string& name,
                           const std::string& script) {
  json doc = {
      {"name", name},
      {"clients",
       {{{"name", "C1"},
         {"algorithm", {{"lua_inline", "redis.pcall('EVAL', \"" + script + "\", '0')\n"}}}}}},
      {"lock", {{"key", "lock.foo"}}},
      {"clock", {{"horizon", 4}}},
      {"expect", "safe"},
      {"schedule", {"C1"}}};
  return tmp.Write(name + ".json", doc.dump(2));
}

// The words of the `ACL SETUSER ...` command lockstep printed, with the
// password it chose; empty if it printed none.
std::vector<std::string> PrintedSetuser(const std::string& err) {
  const size_t at = err.find("ACL SETUSER ");
  if (at == std::string::npos) return {};
  std::istringstream line(err.substr(at, err.find('\n', at) - at));
  std::vector<std::string> words;
  for (std::string w; line >> w;) {
    if (w.size() >= 2 && w.front() == '\'' && w.back() == '\'') w = w.substr(1, w.size() - 2);
    words.push_back(w);
  }
  return words;
}

TEST_CASE("a model-detecting script changes nothing in databases 1-15 of a named server",
          "[redis-replay][acl]") {
  testing::RedisServer server;
  Listener listener;
  auto admin = server.Connect();
  std::string error;
  REQUIRE(admin->Command({"SELECT", "3"}, &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"SET", "precious", "data"}, &error) == kv::Reply::Ok());
  testing::TempDir tmp;
  std::string url;
  for (const auto& [name, script] : DetectingScripts(listener.port())) {
    INFO(name);
    const std::string scenario = ScriptScenario(tmp, name, script);
    const std::string trace = tmp.File(name + "-trace.json");
    auto recorded = RunLockstep({"replay", scenario, "--trace-out", trace});
    INFO(recorded.out << recorded.err);
    REQUIRE(recorded.exit_code == 0);
    // The model's run: the script returned 1, as nothing in it told.
    REQUIRE(json::parse(testing::ReadText(trace))["steps"][1]["reply"] ==
            json({{"type", "integer"}, {"value", 1}}));
    // HOST:PORT names no user: lockstep refuses it, and says how to make one.
    auto plain = RunLockstep({"replay", "--redis", server.address(), "--redis-flush", trace});
    INFO(plain.out << plain.err);
    CHECK(plain.exit_code == 2);
    CHECK_FALSE(Has(plain.out, "every real reply matched it"));
    CHECK(admin->Command({"GET", "precious"}, &error) == kv::Reply::Bulk("data"));
    if (url.empty()) {
      const std::vector<std::string> setuser = PrintedSetuser(plain.err);
      REQUIRE(setuser.size() > 4);
      REQUIRE(setuser[2] == "lockstep-replay");
      REQUIRE(admin->Command(setuser, &error) == kv::Reply::Ok());
      const size_t at = plain.err.find("redis://");
      REQUIRE(at != std::string::npos);
      url = plain.err.substr(at, plain.err.find_first_of(" \n", at) - at);
    }
    // As that user the script's FLUSHALL, SELECT or MIGRATE is refused.
    auto r = RunLockstep({"replay", "--redis", url, "--redis-flush", trace});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 4);
    CHECK(Has(r.out, "DIFFERS"));
    CHECK_FALSE(Has(r.out, "every real reply matched it"));
  }
  CHECK_FALSE(listener.Connected());
  REQUIRE(admin->Command({"SELECT", "3"}, &error) == kv::Reply::Ok());
  CHECK(admin->Command({"GET", "precious"}, &error) == kv::Reply::Bulk("data"));
  for (int db = 1; db <= 15; ++db) {
    REQUIRE(admin->Command({"SELECT", std::to_string(db)}, &error) == kv::Reply::Ok());
    CHECK(admin->Command({"DBSIZE"}, &error) == kv::Reply::Integer(db == 3 ? 1 : 0));
  }
}

TEST_CASE("a model-detecting script is refused on the servers lockstep starts",
          "[redis-replay][acl]") {
  Listener listener;
  testing::TempDir tmp;
  for (const auto& [name, script] : DetectingScripts(listener.port())) {
    INFO(name);
    auto r = RunLockstep({"replay", ScriptScenario(tmp, name, script), "--redis-server"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 4);
    CHECK(Has(r.out, "DIFFERS"));
    CHECK_FALSE(Has(r.out, "every real reply matched it"));
  }
  CHECK_FALSE(listener.Connected());
}

TEST_CASE("a script that asks for cjson runs in the model as on Redis, and is refused",
          "[redis-replay][acl]") {
  testing::RedisServer server;
  auto admin = server.Connect();
  std::string error;
  REQUIRE(admin->Command({"SELECT", "3"}, &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"SET", "precious", "data"}, &error) == kv::Reply::Ok());
  testing::TempDir tmp;
  // The model has cjson, as Redis 7.0 has: its run calls FLUSHALL too,
  // which vetting refuses before anything is sent.
  const std::string scenario = ScriptScenario(
      tmp, "cjson", "if rawget(_G,'cjson') then redis.call('FLUSHALL') end return 1");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"replay", scenario, "--redis-server"},
        std::vector<std::string>{"replay", scenario, "--redis", server.ReplayUrl()},
        std::vector<std::string>{"replay", scenario, "--redis", server.address()}}) {
    auto r = RunLockstep(args);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, "its script calls a command the model does not implement"));
    CHECK(r.out.empty());
  }
  CHECK(admin->Command({"GET", "precious"}, &error) == kv::Reply::Bulk("data"));
}

TEST_CASE("replay --redis refuses the user default and a user that may leave database 0",
          "[redis-replay][acl]") {
  testing::RedisServer server;
  auto admin = server.Connect();
  std::string error;
  REQUIRE(admin->Command({"ACL", "SETUSER", "default", ">pw"}, &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"AUTH", "default", "pw"}, &error) == kv::Reply::Ok());
  // Allowed the model's commands and SELECT; another, everything.
  REQUIRE(admin->Command({"ACL", "SETUSER", "selects", "on", ">pw", "~*", "-@all", "+get", "+setnx",
                          "+dbsize", "+select"},
                         &error) == kv::Reply::Ok());
  REQUIRE(admin->Command({"ACL", "SETUSER", "all", "on", ">pw", "~*", "+@all", "-select"},
                         &error) == kv::Reply::Ok());
  const std::string race = testing::ScenarioPath("setnx-docs-race.json");
  const std::pair<std::string, std::string> kUsers[] = {
      {"default", "the user default"},
      {"selects", "user selects may run SELECT 0"},
      {"all", "user all may run SWAPDB 0 lockstep-probe"},
  };
  for (const auto& [user, refusal] : kUsers) {
    INFO(user);
    auto r =
        RunLockstep({"replay", "--redis", "redis://" + user + ":pw@" + server.address(), race});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, "lockstep: --redis " + server.address() + ": " + refusal));
    CHECK(Has(r.err, "ACL SETUSER lockstep-replay on '>"));
    CHECK(r.out.empty());
  }
  // Nothing was written, and the probes changed nothing.
  CHECK(admin->Command({"DBSIZE"}, &error) == kv::Reply::Integer(0));
}

}  // namespace
}  // namespace lockstep
