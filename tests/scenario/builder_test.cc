// ScenarioBuilder: a scenario in C++ is the scenario its file would be, and
// a bad one is refused with the loader's messages, those of the bad-input
// table (tests/cli/bad_input_test.cc).
#include "sim/scenario/builder.h"

#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/run/explore.h"
#include "sim/run/runner.h"
#include "tests/test_util.h"

namespace lockstep::builder_test {

using explore::Verdict;
using run::ExploreResult;
using scenario::ClientSpec;
using scenario::LuaSpec;
using scenario::Scenario;
using scenario::ScenarioBuilder;
ExploreResult Explore(const ScenarioBuilder& b) { return run::Explore(b.Build()); }
ExploreResult Explore(const Scenario& s) { return run::Explore(s); }
ExploreResult Explore(const std::string& file) {
  return run::Explore(scenario::LoadScenarioFile(file));
}

using nlohmann::json;

// scenarios/getset-docs-fix.json, method by method.
ScenarioBuilder DocsFix() {
  return ScenarioBuilder()
      .Client({.name = "C3", .crashed = true})
      .Client({.name = "C4", .algorithm = "setnx-getset"})
      .Client({.name = "C5", .algorithm = "setnx-getset"})
      .Key("lock.foo")
      .Timeout(2)
      .RetryDelay(1)
      .Entry({.key = "lock.foo", .value = "7", .writer = "C3"})
      .Start(10)
      .Horizon(20)
      .MaxArgDelay(0)
      .HoldersReleaseInTime()
      .Expect("safe");
}

TEST_CASE("a built scenario is the document its file holds, and searches the same",
          "[scenario][builder]") {
  json file = json::parse(testing::ReadText(testing::ScenarioPath("getset-docs-fix.json")));
  for (const char* field : {"name", "description", "schedule"}) file.erase(field);
  CHECK(DocsFix().Document() == file);
  const ExploreResult built = Explore(DocsFix());
  const ExploreResult loaded = Explore(testing::ScenarioPath("getset-docs-fix.json"));
  CHECK(built.search.verdict == Verdict::kSafe);
  CHECK(built.search.verdict == loaded.search.verdict);
  CHECK(built.search.stats.states == loaded.search.stats.states);
  CHECK(built.search.stats.transitions == loaded.search.stats.transitions);
}

TEST_CASE("the issue's one line builds a stalled lock with its counterexample",
          "[scenario][builder]") {
  const Scenario s =
      ScenarioBuilder().Clients(2, "set-px-script").Ttl(3).Stall(1).Horizon(8).Build();
  REQUIRE(s.world.clients.size() == 2);
  CHECK(s.world.clients[0].name == "C1");
  CHECK(s.world.clients[1].name == "C2");
  CHECK(s.world.faults.stall == 1);
  CHECK(s.world.horizon == 8);
  CHECK_FALSE(s.expect.stated);  // no "expect": the outcome is reported
  const ExploreResult r = Explore(s);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->trace.violation->property == "mutual_exclusion");
}

TEST_CASE("every field of the reference has its method", "[scenario][builder]") {
  const ScenarioBuilder b =
      ScenarioBuilder()
          .Name("all")
          .Description("every field")
          .Client({.name = "A1",
                   .algorithm = "redlock-fenced",
                   .skew = -1,
                   .may_never_enter = true,
                   .lock = {{"ttl", 4}}})
          .Client({.name = "L1",
                   .lua = LuaSpec{.source = "lock.sleep(1)\n",
                                  .settings = {{"own", 1}},
                                  .draws_numbers = true,
                                  .never_reads_tokens = true,
                                  .relative_time = true},
                   .may_never_enter = true})
          .Lock("rounds", 1)
          .Rounds(1)
          .Timeout(3)
          .RequestTimeout(1)
          .TokenServer("T")
          .Entry({.key = "k", .value = "5", .deadline = 9, .writer = "X", .timestamp = true})
          .Start(1)
          .Horizon(9)
          .MaxArgDelay(1)
          .HoldersReleaseInTime(false)
          .MaxHoldTicks(4)
          .Crash(1)
          .Stall(1)
          .StallWhere("releasing")
          .Jump(1, {2})
          .Lose(1)
          .Restart(1)
          .Server({.name = "A",
                   .skew = 1,
                   .persistence = "everysec",
                   .sync_every = 2,
                   .restart_delay = 1})
          .Server({.name = "B", .replica_of = "A"})
          .Server({.name = "C"})
          .Server({.name = "T"})
          .Failover(1)
          .Resource(true)
          .Properties({"mutual_exclusion"})
          .Property("stale_write")
          .Expect("violation:stale_write")
          .Schedule({"A1"})
          .Seed(7)
          .MaxSteps(50);
  const Scenario s = b.Build();
  CHECK(s.name == "all");
  CHECK(s.world.servers.size() == 4);
  CHECK(s.world.servers[1].replica_of == 0);
  CHECK(s.world.servers[0].sync_every == 2);
  CHECK(s.world.clients[0].skew == -1);
  CHECK(s.world.clients[1].algorithm == "lua:inline");
  CHECK(s.may_never_enter == std::vector<bool>{true, true});
  CHECK(s.world.initial_keyspace.at(0).deadline == 9);
  CHECK(s.world.start_time == 1);
  CHECK(s.world.assumptions.max_hold_ticks == 4);
  CHECK(s.world.faults.jump_by == std::vector<int64_t>{2});
  CHECK(s.world.faults.stall_only_releasing);
  CHECK(s.world.faults.failover == 1);
  CHECK(s.world.resource.fenced);
  CHECK(s.properties ==
        std::vector<std::string>{"mutual_exclusion", "stale_write", "client_error"});
  CHECK(s.expect.Text() == "violation:stale_write");
  CHECK(s.schedule_text == std::vector<std::string>{"A1"});
  CHECK(s.world.seed == 7);
  CHECK(s.max_steps == 50);
  CHECK(ScenarioBuilder().Clients(1, "setnx-naive").NoHorizon().UnboundedArgDelay().Document() ==
        json{{"clients", {{{"name", "C1"}, {"algorithm", "setnx-naive"}}}},
             {"clock", {{"horizon", nullptr}}},
             {"assumptions", {{"max_arg_delay", nullptr}}}});
}

// scenarios/setnx-docs-race.json, as the bad-input table starts from.
ScenarioBuilder DocsRace() {
  return ScenarioBuilder()
      .Client({.name = "C1", .algorithm = "setnx-naive"})
      .Client({.name = "C2", .algorithm = "setnx-naive"})
      .Client({.name = "C3", .crashed = true})
      .Key("lock.foo")
      .Timeout(2)
      .Entry({.key = "lock.foo", .value = "7", .writer = "C3"})
      .Start(10)
      .Horizon(20)
      .Expect("violation:mutual_exclusion")
      .Schedule({"C1", "C2", "C1", "C2", "C1", "C1", "C2", "C2"});
}

struct Row {
  const char* what;
  std::function<ScenarioBuilder()> build;
  const char* message;  // after "ScenarioBuilder: ", as the table's after "lockstep: FILE: "
};

// The table's rows a builder can write (its typed methods cannot write a
// string where an integer goes), short of the schedule entries that only a
// replay finds impossible: what the loader refuses.
std::vector<Row> BadRows() {
  return {
      {"missing field", [] { return ScenarioBuilder().Clients(1, "setnx-naive"); },
       "at /: missing field \"clock\" (expected an object)"},
      {"unknown algorithm",
       [] { return DocsRace().Client({.name = "C4", .algorithm = "redlock9"}); },
       "at /clients/3/algorithm: expected one of fenced-set-px, redlock, redlock-fenced, "
       "redlock-instance-tokens, set-px-del, set-px-get-del, set-px-script, setnx-expire, "
       "setnx-getset, setnx-naive; got \"redlock9\""},
      {"unknown action",
       [] {
         return DocsRace().Schedule({"C1", "C2", "jump C1"});
       },
       "at /schedule/2: 'jump C1' names a server, but the scenario has one: its actions are "
       "\"jump +N\" and \"restart\""},
      {"unknown action word",
       [] {
         return DocsRace().Schedule({"C1", "C2", "jumps"});
       },
       "at /schedule/2: expected \"tick\", \"crash NAME\", \"NAME\", \"NAME~AGE\" or \"NAME draws "
       "N\" with a client name (C1, C2, C3), or a fault"},
      {"negative time", [] { return DocsRace().Start(-5); },
       "at /clock/start: expected an integer in [0, 1000000000000], got number -5"},
      {"duplicate client",
       [] { return DocsRace().Client({.name = "C1", .algorithm = "setnx-naive"}); },
       "at /clients/3/name: duplicate client name \"C1\""},
      {"bad expectation", [] { return DocsRace().Expect("violation:deadlock"); },
       "at /expect: expected \"safe\", \"vacuous\", \"violation:mutual_exclusion\", "
       "\"violation:foreign_release\", "
       "\"violation:stale_write\", \"violation:lost_lease_renewed\", "
       "\"violation:no_stuck_states\", \"violation:some_contender_enters\", "
       "\"violation:client_error\", "
       "\"violation:deadlock_free\", "
       "\"violation:starvation_free\", \"violation:no_orphaned_lock\"; got \"violation:deadlock\""},
      {"negative skew out of range",
       [] {
         return DocsRace().Client({.name = "C4", .algorithm = "setnx-naive", .skew = -20000000});
       },
       "at /clients/3/skew: expected an integer in [-10000000, 10000000]"},
      {"seed 2^63", [] { return DocsRace().Seed(9223372036854775808ULL); },
       "at /seed: expected an integer in [0, 9223372036854775807], got number 9223372036854775808"},
      {"a violation expected of a property not checked", [] { return DocsRace().Properties({}); },
       "at /expect: expects a violation of mutual_exclusion, which \"properties\" does not check; "
       "expected mutual_exclusion among the properties"},
      {"a restart budget no server can use",
       [] {
         return DocsRace()
             .Server({.name = "A"})
             .Server({.name = "B", .replica_of = "A"})
             .Restart(1);
       },
       "at /faults/restart: no server can restart (a server with a replica or a master never "
       "does); expected 0, or a server without either"},
      {"a setting out of its declared range", [] { return DocsRace().Timeout(-1); },
       "at /lock/timeout: expected an integer in [0, 10000000], got number -1"},
  };
}

TEST_CASE("a bad built scenario gets the bad-input table's message", "[scenario][builder]") {
  REQUIRE_NOTHROW(DocsRace().Build());
  for (const Row& row : BadRows()) {
    INFO(row.what);
    const ScenarioBuilder b = row.build();
    std::string message;
    try {
      b.Build();
    } catch (const base::InputError& e) {
      message = e.what();
    }
    INFO(message);
    // This program registers one more algorithm than lockstep has
    // (tests/algo/registration_test.cc), which the list names.
    std::string expected = row.message;
    if (const size_t at = expected.find("setnx-naive; got"); at != std::string::npos) {
      expected.replace(at, 11, "setnx-naive, test-plain-del");
    }
    CHECK(message.find("ScenarioBuilder: " + expected) == 0);
  }
}

// The same documents as files, through `lockstep replay`: a process per row,
// the loader's code the case above already runs, so Release only.
TEST_CASE("a bad built scenario's document, as a file, gets the same message",
          "[scenario][builder][sweep]") {
  testing::TempDir tmp;
  for (const Row& row : BadRows()) {
    INFO(row.what);
    const ScenarioBuilder b = row.build();
    const std::string file = tmp.Write("bad.json", b.Document().dump());
    const testing::ProcessResult r = testing::RunLockstep({"replay", file});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("lockstep: " + file + ": " + row.message) == 0);
  }
}

}  // namespace lockstep::builder_test
