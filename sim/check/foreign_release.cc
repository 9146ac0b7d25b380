#include "sim/base/printable.h"
#include "sim/check/property.h"

namespace lockstep::check {

namespace {

// A client's command removed a value another client wrote, while it was
// releasing its own lock (it had left its critical section but still
// believed it held the lock).
class ForeignRelease final : public Property {
 public:
  using Property::Property;
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

}  // namespace

extern const PropertyInfo kForeignRelease;
const PropertyInfo kForeignRelease{
    .name = "foreign_release", .reads = Property::kWriters, .make = Make<ForeignRelease>};

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
