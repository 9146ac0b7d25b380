// The client automaton's fibers: a long search keeps learning, and every
// fiber it abandons must give its stack back while the search goes on; its
// memory is bounded by forgetting transitions, which only costs time.
#include "sim/world/client_automaton.h"

#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/run/explore.h"
#include "sim/trace/trace.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// Lines of /proc/self/maps: the process's memory mappings. A fiber's
// stack is two (the stack and its guard page).
int Mappings() {
  std::ifstream maps("/proc/self/maps");
  int lines = 0;
  for (std::string line; std::getline(maps, line);) ++lines;
  return lines;
}

TEST_CASE("the automaton releases the stacks of the fibers it abandons as it learns") {
  // A client that reads one key, then another: each reply to the first
  // read is a new state, reached from the start by a fiber of its own.
  world::ClientAutomaton automaton(
      "C1", 0, 1,
      [](world::Client& c) {
        c.Get("a");
        c.Get("b");
      },
      false);
  const world::LocalState start = automaton.Start({});
  const int before = Mappings();
  // More fibers than a process may map (vm.max_map_count is 65,530 by
  // default, two a fiber): before the stacks were released as the search
  // went, this ran out of mappings and threw std::bad_alloc.
  constexpr int kReplies = 40'000;
  for (int i = 0; i < kReplies; ++i) {
    world::Input input;
    input.reply = kv::Reply::Bulk(std::to_string(i));
    automaton.Resume(start, input);
  }
  CHECK(automaton.states() == kReplies + 1);
  CHECK(automaton.learned() == kReplies);
  // The fibers parked in the newest states, and those not yet released.
  CHECK(Mappings() - before < 1'000);
}

// The translator's question with one tick of argument delay (a violation),
// or timestamps read in their own step (safe); each client's transitions
// bounded at `max_memo_bytes`.
run::ExploreResult TranslatorsQuestion(int64_t max_arg_delay, uint64_t max_memo_bytes) {
  nlohmann::json doc =
      scenario::LoadScenarioFile(testing::ScenarioPath("getset-loser-overwrite.json")).document;
  doc.erase("schedule");
  doc["assumptions"]["max_arg_delay"] = max_arg_delay;
  scenario::Scenario s = scenario::LoadScenario(doc, "getset-loser-overwrite (edited)");
  for (world::ClientSetup& c : s.world.clients) c.max_memo_bytes = max_memo_bytes;
  return run::Explore(s);
}

TEST_CASE("an automaton that forgets its transitions to bound its memory searches the same space") {
  for (int64_t delay : {0, 1}) {
    INFO("max_arg_delay " << delay);
    const run::ExploreResult whole =
        TranslatorsQuestion(delay, world::ClientAutomaton::kMaxMemoBytes);
    const run::ExploreResult bounded = TranslatorsQuestion(delay, 4'096);
    CHECK(whole.search.stats.automata_forgets == 0);
    CHECK(bounded.search.stats.automata_forgets > 10);
    CHECK(bounded.search.stats.automata_bytes < whole.search.stats.automata_bytes);
    CHECK(bounded.search.verdict == whole.search.verdict);
    CHECK(bounded.search.stats.states == whole.search.stats.states);
    CHECK(bounded.search.stats.transitions == whole.search.stats.transitions);
    CHECK(bounded.search.counterexample == whole.search.counterexample);
    REQUIRE(bounded.counterexample.has_value() == (delay == 1));
    if (delay == 1) {
      // Recorded through relearned transitions: the same file, with its
      // reasons and ghost facts.
      CHECK(trace::ToJsonText(bounded.counterexample->trace) ==
            trace::ToJsonText(whole.counterexample->trace));
    }
  }
}

}  // namespace
}  // namespace lockstep
