// A Lua algorithm that declares relative_time is searched without a
// horizon, and its promise is checked as it runs: its times are values of
// their own type, which it may offset (within its settings' constants),
// subtract and compare, and a time it keeps across lock.forget_history must
// be among its live times.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::Has;

// SET NX PX, released by compare-and-delete, then `extra` before the end.
std::string Lock(const std::string& extra) {
  return R"(local s = lock.settings
local token = lock.random_token()
while true do
  lock.forget_history("acquire")
  local reply = redis.pcall("SET", s.key, token, "NX", "PX", s.ttl)
  if type(reply) == "table" and reply.ok then break end
  lock.sleep(s.retry_delay)
end
local until_ = lock.now() + s.ttl
lock.enter(until_)
lock.leave()
redis.pcall("EVAL", "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end", "1", s.key, token)
lock.forget()
)" + extra +
         "\n";
}

json TimeScenario(const std::string& source, bool relative = true) {
  json algorithm = {{"lua_inline", source}, {"never_reads_tokens", true}};
  if (relative) algorithm["relative_time"] = true;
  return {
      {"name", "lua-time"},
      {"clients",
       {{{"name", "C1"}, {"algorithm", algorithm}}, {{"name", "C2"}, {"algorithm", algorithm}}}},
      {"lock", {{"key", "lock"}, {"ttl", 3}, {"retry_delay", 1}}},
      {"clock", {{"start", 0}, {"horizon", nullptr}}},
      {"assumptions", {{"max_arg_delay", 0}, {"holders_release_in_time", true}}},
      {"properties", {"mutual_exclusion", "deadlock_free"}},
      {"expect", "safe"}};
}

testing::ProcessResult ExploreTimeScenario(const testing::TempDir& tmp, const json& doc) {
  return testing::RunLockstep(
      {"explore", tmp.Write("s.json", doc.dump()), "--out", tmp.path().string(), "--json"});
}

TEST_CASE("a Lua lock that declares relative_time is searched for all time", "[lua][all-time]") {
  testing::TempDir tmp;
  const testing::ProcessResult r = ExploreTimeScenario(tmp, TimeScenario(Lock("")));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json report = json::parse(r.out);
  CHECK(report["verdict"] == "safe");
  CHECK(report["vacuous"] == false);
  // Undeclared, the loader refuses it, naming the field to add.
  const testing::ProcessResult refused = ExploreTimeScenario(tmp, TimeScenario(Lock(""), false));
  CHECK(refused.exit_code == 2);
  CHECK(Has(refused.err, "at /clients/0/algorithm"));
  CHECK(Has(refused.err, "(\"relative_time\": true in its algorithm object)"));
}

TEST_CASE("a Lua time is offset, subtracted and compared, and nothing else", "[lua][all-time]") {
  testing::TempDir tmp;
  // Each breaks the promise at line 14, the first after Lock's 13.
  const std::pair<const char*, const char*> broken[] = {
      {"if lock.now() > 5 then end", "attempt to compare"},
      {"local x = lock.now() * 2", "is only offset by a number"},
      {"local x = -lock.now()", "is only offset by a number"},
      {"local x = tonumber(lock.now())", "tonumber of a time"},
      {"local x = 5 - lock.now()", "subtracting a time from a number"},
      {"local x = lock.now() + lock.now()", "adding two times"},
      {"local x = lock.now() + 0.5", "expected an integer"},
      {"local x = lock.now() + 1000", "beyond the integers of lock.settings"},
      {"lock.enter(7)", "lock.enter: expected a time"},
      {"lock.forget_history('x', {lock.now()})", "is a time: keep it among the live times"},
      {"lock.forget_history('again')\nlocal x = until_ + 1",
       "read before lock.forget_history(\"again\")"},
  };
  for (const auto& [line, message] : broken) {
    INFO(line);
    const testing::ProcessResult r = ExploreTimeScenario(tmp, TimeScenario(Lock(line)));
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, std::string(line).find('\n') == std::string::npos ? ":14: " : ":15: "));
    CHECK(Has(r.err, message));
  }
  // What the promise allows: durations, offsets within the settings, a
  // time kept as a live time, its text for reading.
  const char* allowed =
      "local d = lock.now() - until_\n"
      "assert(type(d) == 'number' and lock.is_time(until_ + s.ttl - 1))\n"
      "assert(until_ <= lock.now() + s.ttl and until_ == until_ + 0)\n"
      "lock.forget_history('kept', {}, {until_})\n"
      "lock.because('valid until ' .. until_ .. ', ' .. tostring(until_))\n"
      "assert(lock.is_time(until_ + 1) and not lock.is_time(5))";
  const testing::ProcessResult ok = ExploreTimeScenario(tmp, TimeScenario(Lock(allowed)));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("without relative_time a Lua clock reading is a number, as before", "[lua]") {
  testing::TempDir tmp;
  json doc =
      TimeScenario(Lock("assert(type(lock.now()) == 'number' and lock.now() * 2 >= 0)"), false);
  doc["clock"]["horizon"] = 8;
  doc["properties"] = {"mutual_exclusion"};
  const testing::ProcessResult r = ExploreTimeScenario(tmp, doc);
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("a reply that holds a time written as one is a time", "[lua][all-time]") {
  // C1 writes its deadline with clock_plus; GET gives it back as a time,
  // which compares with the clock.
  const char* source = R"(local s = lock.settings
redis.call("SET", s.key, lock.clock_plus(s.ttl))
local v = redis.call("GET", s.key)
assert(lock.is_time(v), "not a time")
assert(v <= lock.now() + s.ttl and v - lock.now() <= s.ttl)
redis.call("SET", "plain", "12")
assert(redis.call("GET", "plain") == "12")
)";
  testing::TempDir tmp;
  json doc = TimeScenario(source);
  doc["clients"].erase(1);
  doc["clients"][0]["may_never_enter"] = true;
  doc["properties"] = {"mutual_exclusion"};
  const testing::ProcessResult r = ExploreTimeScenario(tmp, doc);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}

}  // namespace
}  // namespace lockstep
