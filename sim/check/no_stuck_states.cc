#include "sim/base/join.h"
#include "sim/check/property.h"

namespace lockstep::check {
namespace {

// No execution ends with a client still waiting: an end state with
// StuckClients is a deadlock, as TLC reports one.
class NoStuckStates final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model&, const world::WorldState&,
                                 int) const override {
    return std::nullopt;
  }
  std::optional<Violation> CheckEnd(const world::Model& m, const world::WorldState& s,
                                    int step) const override;
};

// StuckCounter's: not in the catalogue, never violated.
const PropertyInfo kStuckCounter{.name = "stuck_counter", .reads = 0, .make = nullptr};

}  // namespace

extern const PropertyInfo kNoStuckStates;
const PropertyInfo kNoStuckStates{
    .name = "no_stuck_states", .reads = 0, .make = Make<NoStuckStates>};

StuckCounter::StuckCounter() : Property(kStuckCounter) {}

std::vector<int> StuckClients(const world::Model& m, const world::WorldState& s) {
  // A clock at the horizon is the search's bound, not the algorithm's: a
  // client waiting there is cut off, and says nothing either way.
  const std::optional<world::Millis>& horizon = m.config().horizon;
  if (horizon && s.now >= *horizon) return {};
  std::vector<int> stuck;
  for (int i = 0; i < m.client_count(); ++i) {
    if (world::Runs(s.clients[i].status)) stuck.push_back(i);
  }
  return stuck;
}

std::optional<Violation> NoStuckStates::CheckEnd(const world::Model& m, const world::WorldState& s,
                                                 int step) const {
  const std::vector<int> stuck = StuckClients(m, s);
  if (stuck.empty()) return std::nullopt;
  Violation v;
  v.property = std::string(name());
  v.step = step;
  for (int i : stuck) v.clients.push_back(m.client_names()[i]);
  std::string why;
  m.IsEnabled(s, world::Action::Tick(), &why);  // why the clock cannot move
  v.message = base::JoinWithAnd(v.clients) + (stuck.size() == 1 ? " waits" : " wait") +
              " for a clock that cannot move: " + why;
  return v;
}

std::optional<Violation> StuckCounter::CheckEnd(const world::Model& m, const world::WorldState& s,
                                                int) const {
  if (!StuckClients(m, s).empty()) count_.fetch_add(1, std::memory_order_relaxed);
  return std::nullopt;
}

}  // namespace lockstep::check
