// The client automaton's fibers: a long search keeps learning, and every
// fiber it abandons must give its stack back while the search goes on.
#include "sim/world/client_automaton.h"

#include <fstream>
#include <string>

#include <catch2/catch.hpp>

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

}  // namespace
}  // namespace lockstep
