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

class Property {
 public:
  virtual ~Property() = default;
  virtual std::string_view name() const = 0;
  // The ghost state the property reads, beyond clients' critical sections:
  // the explorer keeps it in a state's identity only when some property does.
  enum Ghost : uint32_t { kWriters = 1, kLatestAcquirer = 2, kResource = 4 };
  virtual uint32_t ghost() const { return 0; }
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
};

// At most one client is inside the critical section.
class MutualExclusion final : public Property {
 public:
  std::string_view name() const override { return "mutual_exclusion"; }
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

// A client's command removed a value another client wrote, while it was
// releasing its own lock (it had left its critical section but still
// believed it held the lock).
class ForeignRelease final : public Property {
 public:
  std::string_view name() const override { return "foreign_release"; }
  uint32_t ghost() const override { return kWriters; }
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

// The protected resource accepted a write from a client after a client that
// acquired the lock later had written it: a stale holder overwrote newer
// work (what fencing tokens are for).
class StaleWrite final : public Property {
 public:
  std::string_view name() const override { return "stale_write"; }
  uint32_t ghost() const override { return kLatestAcquirer | kResource; }
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

// No client's algorithm throws an exception that is a finding about it: a
// Redis error reply it did not handle, a timeout it did not expect
// (world::ClientStatus::kFailed). Always checked.
class ClientError final : public Property {
 public:
  std::string_view name() const override { return "client_error"; }
  std::optional<Violation> Check(const world::Model& m, const world::WorldState& s,
                                 int step) const override;
};

// The live clients of an end state (nothing enabled) that still wait: for
// a clock an assumption holds (holders_release_in_time, max_hold_ticks).
// None when the clock stands at the horizon: there the search stopped them.
std::vector<int> StuckClients(const world::Model& m, const world::WorldState& s);

// No execution ends with a client still waiting: an end state with
// StuckClients is a deadlock, as TLC reports one.
class NoStuckStates final : public Property {
 public:
  std::string_view name() const override { return "no_stuck_states"; }
  std::optional<Violation> Check(const world::Model&, const world::WorldState&,
                                 int) const override {
    return std::nullopt;
  }
  std::optional<Violation> CheckEnd(const world::Model& m, const world::WorldState& s,
                                    int step) const override;
};

// Never violated: counts the end states with StuckClients a search meets
// (each once where the search caches states), from any of its threads.
class StuckCounter final : public Property {
 public:
  std::string_view name() const override { return "stuck_counter"; }
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
