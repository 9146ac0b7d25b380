// Properties checked after every step of an execution. A violation ends the
// execution and comes back as data: which property, the clients involved,
// the step, and a message for people.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world/model.h"

namespace lockstep::check {

struct Violation {
  std::string property;              // e.g. "mutual_exclusion"
  std::vector<std::string> clients;  // the clients involved, in index order
  int step = 0;                      // index of the step that violated it
  std::string message;

  friend bool operator==(const Violation&, const Violation&) = default;
};

class Property {
 public:
  virtual ~Property() = default;
  virtual std::string_view name() const = 0;
  // Returns a violation iff state `s`, reached by step number `step`,
  // violates the property.
  virtual std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                         int step) const = 0;
};

// At most one client is inside the critical section.
class MutualExclusion final : public Property {
 public:
  std::string_view name() const override { return "mutual_exclusion"; }
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

// Every property lockstep knows, by name.
std::vector<std::string> PropertyNames();
// Returns nullptr iff there is no property of that name.
std::unique_ptr<Property> MakeProperty(std::string_view name);

// Runs each property in order; returns the first violation.
std::optional<Violation> CheckAll(const std::vector<std::unique_ptr<Property>>& properties,
                                  const world::Model& m, const world::WorldState& s, int step);

}  // namespace lockstep::check
