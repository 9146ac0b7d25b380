// Properties checked after every step of an execution. A violation ends the
// execution and comes back as data: which property, the clients involved,
// the step, and a message for people.
#pragma once

#include <atomic>
#include <cstdint>
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

class Property;

// What lockstep knows of a property, declared once, beside its check (in
// the property's own file; catalogue.cc lists them in order).
struct PropertyInfo {
  std::string_view name;
  // The ghost state it reads beyond clients' statuses and critical
  // sections (Property::Ghost bits). Required, not defaulted: a state's
  // identity (explore/fingerprint.h) and the dependence relation of sleep
  // sets (explore/dependence.h) keep exactly what the checked properties
  // declare, so a property that read ghost state unsaid would make both
  // unsound.
  uint32_t reads;
  // Makes it, for a property checked on every state and at every end;
  // nullptr for a liveness property, judged on lassos (explore/liveness.h).
  std::unique_ptr<Property> (*make)(const PropertyInfo& info);
};

class Property {
 public:
  // The ghost state a property may read (PropertyInfo::reads), beyond
  // clients' critical sections and statuses.
  enum Ghost : uint32_t { kWriters = 1, kLatestAcquirer = 2, kResource = 4 };

  explicit Property(const PropertyInfo& info) : info_(info) {}
  virtual ~Property() = default;
  const PropertyInfo& info() const { return info_; }
  std::string_view name() const { return info_.name; }
  uint32_t ghost() const { return info_.reads; }
  // Returns a violation iff state `s`, reached by step number `step`,
  // violates the property.
  virtual std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                         int step) const = 0;
  // Returns a violation iff `s`, where nothing more can happen (every client
  // finished, crashed, or waits for a clock that cannot move), violates it.
  virtual std::optional<Violation> CheckEnd(const world::Model&, const world::WorldState&,
                                            int) const {
    return std::nullopt;
  }

 private:
  const PropertyInfo& info_;
};

// PropertyInfo::make for a property class constructed from its info.
template <typename P>
std::unique_ptr<Property> Make(const PropertyInfo& info) {
  return std::make_unique<P>(info);
}

// Every property lockstep knows, in the order it lists them and judges
// liveness goals (catalogue.cc).
const std::vector<const PropertyInfo*>& Catalogue();
// The property of that name, or nullptr.
const PropertyInfo* FindProperty(std::string_view name);
// The ghost state the named properties read (unknown names read none).
uint32_t ReadsOf(const std::vector<std::string>& names);

// The live clients of an end state (nothing enabled) that still wait: for
// a clock an assumption holds (holders_release_in_time, max_hold_ticks).
// None when the clock stands at the horizon: there the search stopped them.
std::vector<int> StuckClients(const world::Model& m, const world::WorldState& s);

// Never violated: counts the end states with StuckClients a search meets
// (each once where the search caches states), from any of its threads.
// Not a property of the catalogue: the search adds it to count.
class StuckCounter final : public Property {
 public:
  StuckCounter();
  std::optional<Violation> Check(const world::Model&, const world::WorldState&,
                                 int) const override {
    return std::nullopt;
  }
  std::optional<Violation> CheckEnd(const world::Model& m, const world::WorldState& s,
                                    int step) const override;
  uint64_t count() const { return count_.load(); }

 private:
  mutable std::atomic<uint64_t> count_{0};
};

// A property lockstep no longer checks: what to use instead, or "".
std::string RetiredProperty(std::string_view name);

// Every property lockstep knows, by name.
std::vector<std::string> PropertyNames();
// A property checked step by step or a liveness property (liveness.h).
bool IsProperty(std::string_view name);
// Returns nullptr iff there is no property of that name checked step by
// step (liveness properties are judged on lassos: explore/liveness.h).
std::unique_ptr<Property> MakeProperty(std::string_view name);

// Runs each property in order; returns the first violation.
std::optional<Violation> CheckAll(const std::vector<std::unique_ptr<Property>>& properties,
                                  const world::Model& m, const world::WorldState& s, int step);
// The same for a state where nothing more can happen.
std::optional<Violation> CheckAllEnd(const std::vector<std::unique_ptr<Property>>& properties,
                                     const world::Model& m, const world::WorldState& s, int step);

}  // namespace lockstep::check
