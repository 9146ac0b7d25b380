// An argument of a command a client sends: either a literal string, or a
// timestamp "my clock + offset". A literal is kept (kv::Text) when the
// value is made: the client's automaton keeps its requests, so a literal is
// looked up once, not at every step that sends it.
//
// A timestamp is read from the client's clock when the command's arguments
// are computed. That moment is part of the schedule (see world.h): with a
// delay bound of 0 it is the command's own step, as in SPIN's reference
// model; with a larger bound the arguments may be up to that many ticks old
// when the command executes.
#pragma once

#include <cstdint>
#include <string>

#include "sim/kv/keyspace.h"

namespace lockstep::world {

using kv::Millis;

class Value {
 public:
  Value(std::string_view literal) : literal_(literal) {}       // NOLINT
  Value(const std::string& literal) : literal_(literal) {}     // NOLINT
  Value(const char* literal) : literal_(literal) {}            // NOLINT
  Value(int64_t number) : literal_(std::to_string(number)) {}  // NOLINT
  Value(int number) : literal_(std::to_string(number)) {}      // NOLINT

  // The client's clock plus `offset`, read when the arguments are computed.
  static Value ClockPlus(Millis offset) {
    Value v("");
    v.is_clock_ = true;
    v.offset_ = offset;
    return v;
  }

  // A time the client computed itself (say, from Now()): sent as its
  // number, and known to be a time, so that an all-time search keeps it
  // relative to the clock. Times an algorithm writes must be ClockPlus or
  // Time values.
  static Value Time(Millis t) {
    Value v(std::to_string(t));
    v.is_time_ = true;
    return v;
  }

  bool is_clock() const { return is_clock_; }
  // A time: ClockPlus or Time.
  bool is_time() const { return is_clock_ || is_time_; }
  Millis offset() const { return offset_; }
  kv::Text literal() const { return literal_; }

 private:
  kv::Text literal_;
  bool is_clock_ = false;
  bool is_time_ = false;
  Millis offset_ = 0;
};

}  // namespace lockstep::world
