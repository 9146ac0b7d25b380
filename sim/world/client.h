// The client API: everything a lock algorithm may do. Algorithms are plain
// sequential code against this class; they never see the keyspace, the
// scheduler or other clients.
//
// Each command is one atomic step at the server and one scheduling point:
// the call returns only after the world has chosen to run this client's
// step. Code between two commands is local and runs without interruption;
// Now() read there gives this client's clock at the step that resumed it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/fiber/context.hpp>

#include "sim/kv/reply.h"
#include "sim/world/value.h"

namespace lockstep::world {

class World;
class FiberScheduler;

// Thrown inside a client's fiber when the world ends; algorithms must let it
// pass (a `catch (...)` in an algorithm must rethrow).
struct ClientStopped {};

class Client {
 public:
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::string& name() const { return name_; }
  int index() const { return index_; }

  // --- Commands: each one is a step. ---
  kv::Reply Call(std::vector<Value> argv);
  // SETNX key value: true iff the key was set.
  bool SetNx(const std::string& key, Value value);
  // GET key: the value, or nullopt for nil.
  std::optional<std::string> Get(const std::string& key);
  // GETSET key value: the old value, or nullopt for nil.
  std::optional<std::string> GetSet(const std::string& key, Value value);
  // DEL key: the number of keys removed.
  int64_t Del(const std::string& key);

  // --- Time. ---
  // This client's clock (global time plus its skew), read in local code.
  Millis Now();
  // An argument "my clock + offset", read when the command's arguments are
  // computed (see value.h).
  static Value ClockPlus(Millis offset) { return Value::ClockPlus(offset); }
  // The value the last ClockPlus argument of the last command took.
  Millis SentTimestamp() const { return sent_timestamp_; }
  // Waits until this client's clock has advanced by `ticks`. Not a step:
  // the client is simply not runnable until the clock gets there.
  void Sleep(Millis ticks);

  // --- Randomness, from the schedule's seed. ---
  uint64_t Random();

  // --- Ghost state: invisible to other clients, seen by properties. ---
  // Enters the critical section, believing it holds the lock until its own
  // clock passes `valid_until`. Call it in the local code right after the
  // reply that gave the lock: entering is part of that step.
  void EnterCriticalSection(Millis valid_until);
  // Leaves the critical section. This is a step of its own.
  void LeaveCriticalSection();
  // The client no longer believes it holds the lock (after its release).
  void ForgetLock();

 private:
  friend class World;

  enum class Request { kNone, kCommand, kLeave, kSleep, kDone };

  Client(World* world, int index, std::string name, uint64_t seed);
  // Gives control back to the world and waits to be resumed.
  void Park();

  World* world_;
  int index_;
  std::string name_;
  uint64_t seed_;
  boost::fibers::context* fiber_ = nullptr;

  // What the client asks of the world at its scheduling point.
  Request request_ = Request::kNone;
  std::vector<Value> argv_;
  Millis sleep_ticks_ = 0;

  // What the world gives back when it resumes the client.
  kv::Reply reply_;
  Millis clock_ = 0;
  Millis sent_timestamp_ = 0;
  bool stop_ = false;

  uint64_t random_count_ = 0;
};

}  // namespace lockstep::world
