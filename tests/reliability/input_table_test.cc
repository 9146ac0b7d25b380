// The table of bad inputs: every class of bad value, in a scenario file and
// in a saved trace, is refused with exit 2 and one line naming the file, the
// JSON location and what was expected there; no output file is written. The
// scenario cases are run through `replay`, `run` and `explore`, which load
// scenarios the same way; the trace cases through `replay`.
#include <filesystem>
#include <functional>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::RunLockstep;
using testing::TempDir;

json Scenario() {
  return json::parse(testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
}

// The trace lockstep writes for setnx-docs-race.json.
json Trace() {
  TempDir tmp;
  std::string path = tmp.File("race.json");
  auto r =
      RunLockstep({"replay", testing::ScenarioPath("setnx-docs-race.json"), "--trace-out", path});
  REQUIRE(r.exit_code == 1);
  return json::parse(testing::ReadText(path));
}

// Text nested `depth` arrays deep at the place of `field` in a document.
std::string Nested(json doc, const std::string& field, int depth) {
  doc[field] = "@@";
  std::string text = doc.dump();
  return text.replace(text.find("\"@@\""), 4, std::string(depth, '[') + std::string(depth, ']'));
}

// 17 MiB of valid JSON: a field too long to read.
std::string Enormous(json doc) {
  doc["name"] = std::string(17 << 20, 'x');
  return doc.dump();
}

// The message expected for a content: the whole line after "lockstep: FILE: ".
using Message = std::function<std::string(const std::string& content)>;
Message Is(std::string m) {
  return [m](const std::string&) { return m; };
}
// "line 1, column N" of the first occurrence of `token` in the content.
Message At(std::string before, std::string token) {
  return [before, token](const std::string& content) {
    return before + "line 1, column " + std::to_string(content.find(token) + 1);
  };
}
Message TooLarge() {
  return [](const std::string& content) {
    return "file is " + std::to_string(content.size()) + " bytes; expected at most 16 MiB";
  };
}

struct Case {
  const char* what;
  std::function<std::string()> content;
  Message message;
  bool only_replay = false;  // about the schedule, which only replay reads
};

void Check(const std::vector<Case>& cases, bool scenarios) {
  TempDir tmp;
  for (const Case& c : cases) {
    std::string content = c.content();
    std::string file = tmp.Write("bad.json", content);
    std::string message = c.message(content);
    std::string out = tmp.File("out.json");
    std::vector<std::vector<std::string>> commands = {{"replay", file, "--trace-out", out}};
    if (scenarios && !c.only_replay) {
      commands.push_back({"run", file, "--seed", "1", "--trace-out", out});
      commands.push_back({"explore", file, "--out", tmp.File("ce")});
    }
    for (const auto& args : commands) {
      INFO(c.what << " (lockstep " << args[0] << ")");
      auto r = RunLockstep(args);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "lockstep: " + file + ": " + message + "\n");
      CHECK(r.out.empty());
      CHECK_FALSE(std::filesystem::exists(out));
      CHECK_FALSE(std::filesystem::exists(tmp.File("ce")));
    }
  }
}

TEST_CASE("the bad scenario table is refused with the file and the JSON location", "[input]") {
  const std::string range = "expected an integer in ";
  const std::vector<Case> cases = {
      // Huge numbers.
      {"huge number",
       [] {
         json j = Scenario();
         j["clock"]["horizon"] = 1e300;
         return j.dump();
       },
       Is("at /clock/horizon: " + range + "[10, 10000010], got number 1e+300")},
      {"number beyond 64 bits",
       [] {
         json j = Scenario();
         j["seed"] = 18446744073709551615ULL;
         return j.dump();
       },
       Is("at /seed: " + range + "[0, 9223372036854775807], got number 18446744073709551615")},
      {"number beyond a double",
       [] {
         std::string t = Scenario().dump();
         return t.replace(t.find("\"horizon\":20"), 12, "\"horizon\":1e400");
       },
       At("at /: malformed JSON: number overflow parsing '1e400' at ", "1e400")},
      {"huge timeout",
       [] {
         json j = Scenario();
         j["lock"]["timeout"] = 10000001;
         return j.dump();
       },
       Is("at /lock/timeout: " + range + "[0, 10000000], got number 10000001")},
      {"huge step bound",
       [] {
         json j = Scenario();
         j["max_steps"] = 10000001;
         return j.dump();
       },
       Is("at /max_steps: " + range + "[1, 10000000], got number 10000001")},
      {"fractional time",
       [] {
         json j = Scenario();
         j["clock"]["start"] = 2.5;
         return j.dump();
       },
       Is("at /clock/start: " + range + "[0, 1000000000000], got number 2.5")},
      {"time as a string",
       [] {
         json j = Scenario();
         j["clock"]["start"] = "10";
         return j.dump();
       },
       Is("at /clock/start: " + range + "[0, 1000000000000], got string \"10\"")},
      // Negative times.
      {"negative start",
       [] {
         json j = Scenario();
         j["clock"]["start"] = -5;
         return j.dump();
       },
       Is("at /clock/start: " + range + "[0, 1000000000000], got number -5")},
      {"horizon before the start",
       [] {
         json j = Scenario();
         j["clock"]["horizon"] = 9;
         return j.dump();
       },
       Is("at /clock/horizon: " + range + "[10, 10000010], got number 9")},
      {"negative deadline",
       [] {
         json j = Scenario();
         j["keyspace"][0]["deadline"] = -1;
         return j.dump();
       },
       Is("at /keyspace/0/deadline: " + range + "[0, 1000000000000], got number -1")},
      {"negative timeout",
       [] {
         json j = Scenario();
         j["lock"]["timeout"] = -2;
         return j.dump();
       },
       Is("at /lock/timeout: " + range + "[0, 10000000], got number -2")},
      {"negative retry delay",
       [] {
         json j = Scenario();
         j["clients"][0]["lock"] = {{"retry_delay", -1}};
         return j.dump();
       },
       Is("at /clients/0/lock/retry_delay: " + range + "[0, 10000000], got number -1")},
      {"negative argument delay",
       [] {
         json j = Scenario();
         j["assumptions"]["max_arg_delay"] = -1;
         return j.dump();
       },
       Is("at /assumptions/max_arg_delay: " + range + "[0, 10000000], got number -1")},
      {"negative hold bound",
       [] {
         json j = Scenario();
         j["assumptions"]["max_hold_ticks"] = -1;
         return j.dump();
       },
       Is("at /assumptions/max_hold_ticks: " + range + "[0, 10000000], got number -1")},
      {"skew beyond the bound",
       [] {
         json j = Scenario();
         j["clients"][1]["skew"] = -10000001;
         return j.dump();
       },
       Is("at /clients/1/skew: " + range + "[-10000000, 10000000], got number -10000001")},
      // Client lists.
      {"empty client list",
       [] {
         json j = Scenario();
         j["clients"] = json::array();
         return j.dump();
       },
       Is("at /clients: expected 1 to 8 clients, got 0")},
      {"nine clients",
       [] {
         json j = Scenario();
         for (int i = 4; i <= 9; ++i)
           j["clients"].push_back({{"name", "C" + std::to_string(i)}, {"crashed", true}});
         return j.dump();
       },
       Is("at /clients: expected 1 to 8 clients, got 9")},
      {"client list not an array",
       [] {
         json j = Scenario();
         j["clients"] = {{"C1", "setnx-naive"}};
         return j.dump();
       },
       Is("at /clients: expected an array, got an object")},
      {"duplicate client name",
       [] {
         json j = Scenario();
         j["clients"][1]["name"] = "C1";
         return j.dump();
       },
       Is("at /clients/1/name: duplicate client name \"C1\"")},
      {"reserved client name",
       [] {
         json j = Scenario();
         j["clients"][1]["name"] = "tick";
         return j.dump();
       },
       Is("at /clients/1/name: \"tick\" is reserved")},
      {"client name with a newline",
       [] {
         json j = Scenario();
         j["clients"][1]["name"] = "C\n2";
         return j.dump();
       },
       Is("at /clients/1/name: expected a client name of 1-16 letters, digits, '_' or '-' starting "
          "with a letter, got \"C\\n2\"")},
      {"contender without algorithm",
       [] {
         json j = Scenario();
         j["clients"][0].erase("algorithm");
         return j.dump();
       },
       Is("at /clients/0: missing field \"algorithm\" (expected a string)")},
      // Other values.
      {"duplicate key",
       [] {
         json j = Scenario();
         j["keyspace"].push_back({{"key", "lock.foo"}, {"value", "1"}});
         return j.dump();
       },
       Is("at /keyspace/1/key: duplicate key \"lock.foo\"")},
      {"empty lock key",
       [] {
         json j = Scenario();
         j["lock"]["key"] = "";
         return j.dump();
       },
       Is("at /lock/key: expected a non-empty key name")},
      {"unknown property",
       [] {
         json j = Scenario();
         j["properties"] = {"mutual_exclusion", "liveness\n"};
         return j.dump();
       },
       Is("at /properties/1: expected one of mutual_exclusion, foreign_release, stale_write, "
          "lost_lease_renewed, no_stuck_states, some_contender_enters, client_error, "
          "deadlock_free, starvation_free, "
          "no_orphaned_lock; got "
          "\"liveness\\n\"")},
      {"unknown nested field",
       [] {
         json j = Scenario();
         j["clock"]["end"] = 30;
         return j.dump();
       },
       Is("at /clock/end: unknown field \"end\" (known fields: start, horizon)")},
      {"long non-ASCII value, cut at a character",
       [] {
         json j = Scenario();
         j["clock"]["horizon"] = "a" + std::string(30, 'x');
         std::string t = j.dump();
         size_t at = t.find(std::string(30, 'x'));
         std::string e;
         for (int i = 0; i < 30; ++i) e += "\xc3\xa9";
         return t.replace(at, 30, e);
       },
       [](const std::string&) {
         std::string e;
         for (int i = 0; i < 17; ++i) e += "\xc3\xa9";
         return "at /clock/horizon: expected an integer in [10, 10000010], got string \"a" + e +
                "...";
       }},
      // Deeply nested or enormous JSON.
      {"deep nesting", [] { return Nested(Scenario(), "description", 65); },
       [](const std::string& t) {
         // The document itself is the first level.
         size_t at = t.find(std::string(65, '[')) + 63;
         return "at /: JSON nested deeper than 64 levels, at line 1, column " +
                std::to_string(at + 1);
       }},
      {"enormous file", [] { return Enormous(Scenario()); }, TooLarge()},
      // Schedules.
      {"action that cannot happen there",
       [] {
         json j = Scenario();
         j["schedule"][0] = "C3";
         return j.dump();
       },
       Is("at /schedule/0: 'C3' is not possible here: C3 cannot run: it is crashed"), true},
  };
  Check(cases, true);
}

TEST_CASE("the bad trace table is refused with the file and the JSON location", "[input]") {
  const json base = Trace();
  const std::string range = "expected an integer in ";
  const std::string contradicts =
      ": the trace contradicts its scenario: replaying its schedule gives a different record here";
  auto edit = [&base](std::function<void(json&)> f) {
    return [&base, f] {
      json j = base;
      f(j);
      return j.dump(2);
    };
  };
  const std::vector<Case> cases = {
      // Huge numbers.
      {"huge seed", edit([](json& j) { j["seed"] = 18446744073709551615ULL; }),
       Is("at /seed: " + range + "[0, 9223372036854775807], got number 18446744073709551615")},
      {"huge clock", edit([](json& j) { j["steps"][2]["clock"] = 1e30; }),
       Is("at /steps/2/clock: " + range +
          "[-2305843009213693952, 2305843009213693951], got number 1e+30")},
      {"huge number in the scenario",
       edit([](json& j) { j["scenario"]["clock"]["horizon"] = 1e300; }),
       Is("at /scenario/clock/horizon: " + range + "[10, 10000010], got number 1e+300")},
      {"huge violation step", edit([](json& j) { j["violation"]["step"] = 1LL << 40; }),
       Is("at /violation/step: " + range + "[0, 2147483647], got number 1099511627776")},
      // Negative times.
      {"negative start in the scenario",
       edit([](json& j) { j["scenario"]["clock"]["start"] = -5; }),
       Is("at /scenario/clock/start: " + range + "[0, 1000000000000], got number -5")},
      {"negative step clock", edit([](json& j) { j["steps"][3]["clock"] = -1; }),
       Is("at /steps/3" + contradicts)},
      {"negative client clock", edit([](json& j) { j["steps"][0]["client_clocks"]["C2"] = -10; }),
       Is("at /steps/0" + contradicts)},
      {"negative violation step", edit([](json& j) { j["violation"]["step"] = -1; }),
       Is("at /violation/step: " + range + "[0, 2147483647], got number -1")},
      // Client lists.
      {"empty client list", edit([](json& j) { j["clients"] = json::array(); }),
       Is("at /clients: expected 1 to 8 clients, got 0")},
      {"empty client list in the scenario",
       edit([](json& j) { j["scenario"]["clients"] = json::array(); }),
       Is("at /scenario/clients: expected 1 to 8 clients, got 0")},
      {"duplicate client name", edit([](json& j) { j["clients"][1]["name"] = "C1"; }),
       Is("at /clients/1/name: duplicate client name \"C1\"")},
      {"duplicate client name in the scenario",
       edit([](json& j) { j["scenario"]["clients"][1]["name"] = "C1"; }),
       Is("at /scenario/clients/1/name: duplicate client name \"C1\"")},
      {"clients in another order",
       edit([](json& j) { std::swap(j["clients"][0], j["clients"][1]); }),
       Is("at /clients: the clients do not match the embedded scenario's")},
      // Deeply nested or enormous JSON.
      {"deep nesting", [&base] { return Nested(base, "end", 65); },
       [](const std::string& t) {
         // The document itself is the first level.
         size_t at = t.find(std::string(65, '[')) + 63;
         return "at /: JSON nested deeper than 64 levels, at line 1, column " +
                std::to_string(at + 1);
       }},
      {"enormous file", [&base] { return Enormous(base); }, TooLarge()},
      // Other format versions.
      {"next format version", edit([](json& j) { j["format"] = "lockstep-trace/4"; }),
       Is("at /format: expected \"lockstep-trace/3\", \"lockstep-trace/2\" or "
          "\"lockstep-trace/1\", got \"lockstep-trace/4\"")},
      {"version 3 without its lasso", edit([](json& j) { j["format"] = "lockstep-trace/3"; }),
       Is("at /: missing field \"lasso\" (expected a value)")},
      {"format as a number", edit([](json& j) { j["format"] = 1; }),
       Is("at /format: expected a string, got number 1")},
      {"unknown field", edit([](json& j) { j["comment"] = "x"; }),
       Is("at /comment: unknown field \"comment\" (known fields: format, scenario, seed, clients, "
          "schedule, steps, end, violation)")},
      {"scenario not an object", edit([](json& j) { j["scenario"] = 5; }),
       Is("at /scenario: expected an object, got number 5")},
      // Steps that contradict the scenario.
      {"edited reply", edit([](json& j) { j["steps"][4]["reply"]["value"] = "8"; }),
       Is("at /steps/4" + contradicts)},
      {"edited initial keyspace",
       edit([](json& j) { j["steps"][0]["keyspace"][0]["value"] = "9"; }),
       Is("at /steps/0" + contradicts)},
      {"a step missing", edit([](json& j) { j["steps"].erase(j["steps"].size() - 1); }),
       Is("at /steps/8" + contradicts)},
      {"schedule cut short", edit([](json& j) { j["schedule"].erase(j["schedule"].size() - 1); }),
       Is("at /steps/8" + contradicts)},
      {"action that cannot happen there", edit([](json& j) { j["schedule"][0] = "C3"; }),
       Is("at /schedule/0: 'C3' is not possible here: C3 cannot run: it is crashed")},
      {"step index out of place", edit([](json& j) { j["steps"][2]["index"] = 3; }),
       Is("at /steps/2/index: " + range + "[2, 2], got number 3")},
      {"edited algorithm", edit([](json& j) { j["clients"][0]["algorithm"] = "setnx-getset"; }),
       Is("at /clients" + contradicts)},
      {"edited violation", edit([](json& j) { j["violation"]["message"] = "nothing happened"; }),
       Is("at /violation" + contradicts)},
      {"no violation", edit([](json& j) { j["violation"] = nullptr; }),
       Is("at /violation" + contradicts)},
      {"edited end", edit([](json& j) { j["end"] = "the schedule ended"; }),
       Is("at /end" + contradicts)},
  };
  Check(cases, false);
}

}  // namespace
}  // namespace lockstep
