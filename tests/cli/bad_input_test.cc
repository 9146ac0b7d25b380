// Every class of bad input: exit code 2 and one message naming the file,
// the JSON location and what was expected; no output file left behind.
#include <filesystem>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;
using testing::TempDir;

json Valid() {
  return json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
}

struct Case {
  const char* what;
  std::function<std::string()> file;  // the file's content
  const char* message;                // expected after "lockstep: FILE: "
};

// Runs `lockstep COMMAND... FILE --trace-out OUT` on each case's file.
void ExpectRefused(const std::vector<Case>& cases, const std::vector<std::string>& command) {
  TempDir tmp;
  for (const Case& c : cases) {
    INFO(c.what);
    std::string file = tmp.Write("bad.json", c.file());
    std::string out = tmp.File("trace.json");
    std::vector<std::string> args = command;
    args.insert(args.end(), {file, "--trace-out", out});
    auto r = RunLockstep(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("lockstep: " + file + ": " + c.message) == 0);
    CHECK(r.err.find('\n') == r.err.size() - 1);  // one message, one line
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("bad scenarios are refused with exit 2, the file, the place and what was expected") {
  const std::vector<Case> cases = {
      {"malformed JSON", [] { return std::string("{\"clients\": [}"); },
       "at /: malformed JSON: parse error at line 1, column 14: syntax error while parsing "
       "value - unexpected '}'; expected '[', '{', or a literal"},
      {"not an object", [] { return std::string("[1, 2]"); },
       "at /: expected an object, got an array"},
      {"missing field",
       [] {
         json j = Valid();
         j.erase("clock");
         return j.dump();
       },
       "at /: missing field \"clock\" (expected an object)"},
      {"mistyped field",
       [] {
         json j = Valid();
         j["clock"]["horizon"] = "20";
         return j.dump();
       },
       "at /clock/horizon: expected an integer in [10, 10000010], got string \"20\""},
      {"unknown field",
       [] {
         json j = Valid();
         j["horizn"] = 3;
         return j.dump();
       },
       "at /horizn: unknown field \"horizn\""},
      {"unknown algorithm",
       [] {
         json j = Valid();
         j["clients"][1]["algorithm"] = "redlock9";
         return j.dump();
       },
       "at /clients/1/algorithm: expected one of fenced-set-px, redlock, redlock-fenced, "
       "redlock-instance-tokens, set-px-del, set-px-get-del, set-px-script, setnx-expire, "
       "setnx-getset, setnx-naive; got \"redlock9\""},
      {"unknown action",
       [] {
         json j = Valid();
         j["schedule"][2] = "jump C1";
         return j.dump();
       },
       "at /schedule/2: 'jump C1' names a server, but the scenario has one: its actions are "
       "\"jump +N\" and \"restart\""},
      {"unknown action word",
       [] {
         json j = Valid();
         j["schedule"][2] = "jumps";
         return j.dump();
       },
       "at /schedule/2: expected \"tick\", \"crash NAME\", \"NAME\", \"NAME~AGE\" or \"NAME draws "
       "N\" with a client name (C1, C2, C3), or a fault"},
      {"unknown client",
       [] {
         json j = Valid();
         j["schedule"][0] = "C9";
         return j.dump();
       },
       "at /schedule/0: expected \"tick\""},
      {"client that cannot run there",
       [] {
         json j = Valid();
         j["schedule"][0] = "C3";
         return j.dump();
       },
       "at /schedule/0: 'C3' is not possible here: C3 cannot run: it is crashed"},
      {"tick past the horizon",
       [] {
         json j = Valid();
         j["clock"]["horizon"] = 10;
         j["schedule"] = {"tick"};
         return j.dump();
       },
       "at /schedule/0: 'tick' is not possible here: the clock is at the horizon (10)"},
      {"huge number",
       [] {
         json j = Valid();
         j["clock"]["start"] = 1e30;
         return j.dump();
       },
       "at /clock/start: expected an integer in [0, 1000000000000], got number 1e+30"},
      {"negative time",
       [] {
         json j = Valid();
         j["clock"]["start"] = -5;
         return j.dump();
       },
       "at /clock/start: expected an integer in [0, 1000000000000], got number -5"},
      {"empty client list",
       [] {
         json j = Valid();
         j["clients"] = json::array();
         return j.dump();
       },
       "at /clients: expected 1 to 8 clients, got 0"},
      {"duplicate client",
       [] {
         json j = Valid();
         j["clients"][1]["name"] = "C1";
         return j.dump();
       },
       "at /clients/1/name: duplicate client name \"C1\""},
      {"bad expectation",
       [] {
         json j = Valid();
         j["expect"] = "violation:deadlock";
         return j.dump();
       },
       "at /expect: expected \"safe\", \"vacuous\", \"violation:mutual_exclusion\", "
       "\"violation:foreign_release\", "
       "\"violation:stale_write\", \"violation:lost_lease_renewed\", "
       "\"violation:no_stuck_states\", \"violation:some_contender_enters\", "
       "\"violation:client_error\", "
       "\"violation:deadlock_free\", "
       "\"violation:starvation_free\", \"violation:no_orphaned_lock\"; got \"violation:deadlock\""},
      {"negative skew out of range",
       [] {
         json j = Valid();
         j["clients"][0]["skew"] = -20000000;
         return j.dump();
       },
       "at /clients/0/skew: expected an integer in [-10000000, 10000000]"},
      {"deep nesting", [] { return std::string(200, '[') + std::string(200, ']'); },
       "at /: JSON nested deeper than 64 levels"},
      // null is an integer field's value only where the reference says |null.
      {"null timeout",
       [] {
         json j = Valid();
         j["lock"]["timeout"] = nullptr;
         return j.dump();
       },
       "at /lock/timeout: expected an integer in [0, 10000000], got null"},
      {"null clock start",
       [] {
         json j = Valid();
         j["clock"]["start"] = nullptr;
         return j.dump();
       },
       "at /clock/start: expected an integer in [0, 1000000000000], got null"},
      {"null seed",
       [] {
         json j = Valid();
         j["seed"] = nullptr;
         return j.dump();
       },
       "at /seed: expected an integer in [0, 9223372036854775807], got null"},
      {"null step bound",
       [] {
         json j = Valid();
         j["max_steps"] = nullptr;
         return j.dump();
       },
       "at /max_steps: expected an integer in [1, 10000000], got null"},
      {"null skew",
       [] {
         json j = Valid();
         j["clients"][0]["skew"] = nullptr;
         return j.dump();
       },
       "at /clients/0/skew: expected an integer in [-10000000, 10000000], got null"},
      // Seeds: what a trace carries, 0..2^63-1.
      {"negative seed",
       [] {
         json j = Valid();
         j["seed"] = -1;
         return j.dump();
       },
       "at /seed: expected an integer in [0, 9223372036854775807], got number -1"},
      {"seed 2^63",
       [] {
         json j = Valid();
         j["seed"] = 9223372036854775808ULL;
         return j.dump();
       },
       "at /seed: expected an integer in [0, 9223372036854775807], got number 9223372036854775808"},
      // Contradictions within the scenario.
      {"a violation expected of a property not checked",
       [] {
         json j = Valid();
         j["properties"] = json::array();
         return j.dump();
       },
       "at /expect: expects a violation of mutual_exclusion, which \"properties\" does not check; "
       "expected mutual_exclusion among the properties"},
      {"a restart budget no server can use",
       [] {
         json j = Valid();
         j["servers"] = {{{"name", "A"}}, {{"name", "B"}, {"replica_of", "A"}}};
         j["faults"] = {{"restart", 1}};
         return j.dump();
       },
       "at /faults/restart: no server can restart (a server with a replica or a master never "
       "does); expected 0, or a server without either"},
      {"a trace without its format",
       [] {
         TempDir tmp;
         const std::string trace = tmp.File("t.json");
         RunLockstep(
             {"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", trace});
         json j = json::parse(testing::ReadText(trace));
         j.erase("format");
         return j.dump();
       },
       "at /: missing field \"format\": this is a trace (it has \"scenario\" and \"steps\"), and a "
       "trace says \"format\": \"lockstep-trace/2\""},
  };
  ExpectRefused(cases, {"replay"});
}

TEST_CASE("a valid scenario that is likely not what was meant warns, with the same exit code") {
  TempDir tmp;
  json j = Valid();
  j["schedule"].push_back("tick");
  j["schedule"].push_back("C1");
  std::string file = tmp.Write("longer.json", j.dump());
  auto r = RunLockstep({"replay", file});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "lockstep: " + file +
                     ": warning: at /schedule/8: the violation at step 8 ends "
                     "the replay; the 2 entries from here on are not run\n");

  j = Valid();
  j["expect"] = "safe";
  file = tmp.Write("unexpected.json", j.dump());
  r = RunLockstep({"replay", file});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "lockstep: " + file +
                     ": warning: at /expect: expected safe, but "
                     "mutual_exclusion was violated\n");

  j = Valid();
  j["keyspace"][0]["value"] = "held";
  j.erase("schedule");
  file = tmp.Write("forever.json", j.dump());
  r = RunLockstep({"run", file, "--seed", "1"});
  CHECK(r.exit_code == 0);
  CHECK(r.err == "lockstep: " + file +
                     ": warning: at /keyspace/0/value: the lock's value "
                     "string \"held\" is not an integer timestamp, so it never expires\n");
}

TEST_CASE("a trace given to run or explore is named as a trace") {
  TempDir tmp;
  const std::string trace = tmp.File("t.json");
  REQUIRE(
      RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", trace})
          .exit_code == 1);
  for (std::vector<std::string> args : {std::vector<std::string>{"run", trace, "--seed", "1"},
                                        std::vector<std::string>{"explore", trace}}) {
    INFO(args[0]);
    auto r = RunLockstep(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "lockstep: " + trace +
              ": at /: this is a trace, not a scenario; replay it with `lockstep replay`\n");
  }
}

TEST_CASE("a scenario name of 5,000 characters gives a short file name, not a 5 KB error") {
  TempDir tmp;
  json j = Valid();
  j["name"] = std::string(5000, 'n');
  const std::string file = tmp.Write("long.json", j.dump());
  const std::string out = tmp.File("ce");
  auto r = RunLockstep({"explore", file, "--out", out});
  CHECK(r.exit_code == 1);
  CHECK(r.err.size() < 200);  // the one line saying the violation is being shrunk
  CHECK(r.err.find(std::string(65, 'n')) == std::string::npos);
  const std::string saved = out + "/" + std::string(64, 'n') + "-mutual_exclusion-3clients.json";
  CHECK(std::filesystem::exists(saved));
}

json Servers() {
  return json::parse(testing::ReadText(testing::ScenarioPath("redlock-fenced-stall.json")));
}

TEST_CASE("bad server lists and lock servers are refused with exit 2, naming the place") {
  const std::vector<Case> cases = {
      {"no servers",
       [] {
         json j = Servers();
         j["servers"] = json::array();
         return j.dump();
       },
       "at /servers: expected 1 to 8 servers, got 0"},
      {"both forms",
       [] {
         json j = Servers();
         j["server"] = json::object();
         return j.dump();
       },
       "at /servers: expected either \"server\" (one server) or \"servers\" (several), not both"},
      {"duplicate server",
       [] {
         json j = Servers();
         j["servers"][1]["name"] = "A";
         return j.dump();
       },
       "at /servers/1/name: duplicate server name \"A\""},
      {"bad server name",
       [] {
         json j = Servers();
         j["servers"][0]["name"] = "a b";
         return j.dump();
       },
       "at /servers/0/name: expected a server name of 1-16 letters, digits, '_' or '-' starting "
       "with a letter, got \"a b\""},
      {"replica of an unknown server",
       [] {
         json j = Servers();
         j["servers"][1]["replica_of"] = "Z";
         return j.dump();
       },
       "at /servers/1/replica_of: expected the name of a master listed before this server; got "
       "\"Z\""},
      {"replica of itself",
       [] {
         json j = Servers();
         j["servers"][1]["replica_of"] = "B";
         return j.dump();
       },
       "at /servers/1/replica_of: expected the name of a master listed before this server; got "
       "\"B\""},
      {"unknown token server",
       [] {
         json j = Servers();
         j["lock"]["token_server"] = "Q";
         return j.dump();
       },
       "at /lock/token_server: expected the name of a master, with at least one other master to "
       "lock; got \"Q\""},
      {"token server that is a replica",
       [] {
         json j = Servers();
         j["servers"].push_back({{"name", "R"}, {"replica_of", "A"}});
         j["lock"]["token_server"] = "R";
         return j.dump();
       },
       "at /lock/token_server: expected the name of a master, with at least one other master to "
       "lock; got \"R\""},
      {"fenced Redlock without a token server",
       [] {
         json j = Servers();
         j["lock"].erase("token_server");
         return j.dump();
       },
       "at /clients/0/algorithm: redlock-fenced draws its fencing tokens from a server that is "
       "not one of Redlock's instances: expected lock.token_server naming a master"},
      {"a server action naming an unknown server",
       [] {
         json j = Servers();
         j["schedule"] = {"C1", "restart Q"};
         return j.dump();
       },
       "at /schedule/1: unknown server 'Q' in 'restart Q' (servers: A, B, C, T)"},
  };
  ExpectRefused(cases, {"run", "--seed", "1"});
}

TEST_CASE("a missing file, a scenario without schedule and unknown options exit 2") {
  auto r = RunLockstep({"replay", "/nonexistent/x.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "lockstep: /nonexistent/x.json: cannot open the file for reading\n");

  TempDir tmp;
  json j = Valid();
  j.erase("schedule");
  std::string file = tmp.Write("noschedule.json", j.dump());
  r = RunLockstep({"replay", file});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("at /: missing field \"schedule\"") != std::string::npos);

  r = RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--frobnicate"});
  CHECK(r.exit_code == 2);
  r = RunLockstep({"launch"});
  CHECK(r.exit_code == 2);
  r = RunLockstep({"run", testing::ScenarioPath("setnx-docs-race.json")});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--seed is required") != std::string::npos);
}

TEST_CASE("a trace whose steps contradict its scenario is refused at the first differing step") {
  TempDir tmp;
  std::string trace = tmp.File("race.json");
  REQUIRE(
      RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", trace})
          .exit_code == 1);
  json j = json::parse(testing::ReadText(trace));
  j["steps"][4]["reply"]["value"] = "8";
  std::string edited = tmp.Write("edited.json", j.dump(2));
  auto r = RunLockstep({"replay", edited});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "lockstep: " + edited +
                     ": at /steps/4: the trace contradicts its scenario: "
                     "replaying its schedule gives a different record here\n");

  j = json::parse(testing::ReadText(trace));
  j.erase("scenario");
  std::string headless = tmp.Write("headless.json", j.dump(2));
  r = RunLockstep({"replay", headless});
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "lockstep: " + headless + ": at /: missing field \"scenario\" (expected a value)\n");

  j = json::parse(testing::ReadText(trace));
  j["format"] = "lockstep-trace/0";
  std::string old = tmp.Write("old.json", j.dump(2));
  r = RunLockstep({"replay", old});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "lockstep: " + old +
                     ": at /format: expected \"lockstep-trace/3\", \"lockstep-trace/2\" or "
                     "\"lockstep-trace/1\", got \"lockstep-trace/0\"\n");
}

TEST_CASE("a trace that cannot be written leaves nothing behind and exits 2") {
  auto r = RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out",
                        "/nonexistent-dir/t.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("cannot create a file next to /nonexistent-dir/t.json") != std::string::npos);
}

}  // namespace
}  // namespace lockstep
