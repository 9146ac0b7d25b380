// What a state fingerprint must tell apart: states with different futures.
#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/scenario/scenario.h"
#include "tests/test_util.h"

namespace lockstep {
namespace {

// Two setnx-getset clients writing a resource, fenced or not; the property
// checked (mutual exclusion) reads no resource ghost state.
std::string Scenario(bool fenced) {
  return std::string(R"({"name":"resource-state",
    "clients":[{"name":"C1","algorithm":"setnx-getset"},{"name":"C2","algorithm":"setnx-getset"}],
    "clock":{"start":0,"horizon":3},
    "resource":{"fenced":)") +
         (fenced ? "true" : "false") + R"(},
    "properties":["mutual_exclusion"],"expect":"safe"})";
}

TEST_CASE("what a fenced resource accepted is part of the state, whatever the properties read") {
  for (bool fenced : {true, false}) {
    INFO("fenced " << fenced);
    testing::TempDir dir;
    const scenario::Scenario sc = scenario::LoadScenarioFile(dir.Write("s.json", Scenario(fenced)));
    world::Model model(sc.world, /*use_forget_history=*/false);
    explore::Fingerprinter fp(model, /*symmetry=*/false, /*abstract=*/false,
                              explore::GhostOf(explore::MakeProperties(sc.properties)));
    const world::WorldState before = model.Initial();
    world::WorldState after = before;  // the resource accepted token 5
    after.resource_written = true;
    after.resource_max = 5;
    // Fenced, the resource now refuses tokens up to 5: another future.
    // Unfenced, it accepts every write either way: the same state.
    CHECK((fp.Of(before, nullptr, nullptr) == fp.Of(after, nullptr, nullptr)) == !fenced);
  }
}

}  // namespace
}  // namespace lockstep
