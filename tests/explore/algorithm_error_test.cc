// An algorithm that throws stops the search with its message, on whichever
// thread met it: `explore` turns it into a clear error, never a crash.
#include <stdexcept>

#include <catch2/catch.hpp>

#include "sim/explore/search.h"
#include "sim/world/client.h"

namespace lockstep {
namespace {

TEST_CASE("an algorithm that throws deep in a search on two threads stops it with its message") {
  world::WorldConfig config;
  for (const char* name : {"C1", "C2"}) {
    world::ClientSetup c;
    c.name = name;
    c.algorithm = "twelve-gets";
    c.body = [](world::Client& client) {
      // Twelve steps: deeper than the split depth, so a worker thread
      // (not the one that splits the search) meets the throw.
      for (int i = 0; i < 12; ++i) client.Get("k");
      throw std::runtime_error("boom");
    };
    config.clients.push_back(c);
  }
  for (int jobs : {1, 2}) {
    INFO("jobs " << jobs);
    explore::SearchOptions o;
    o.jobs = jobs;
    CHECK_THROWS_WITH(explore::DepthFirstSearch(config, {}, o), Catch::Matchers::Contains("boom"));
  }
}

}  // namespace
}  // namespace lockstep
