// An algorithm that breaks a rule (a std::logic_error) stops the search
// with its message, on whichever thread met it: `explore` turns it into a
// clear error, never a crash. Any other exception is a finding: a
// violation of client_error, found on every thread.
#include <algorithm>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "sim/explore/execution.h"
#include "sim/explore/search.h"
#include "sim/world/client.h"

namespace lockstep {
namespace {

// Two clients that throw `error` after twelve steps: deeper than the split
// depth, so a worker thread (not the one that splits the search) meets it.
template <class Error>
world::WorldConfig Throwing() {
  world::WorldConfig config;
  for (const char* name : {"C1", "C2"}) {
    world::ClientSetup c;
    c.name = name;
    c.algorithm = "twelve-gets";
    c.body = [](world::Client& client) {
      for (int i = 0; i < 12; ++i) client.Get("k");
      throw Error("boom");
    };
    config.clients.push_back(c);
  }
  return config;
}

TEST_CASE(
    "an algorithm that breaks a rule deep in a search on two threads stops it with its "
    "message") {
  const world::WorldConfig config = Throwing<world::RuleBroken>();
  for (int jobs : {1, 2}) {
    INFO("jobs " << jobs);
    explore::SearchOptions o;
    o.jobs = jobs;
    CHECK_THROWS_WITH(explore::DepthFirstSearch(config, {}, o), Catch::Matchers::Contains("boom"));
  }
}

TEST_CASE(
    "an algorithm that throws any other exception deep in a search on two threads is a "
    "violation of client_error") {
  const world::WorldConfig config = Throwing<std::runtime_error>();
  for (int jobs : {1, 2}) {
    INFO("jobs " << jobs);
    explore::SearchOptions o;
    o.jobs = jobs;
    const explore::SearchResult r =
        explore::DepthFirstSearch(config, explore::MakeProperties({"client_error"}), o);
    REQUIRE(r.verdict == explore::Verdict::kViolation);
    CHECK(r.violation->property == "client_error");
    CHECK(r.violation->message.find("'s algorithm threw: boom") != std::string::npos);
    // The thrower's twelve GETs, the last reply making it throw: alone on
    // one thread; on two, whichever thread finds it first may have the other
    // client's steps between them.
    REQUIRE(r.violation->clients.size() == 1);
    const int thrower = r.violation->clients[0] == "C1" ? 0 : 1;
    const auto by_thrower = std::count_if(
        r.counterexample.begin(), r.counterexample.end(), [&](const world::Action& a) {
          return a.kind == world::Action::Kind::kStep && a.client == thrower;
        });
    CHECK(by_thrower == 12);
    if (jobs == 1) CHECK(r.counterexample.size() == 12);
  }
}

}  // namespace
}  // namespace lockstep
