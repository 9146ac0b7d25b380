// ScenarioBuilder: a scenario written in C++, so that a regression test
// needs no file:
//
//   lockstep::Explore(lockstep::ScenarioBuilder().Clients(3, "my-lock").Ttl(3).Stall(1).Horizon(8))
//
// Each method sets one field of the scenario reference (`lockstep list
// --fields`) in a scenario document; Build() loads that document as
// LoadScenario does a file's, so the validation and the messages are the
// loader's: "ScenarioBuilder: at /lock/ttl: expected an integer in [1,
// 10000000], got number 0", the JSON location naming the field the method
// set. Fields not set take the reference's defaults; "clients" and the clock's
// "horizon" are needed, as in a file; "expect" is optional.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"

namespace lockstep::scenario {

// An algorithm written in Lua: one of `file` (relative to the working
// folder) and `source`.
struct LuaSpec {
  std::string file{};
  std::string source{};
  nlohmann::json settings = nlohmann::json::object();  // added to lock.settings
  bool draws_numbers = false;
  bool never_reads_tokens = false;
  bool relative_time = false;  // needed without a horizon
};

// One of "clients".
struct ClientSpec {
  std::string name{};
  std::string algorithm{};  // one of `lockstep list`; "" with `lua`, or crashed
  std::optional<LuaSpec> lua{};
  std::optional<int64_t> skew{};
  bool crashed = false;
  bool may_never_enter = false;
  nlohmann::json lock = nlohmann::json::object();  // this client's lock settings
};

// One of "keyspace".
struct KeyspaceEntry {
  std::string key{};
  std::string value{};
  std::optional<int64_t> deadline{};  // none: never expires
  std::optional<std::string> writer{};
  std::optional<bool> timestamp{};
};

// "server", or (with a name) one of "servers".
struct ServerSpec {
  std::string name{};  // "" for the one "server"
  std::optional<std::string> replica_of{};
  std::optional<int64_t> skew{};
  std::optional<std::string> persistence{};  // always, everysec or none
  std::optional<int64_t> sync_every{};
  std::optional<int64_t> restart_delay{};
};

class ScenarioBuilder {
 public:
  // `label` stands for the file in messages.
  explicit ScenarioBuilder(std::string label = "ScenarioBuilder") : label_(std::move(label)) {}

  ScenarioBuilder& Name(std::string name);
  ScenarioBuilder& Description(std::string text);

  // Clients.
  // `n` more clients running `algorithm`, named on from C1 (C1..Cn first).
  ScenarioBuilder& Clients(int n, const std::string& algorithm);
  ScenarioBuilder& Client(const ClientSpec& client);

  // The lock settings every client shares ("lock").
  ScenarioBuilder& Lock(const std::string& setting, nlohmann::json value);
  ScenarioBuilder& Key(std::string key) { return Lock("key", std::move(key)); }
  ScenarioBuilder& Ttl(int64_t ticks) { return Lock("ttl", ticks); }
  ScenarioBuilder& Timeout(int64_t ticks) { return Lock("timeout", ticks); }
  ScenarioBuilder& Rounds(int64_t rounds) { return Lock("rounds", rounds); }
  ScenarioBuilder& RetryDelay(int64_t ticks) { return Lock("retry_delay", ticks); }
  ScenarioBuilder& RequestTimeout(int64_t ticks) { return Lock("request_timeout", ticks); }
  ScenarioBuilder& TokenServer(std::string server) {
    return Lock("token_server", std::move(server));
  }

  ScenarioBuilder& Entry(const KeyspaceEntry& entry);

  // The clock.
  ScenarioBuilder& Start(int64_t time);
  ScenarioBuilder& Horizon(int64_t time);
  ScenarioBuilder& NoHorizon();  // all time: "horizon": null

  // Assumptions.
  ScenarioBuilder& MaxArgDelay(int64_t ticks);
  ScenarioBuilder& UnboundedArgDelay();  // "max_arg_delay": null
  ScenarioBuilder& HoldersReleaseInTime(bool on = true);
  ScenarioBuilder& MaxHoldTicks(int64_t ticks);

  // Fault budgets (the kinds of `lockstep list --fields`).
  ScenarioBuilder& Fault(const std::string& kind, int64_t budget);
  ScenarioBuilder& Crash(int64_t n) { return Fault("crash", n); }
  ScenarioBuilder& Stall(int64_t n) { return Fault("stall", n); }
  ScenarioBuilder& Jump(int64_t n, const std::vector<int64_t>& by);
  ScenarioBuilder& Restart(int64_t n) { return Fault("restart", n); }
  ScenarioBuilder& Lose(int64_t n) { return Fault("lose", n); }
  ScenarioBuilder& Failover(int64_t n) { return Fault("failover", n); }
  ScenarioBuilder& StallWhere(std::string where);  // holding or releasing

  // Servers: the one server's settings, or (named) one of several.
  ScenarioBuilder& Server(const ServerSpec& server);
  ScenarioBuilder& Resource(bool fenced = false);

  // What is checked and expected.
  ScenarioBuilder& Property(std::string property);  // added to those checked
  ScenarioBuilder& Properties(const std::vector<std::string>& properties);  // these only
  ScenarioBuilder& Expect(std::string outcome);  // "safe" or "violation:PROPERTY"

  ScenarioBuilder& Schedule(const std::vector<std::string>& actions);
  ScenarioBuilder& Seed(uint64_t seed);
  ScenarioBuilder& MaxSteps(int64_t steps);

  // The scenario document, as a file would hold it.
  const nlohmann::json& Document() const { return document_; }
  // Throws ScenarioError (a base::InputError) as LoadScenario does.
  Scenario Build() const { return LoadScenario(document_, label_); }

 private:
  std::string label_;
  nlohmann::json document_ = nlohmann::json::object();
};

}  // namespace lockstep::scenario
