// A state's clients held in place (base::InlineVector): a copy is a state
// of its own, only the clients in use are copied, and a client added is
// a fresh slot whatever the place held before.
#include <catch2/catch.hpp>

#include "sim/base/inline_vector.h"
#include "sim/world/model.h"

namespace lockstep::world {
namespace {

TEST_CASE("a state's clients copy in place, and a client added starts as a fresh slot") {
  base::InlineVector<ClientSlot, base::kMaxClients> a;
  a.resize(3);
  a[1].holding = true;
  a[2].valid_until = 42;
  a[2].superseded_by = 1;
  const base::InlineVector<ClientSlot, base::kMaxClients> b = a;
  a[1].holding = false;
  a[2].valid_until = 7;
  REQUIRE(b.size() == 3);
  CHECK(b[1].holding);
  CHECK(b[2].valid_until == 42);
  CHECK(b[2].superseded_by == 1);
  CHECK(std::distance(b.begin(), b.end()) == 3);

  // Assigning fewer clients leaves the rest unused; using them again
  // gives fresh slots, not what was there.
  base::InlineVector<ClientSlot, base::kMaxClients> one;
  one.resize(1);
  a = one;
  CHECK(a.size() == 1);
  a.resize(3);
  CHECK_FALSE(a[1].holding);
  CHECK(a[2].valid_until == 0);
  CHECK(a[2].superseded_by == -1);
  CHECK(a[2].status == ClientStatus::kReady);
}

TEST_CASE("a client's slot keeps each flag apart from the others") {
  ClientSlot c;
  c.holding = true;
  c.timing_out = true;
  CHECK_FALSE(c.in_critical_section);
  CHECK_FALSE(c.stalled);
  CHECK_FALSE(c.sent_clock);
  CHECK_FALSE(c.superseded);
  c.holding = false;
  CHECK(c.timing_out);
  c.superseded_by = 7;  // the last client a state may hold
  CHECK(c.superseded_by == 7);
}

}  // namespace
}  // namespace lockstep::world
