// Actions' text form: what a schedule in a scenario or a trace holds.
#include "sim/world/action.h"

#include <catch2/catch.hpp>

#include "sim/base/input_error.h"

namespace lockstep {
namespace {

using world::Action;

TEST_CASE("a step's argument age and a jump's size round-trip through the text form") {
  const std::vector<std::string> clients = {"C1", "C2"}, servers = {"S1", "S2"};
  Action step = world::ParseAction("C2~3", clients, servers);
  CHECK(step == Action::Step(1, 3));
  CHECK(step.arg_age == 3);
  CHECK(step.jump_by == 0);
  Action jump = world::ParseAction("jump S2 +5", clients, servers);
  CHECK(jump == Action::Jump(5, 1));
  CHECK(jump.jump_by == 5);
  CHECK(jump.arg_age == 0);
  CHECK(world::FormatAction(step, clients, servers) == "C2~3");
  CHECK(world::FormatAction(jump, clients, servers) == "jump S2 +5");
}

TEST_CASE("an action that is not one throws InputError saying what was expected, with no place") {
  try {
    world::ParseAction("crash C9", {"C1", "C2"});
    FAIL("no error");
  } catch (const base::InputError& e) {
    CHECK(e.expected == "unknown client 'C9' (clients: C1, C2)");
    CHECK(e.file.empty());
    CHECK(e.place.empty());
  }
  CHECK_THROWS_AS(world::ParseAction("jump +0", {"C1"}), base::InputError);
  CHECK_THROWS_AS(world::ParseAction("restart S3", {"C1"}, {"S1", "S2"}), base::InputError);
}

}  // namespace
}  // namespace lockstep
