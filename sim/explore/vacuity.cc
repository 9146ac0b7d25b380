#include "sim/explore/vacuity.h"

#include <algorithm>
#include <memory>

#include "sim/check/property.h"

namespace lockstep::explore {
namespace {

// "Violated" where one of `clients` is inside the critical section: the
// search's stop at a violation is its stop at the first such state.
const check::PropertyInfo kSomeoneInside{.name = "someone_inside", .reads = 0, .make = nullptr};
class SomeoneInside final : public check::Property {
 public:
  explicit SomeoneInside(std::vector<int> clients)
      : Property(kSomeoneInside), clients_(std::move(clients)) {}
  std::optional<check::Violation> Check(const world::Model& m, const world::WorldState& s,
                                        int step) const override {
    check::Violation v;
    for (int i : clients_) {
      if (s.clients[i].in_critical_section) v.clients.push_back(m.client_names()[i]);
    }
    if (v.clients.empty()) return std::nullopt;
    v.property = std::string(name());
    v.step = step;
    return v;
  }

 private:
  std::vector<int> clients_;
};

}  // namespace

Vacuity NeverEntered(const world::WorldConfig& config, std::vector<int> clients,
                     SearchOptions options) {
  options.reductions.symmetry = false;
  options.collect_states = false;
  options.progress = nullptr;
  options.communicator = nullptr;
  Vacuity result;
  while (!clients.empty()) {
    Properties properties;
    properties.push_back(std::make_unique<SomeoneInside>(clients));
    const SearchResult r = DepthFirstSearch(config, properties, options);
    result.stats.states += r.stats.states;
    result.stats.transitions += r.stats.transitions;
    result.stats.elapsed_s += r.stats.elapsed_s;
    if (r.verdict == Verdict::kSafe) {
      result.never_entered = std::move(clients);
      return result;
    }
    if (r.verdict != Verdict::kViolation) {
      result.complete = false;
      result.incomplete = r.incomplete;
      return result;
    }
    std::erase_if(clients, [&](int i) {
      return std::find(r.violation->clients.begin(), r.violation->clients.end(),
                       config.clients[i].name) != r.violation->clients.end();
    });
  }
  return result;
}

}  // namespace lockstep::explore
