#include "sim/base/join.h"
#include "sim/check/property.h"

namespace lockstep::check {
namespace {

// Some contender enters: no execution reaches a state where every client
// has finished after giving up (Client::GiveUp, its last attempt without
// the lock). A lock whose clients all give up although nothing failed made
// no progress (a split vote that blocks itself until every retry window
// has passed). Once so, a state stays so: finished clients do nothing more.
class SomeContenderEnters final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override {
    for (int i = 0; i < m.client_count(); ++i) {
      const world::ClientSlot& c = s.clients[i];
      if (c.status != world::ClientStatus::kDone || !c.gave_up) return std::nullopt;
    }
    Violation v;
    v.property = std::string(name());
    v.step = step;
    v.clients = m.client_names();
    v.message =
        "every contender gave up (" + base::JoinWithAnd(v.clients) + "), and none holds the lock";
    return v;
  }
};

}  // namespace

extern const PropertyInfo kSomeContenderEnters;
const PropertyInfo kSomeContenderEnters{
    .name = "some_contender_enters", .reads = 0, .make = Make<SomeContenderEnters>};

}  // namespace lockstep::check
