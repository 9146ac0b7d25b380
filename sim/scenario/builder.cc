#include "sim/scenario/builder.h"

namespace lockstep::scenario {

using nlohmann::json;

ScenarioBuilder& ScenarioBuilder::Name(std::string name) {
  document_["name"] = std::move(name);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Description(std::string text) {
  document_["description"] = std::move(text);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Clients(int n, const std::string& algorithm) {
  for (int i = 0; i < n; ++i) {
    const size_t next = document_.contains("clients") ? document_["clients"].size() : 0;
    Client({.name = "C" + std::to_string(next + 1), .algorithm = algorithm});
  }
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Client(const ClientSpec& client) {
  json c = {{"name", client.name}};
  if (client.lua) {
    const LuaSpec& lua = *client.lua;
    json a = json::object();
    if (!lua.file.empty()) a["lua"] = lua.file;
    if (!lua.source.empty()) a["lua_inline"] = lua.source;
    if (!lua.settings.empty()) a["settings"] = lua.settings;
    if (lua.draws_numbers) a["draws_numbers"] = true;
    if (lua.never_reads_tokens) a["never_reads_tokens"] = true;
    if (lua.relative_time) a["relative_time"] = true;
    c["algorithm"] = a;
  } else if (!client.algorithm.empty() || !client.crashed) {
    c["algorithm"] = client.algorithm;
  }
  if (client.skew) c["skew"] = *client.skew;
  if (client.crashed) c["crashed"] = true;
  if (client.may_never_enter) c["may_never_enter"] = true;
  if (!client.lock.empty()) c["lock"] = client.lock;
  document_["clients"].push_back(c);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Lock(const std::string& setting, json value) {
  document_["lock"][setting] = std::move(value);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Entry(const KeyspaceEntry& entry) {
  json e = {{"key", entry.key}, {"value", entry.value}};
  if (entry.deadline) e["deadline"] = *entry.deadline;
  if (entry.writer) e["writer"] = *entry.writer;
  if (entry.timestamp) e["timestamp"] = *entry.timestamp;
  document_["keyspace"].push_back(e);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Start(int64_t time) {
  document_["clock"]["start"] = time;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Horizon(int64_t time) {
  document_["clock"]["horizon"] = time;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::NoHorizon() {
  document_["clock"]["horizon"] = nullptr;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::MaxArgDelay(int64_t ticks) {
  document_["assumptions"]["max_arg_delay"] = ticks;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::UnboundedArgDelay() {
  document_["assumptions"]["max_arg_delay"] = nullptr;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::HoldersReleaseInTime(bool on) {
  document_["assumptions"]["holders_release_in_time"] = on;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::MaxHoldTicks(int64_t ticks) {
  document_["assumptions"]["max_hold_ticks"] = ticks;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Fault(const std::string& kind, int64_t budget) {
  document_["faults"][kind] = budget;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Jump(int64_t n, const std::vector<int64_t>& by) {
  document_["faults"]["jump_by"] = by;
  return Fault("jump", n);
}

ScenarioBuilder& ScenarioBuilder::StallWhere(std::string where) {
  document_["faults"]["stall_where"] = std::move(where);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Server(const ServerSpec& server) {
  json s = json::object();
  if (!server.name.empty()) s["name"] = server.name;
  if (server.replica_of) s["replica_of"] = *server.replica_of;
  if (server.skew) s["skew"] = *server.skew;
  if (server.persistence) s["persistence"] = *server.persistence;
  if (server.sync_every) s["sync_every"] = *server.sync_every;
  if (server.restart_delay) s["restart_delay"] = *server.restart_delay;
  if (server.name.empty()) {
    document_["server"] = s;
  } else {
    document_["servers"].push_back(s);
  }
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Resource(bool fenced) {
  document_["resource"] = {{"fenced", fenced}};
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Property(std::string property) {
  document_["properties"].push_back(std::move(property));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Properties(const std::vector<std::string>& properties) {
  document_["properties"] = properties;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Expect(std::string outcome) {
  document_["expect"] = std::move(outcome);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Schedule(const std::vector<std::string>& actions) {
  document_["schedule"] = actions;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::Seed(uint64_t seed) {
  document_["seed"] = seed;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::MaxSteps(int64_t steps) {
  document_["max_steps"] = steps;
  return *this;
}

}  // namespace lockstep::scenario
