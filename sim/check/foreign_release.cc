#include "sim/base/printable.h"
#include "sim/check/property.h"

namespace lockstep::check {

std::optional<Violation> ForeignRelease::Check(const world::Model& m, const world::WorldState& s,
                                               int step) const {
  if (s.step.released_by < 0) return std::nullopt;
  const std::string& by = m.writer_names()[s.step.released_by];
  const std::string& of = m.writer_names()[s.step.released_of];
  Violation v;
  v.property = std::string(name());
  v.step = step;
  v.clients = {by, of};
  if (s.step.released_of < s.step.released_by) std::swap(v.clients[0], v.clients[1]);
  // A key and a writer that is no client are the scenario's text.
  v.message = base::Printable(by) + " released " + base::Printable(s.step.released_key) +
              ", but the value it removed was " + base::Printable(of) + "'s lock";
  return v;
}

}  // namespace lockstep::check
