// The differential harness's random scenarios (harness.h, RandomScenario).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/algo/algorithm.h"
#include "sim/base/hash.h"
#include "tests/soundness/harness.h"

namespace lockstep::soundness {
namespace {

using nlohmann::json;

// A small deterministic generator (SplitMix64): the same draws on every
// machine and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t Next() { return gen_.Next(); }
  int Uniform(int lo, int hi) {  // lo..hi inclusive
    return lo + static_cast<int>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Uniform(0, static_cast<int>(v.size()) - 1))];
  }

 private:
  base::SplitMix64 gen_;
};

json RandomLock(Rng& rng, bool top_level) {
  json l = json::object();
  if (rng.Chance(60)) l["ttl"] = rng.Uniform(1, 5);
  if (rng.Chance(50)) l["timeout"] = rng.Uniform(0, 3);
  if (rng.Chance(40)) l["retry_delay"] = rng.Uniform(0, 2);
  if (rng.Chance(30)) l["request_timeout"] = rng.Uniform(0, 1);
  if (rng.Chance(15)) l["release_with_leave"] = true;
  if (top_level && rng.Chance(15)) l["rounds"] = 2;
  return l;
}

// A server's own settings: skew, persistence, restart delay.
void RandomServerSettings(Rng& rng, json& sv) {
  if (rng.Chance(15)) sv["skew"] = rng.Uniform(-1, 1);
  if (rng.Chance(30)) {
    sv["persistence"] = rng.Pick<std::string>({"always", "everysec", "none"});
    if (sv["persistence"] == "everysec") sv["sync_every"] = rng.Uniform(1, 2);
  }
  if (rng.Chance(20)) sv["restart_delay"] = rng.Uniform(0, 2);
}

bool IsInteger(const std::string& s) {
  return !s.empty() && s.find_first_not_of("-0123456789") == std::string::npos;
}

// A Lua algorithm from a small grammar: each round it takes the lock one
// of three ways (SET NX PX; SETNX then PEXPIRE; SET NX with no expiry),
// may renew it while it holds it (a plain PEXPIRE, lock.renew if it says 1), and gives it back one
// of four ways (DEL; a compare-and-delete script; GET, compare, DEL; not at all). Its times are its
// clock plus its settings, so it keeps the relative-time promise.
// `more` draws what the grammar gained later (a number for a token, a
// random back-off, a time-valued SET), so that `rng`'s draws stay those of
// the seeds drawn before.
json RandomLuaAlgorithm(Rng& rng, Rng& more) {
  const int acquire = rng.Uniform(0, 2);
  const bool renew = rng.Chance(30);
  const int release = rng.Uniform(0, 3);
  const bool number_token = more.Chance(20);
  const bool back_off = more.Chance(30);
  const bool timed_value = acquire == 0 && release != 2 && more.Chance(35);
  std::string src =
      "local s = lock.settings\n"
      "for round = 0, s.rounds - 1 do\n";
  src += number_token ? "  local token = tostring(lock.random())\n"
                      : "  local token = lock.random_token()\n";
  src +=
      "  local valid\n"
      "  while true do\n"
      "    lock.forget_history(\"acquire\", {round})\n";
  if (timed_value) {
    // The value is the lease's end, a time the client reads back as sent.
    src +=
        "    local r = redis.pcall(\"SET\", s.key, lock.clock_plus(s.ttl), \"NX\", \"PX\", s.ttl)\n"
        "    if type(r) == \"table\" and r.ok then valid = lock.sent_timestamp() break end\n";
  } else if (acquire == 0) {
    src +=
        "    local r = redis.pcall(\"SET\", s.key, token, \"NX\", \"PX\", s.ttl)\n"
        "    if type(r) == \"table\" and r.ok then break end\n";
  } else if (acquire == 1) {
    src +=
        "    if redis.pcall(\"SETNX\", s.key, token) == 1 then\n"
        "      redis.pcall(\"PEXPIRE\", s.key, s.ttl)\n"
        "      break\n"
        "    end\n";
  } else {
    src +=
        "    local r = redis.pcall(\"SET\", s.key, token, \"NX\")\n"
        "    if type(r) == \"table\" and r.ok then break end\n";
  }
  src += back_off ? "    lock.sleep(s.retry_delay, s.retry_delay + 1)\n"
                  : "    lock.sleep(s.retry_delay)\n";
  src += "  end\n";
  src += timed_value ? "  lock.enter(valid)\n" : "  lock.enter(lock.now() + s.ttl)\n";
  if (renew) {
    src +=
        "  if redis.pcall(\"PEXPIRE\", s.key, s.ttl) == 1 then lock.renew(lock.now() + s.ttl) "
        "end\n";
  }
  src += "  lock.leave()\n";
  if (release == 0) {
    src += "  redis.pcall(\"DEL\", s.key)\n";
  } else if (release == 1) {
    src +=
        "  redis.pcall(\"EVAL\", \"if redis.call('get', KEYS[1]) == ARGV[1] then return "
        "redis.call('del', KEYS[1]) else return 0 end\", \"1\", s.key, token)\n";
  } else if (release == 2) {
    src += "  if redis.pcall(\"GET\", s.key) == token then redis.pcall(\"DEL\", s.key) end\n";
  }
  src +=
      "  lock.forget()\n"
      "end\n";
  // Only GET-compare-DEL reads a token back.
  json algorithm = {{"lua_inline", src},
                    {"relative_time", true},
                    {"never_reads_tokens", release != 2 && !number_token}};
  if (number_token) algorithm["draws_numbers"] = true;
  return algorithm;
}

// A lock over every master (redis.pcall_on): SET NX PX on each, entered on
// a majority, the partial locks undone with DEL; given back with a plain
// DEL on every instance or on the first only (another client's lock on the
// others is then still there), or by a compare-and-delete script on each.
json RandomMultiInstanceLua(Rng& more) {
  const int release = more.Uniform(0, 2);
  std::string src =
      "local s = lock.settings\n"
      "for round = 0, s.rounds - 1 do\n"
      "  local token = lock.random_token()\n"
      "  while true do\n"
      "    lock.forget_history(\"acquire\", {round})\n"
      "    local n = 0\n"
      "    for i = 1, s.instances do\n"
      "      local r = redis.pcall_on(i, \"SET\", s.key, token, \"NX\", \"PX\", s.ttl)\n"
      "      if type(r) == \"table\" and r.ok then n = n + 1 end\n"
      "    end\n"
      "    if n > s.instances / 2 then break end\n"
      "    for i = 1, s.instances do redis.pcall_on(i, \"DEL\", s.key) end\n"
      "    lock.sleep(s.retry_delay)\n"
      "  end\n"
      "  lock.enter(lock.now() + s.ttl)\n"
      "  lock.leave()\n";
  if (release == 0) {
    src += "  for i = 1, s.instances do redis.pcall_on(i, \"DEL\", s.key) end\n";
  } else if (release == 1) {
    src += "  redis.pcall_on(1, \"DEL\", s.key)\n";
  } else {
    src +=
        "  for i = 1, s.instances do\n"
        "    redis.pcall_on(i, \"EVAL\", \"if redis.call('get', KEYS[1]) == ARGV[1] then return "
        "redis.call('del', KEYS[1]) else return 0 end\", \"1\", s.key, token)\n"
        "  end\n";
  }
  src +=
      "  lock.forget()\n"
      "end\n";
  return {{"lua_inline", src}, {"relative_time", true}, {"never_reads_tokens", true}};
}

// What the generator gained after the seeds above were drawn, from their
// own stream: a lock over several masters released without a script, more
// than three contenders, a client that may never enter.
// For all time, a lock a crash can orphan (SETNX, then PEXPIRE: a crash
// between the two leaves a key that never expires), two contenders and
// that one fault, and the liveness properties the orphan breaks: the fair
// cycles of the lasso search, which the other draws rarely reach within
// the liveness oracle's budget (a safety violation, met first, or a graph
// too large).
void AddOrphaningCrash(Rng& more, json& doc) {
  json clients = json::array();
  for (const char* name : {"C1", "C2"}) {
    clients.push_back({{"name", name}, {"algorithm", "setnx-expire"}});
  }
  doc["clients"] = clients;
  doc["lock"] = {{"ttl", more.Uniform(1, 4)}, {"retry_delay", more.Uniform(0, 2)}};
  doc["faults"] = {{"crash", 1}};
  doc.erase("keyspace");
  doc.erase("resource");
  doc["assumptions"] = {{"max_arg_delay", 0}, {"holders_release_in_time", more.Chance(50)}};
  json properties = json::array({"mutual_exclusion"});
  for (const char* p : {"no_orphaned_lock", "deadlock_free", "starvation_free"}) {
    if (more.Chance(50)) properties.push_back(p);
  }
  if (properties.size() == 1) properties.push_back("no_orphaned_lock");
  doc["properties"] = properties;
}

void AddLaterDraws(Rng& more, int masters, json& doc) {
  json& clients = doc["clients"];
  if (masters >= 2 && more.Chance(30)) {
    const json lua = RandomMultiInstanceLua(more);
    for (json& c : clients) {
      if (c.contains("algorithm")) c["algorithm"] = lua;
    }
  }
  // Under a horizon only: for all time, four contenders are rarely within
  // the budget.
  if (more.Chance(8) && doc["clock"]["horizon"].is_number()) {
    // Copies of the first, under a shorter step bound, so that plain
    // enumeration of four or five contenders stays within its budget.
    const int total = more.Chance(25) ? 5 : 4;
    json copy = clients[0];
    copy.erase("crashed");
    if (!copy.contains("algorithm")) copy["algorithm"] = "setnx-naive";
    for (int i = static_cast<int>(clients.size()); i < total; ++i) {
      copy["name"] = "C" + std::to_string(i + 1);
      clients.push_back(copy);
    }
    doc["max_steps"] = std::min(doc["max_steps"].get<int>(), more.Uniform(5, 7));
  }
  if (more.Chance(12)) {
    json& c = clients[static_cast<size_t>(more.Uniform(0, static_cast<int>(clients.size()) - 1))];
    c["may_never_enter"] = true;
  }
  if (doc["clock"]["horizon"].is_null() && more.Chance(12)) AddOrphaningCrash(more, doc);
}

// A generated Lua lock's back-off made a draw (retry_delay plus 0 or 1),
// and its retries counted out: after the third failed attempt it gives up
// (lock.give_up), judged by some_contender_enters. Every client runs the
// same source, so each is changed alike. `last` draws only here, after
// every other draw, so that the scenarios drawn before keep theirs.
void AddDrawsAndGivingUp(Rng& last, json& doc) {
  const std::string loop = "  while true do\n    lock.forget_history(\"acquire\", {round})\n";
  const std::string wait = "    lock.sleep(s.retry_delay)\n";
  const bool draw = last.Chance(35);
  const bool give_up = last.Chance(35);
  bool gives_up = false;
  for (json& c : doc["clients"]) {
    if (!c.contains("algorithm") || !c["algorithm"].is_object() ||
        !c["algorithm"].contains("lua_inline")) {
      continue;
    }
    std::string src = c["algorithm"]["lua_inline"];
    const size_t at = src.find(loop);
    if (at == std::string::npos) continue;
    const size_t sleep = src.find(wait, at);
    if (draw && sleep != std::string::npos) {
      src.replace(sleep, wait.size(), "    lock.sleep(s.retry_delay + lock.draw(0, 1))\n");
    }
    const size_t retry = src.find("    lock.sleep(s.retry_delay", at);
    if (give_up && retry != std::string::npos) {
      src.insert(retry,
                 "    tries = tries + 1\n"
                 "    if tries > 2 then lock.give_up() return end\n");
      src.replace(at, loop.size(),
                  "  local tries = 0\n  while true do\n"
                  "    lock.forget_history(\"acquire\", {round, tries})\n");
      gives_up = true;
    }
    c["algorithm"]["lua_inline"] = src;
  }
  if (gives_up) doc["properties"].push_back("some_contender_enters");
}

}  // namespace

bool RunsLua(const json& doc) {
  for (const json& c : doc.value("clients", json::array())) {
    if (!c.contains("algorithm") || !c["algorithm"].is_object()) continue;
    if (c["algorithm"].contains("lua") || c["algorithm"].contains("lua_inline")) return true;
  }
  return false;
}

std::string LuaPortPath(const std::string& file) {
  return std::string(LOCKSTEP_SOURCE_DIR) + "/examples/lua/" + file;
}

// What each port declares is what its built-in declares.
constexpr LuaPort kPorts[] = {{"setnx-naive", "setnx_naive.lua", false, true},
                              {"setnx-getset", "setnx_getset.lua", false, true},
                              {"set-px-script", "set_px_script.lua", true, false},
                              {"set-px-get-del", "get_compare_del.lua", false, false}};

std::span<const LuaPort> LuaPorts() { return kPorts; }

bool SwapForLuaPorts(json& doc) {
  bool swapped = false;
  for (json& c : doc["clients"]) {
    if (!c.contains("algorithm")) continue;
    for (const LuaPort& p : kPorts) {
      if (c["algorithm"] != p.built_in) continue;
      c["algorithm"] = {{"lua", LuaPortPath(p.file)}, {"relative_time", true}};
      if (p.never_reads_tokens) c["algorithm"]["never_reads_tokens"] = true;
      swapped = true;
      // An integer in a timestamp lock's key is a time: a Lua algorithm's
      // scenario says so (the built-ins all use one key).
      if (!p.timestamp_lock || !doc.contains("keyspace")) continue;
      for (json& e : doc["keyspace"]) {
        if (!e.contains("timestamp")) e["timestamp"] = IsInteger(e.value("value", ""));
      }
    }
  }
  return swapped;
}

json RandomScenario(uint64_t seed) {
  Rng rng(seed);
  json doc = {{"name", "random-" + std::to_string(seed)}};

  // Servers first: which algorithms fit depends on them.
  const bool several = rng.Chance(40);
  int masters = 1;
  std::string token_server;
  if (several) {
    masters = rng.Uniform(1, 3);
    json servers = json::array();
    const char* names[] = {"A", "B", "C"};
    for (int i = 0; i < masters; ++i) {
      json sv = {{"name", names[i]}};
      RandomServerSettings(rng, sv);
      servers.push_back(sv);
    }
    if (rng.Chance(40)) {
      json replica = {{"name", "R"}, {"replica_of", names[rng.Uniform(0, masters - 1)]}};
      servers.push_back(replica);
    }
    doc["servers"] = servers;
    if (masters >= 2) token_server = names[masters - 1];
  } else if (rng.Chance(30)) {
    json sv = json::object();
    RandomServerSettings(rng, sv);
    doc["server"] = sv;
  }

  std::vector<std::string> algorithms;
  for (const auto& a : algo::Algorithms()) {
    if (!a.needs_token_server || !token_server.empty()) algorithms.emplace_back(a.name);
  }
  json lock = RandomLock(rng, true);
  const int contenders = rng.Uniform(1, 3);
  const bool mixed = rng.Chance(35);
  const std::string shared_algorithm = rng.Pick(algorithms);
  json clients = json::array();
  bool fenced_by_service = false;
  for (int i = 0; i < contenders; ++i) {
    json c = {{"name", "C" + std::to_string(i + 1)},
              {"algorithm", mixed ? rng.Pick(algorithms) : shared_algorithm}};
    if (rng.Chance(15)) c["skew"] = rng.Uniform(-2, 2);
    if (rng.Chance(20)) c["lock"] = RandomLock(rng, false);
    fenced_by_service = fenced_by_service || c["algorithm"] == "redlock-fenced";
    clients.push_back(c);
  }
  if (rng.Chance(15)) {
    json crashed = {{"name", "C" + std::to_string(contenders + 1)}, {"crashed", true}};
    if (rng.Chance(50)) crashed["algorithm"] = shared_algorithm;
    clients.push_back(crashed);
  }
  if (fenced_by_service) lock["token_server"] = token_server;
  doc["clients"] = clients;
  if (!lock.empty()) doc["lock"] = lock;

  const int start = rng.Chance(20) ? rng.Uniform(1, 2) : 0;
  doc["clock"] = {{"start", start}, {"horizon", start + rng.Uniform(0, 4)}};

  if (rng.Chance(25)) {
    json key = {{"key", "lock.foo"}, {"value", rng.Pick<std::string>({"0", "3", "x"})}};
    if (rng.Chance(70)) key["deadline"] = rng.Uniform(0, start + 3);
    if (rng.Chance(30)) key["writer"] = "C9";
    json keys = json::array({key});
    if (rng.Chance(30)) keys.push_back({{"key", "other"}, {"value", "1"}});
    doc["keyspace"] = keys;
  }

  json assumptions = json::object();
  if (rng.Chance(30)) {
    assumptions["max_arg_delay"] = rng.Chance(50) ? json(nullptr) : json(rng.Uniform(0, 1));
  }
  if (rng.Chance(40)) assumptions["holders_release_in_time"] = rng.Chance(50);
  if (rng.Chance(20)) {
    assumptions["max_hold_ticks"] = rng.Chance(30) ? json(nullptr) : json(rng.Uniform(0, 2));
  }
  if (!assumptions.empty()) doc["assumptions"] = assumptions;

  json faults = json::object();
  for (const char* kind : {"crash", "stall", "jump", "restart", "lose", "failover"}) {
    if (rng.Chance(18)) faults[kind] = rng.Chance(85) ? 1 : 2;
  }
  if (faults.contains("jump")) {
    json sizes = json::array({rng.Uniform(1, 5)});
    if (rng.Chance(30)) sizes.push_back(rng.Uniform(1, 5));
    faults["jump_by"] = sizes;
  }
  if (faults.contains("stall") && rng.Chance(40)) {
    faults["stall_where"] = rng.Pick<std::string>({"holding", "releasing"});
  }
  if (!faults.empty()) doc["faults"] = faults;

  if (rng.Chance(45)) doc["resource"] = {{"fenced", rng.Chance(50)}};
  json properties = json::array();
  for (const char* p : {"mutual_exclusion", "foreign_release", "stale_write", "no_stuck_states"}) {
    if (rng.Chance(45)) properties.push_back(p);
  }
  if (properties.empty()) properties.push_back("mutual_exclusion");
  doc["properties"] = properties;
  doc["expect"] = "safe";  // a placeholder: the harness compares searches, not this
  doc["max_steps"] = rng.Uniform(8, 14);
  if (rng.Chance(20)) doc["seed"] = rng.Uniform(0, 1000);
  // Drawn last, so that the draws above are those of a scenario with a
  // horizon: without one the clock can always tick, and shorter
  // executions keep plain enumeration small.
  if (rng.Chance(30)) {
    doc["clock"]["horizon"] = nullptr;
    doc["max_steps"] = rng.Uniform(4, 8);
  }
  if (rng.Chance(25)) SwapForLuaPorts(doc);
  Rng more(seed ^ 0x6a09e667f3bcc909ULL);  // the draws added later (RandomLuaAlgorithm)
  if (rng.Chance(15)) {
    // Every client runs one random Lua algorithm instead.
    const json lua = RandomLuaAlgorithm(rng, more);
    for (json& c : doc["clients"]) {
      if (c.contains("algorithm")) c["algorithm"] = lua;
    }
  }
  // Liveness, judged on the whole graph once the safety properties hold
  // (for all time: the loader refuses it under a horizon).
  if (doc["clock"]["horizon"].is_null() && rng.Chance(60)) {
    for (const char* p : {"deadlock_free", "starvation_free", "no_orphaned_lock"}) {
      if (rng.Chance(50)) doc["properties"].push_back(p);
    }
  }
  // Drawn after the rest, so that the draws above stay those of the
  // scenarios the harness drew before there was a renewal to judge.
  if (rng.Chance(30)) doc["properties"].push_back("lost_lease_renewed");
  AddLaterDraws(more, masters, doc);
  Rng last(seed ^ 0xbb67ae8584caa73bULL);
  AddDrawsAndGivingUp(last, doc);
  return doc;
}

}  // namespace lockstep::soundness
