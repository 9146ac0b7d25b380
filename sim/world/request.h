// What passes between a client and the world at a scheduling point: the
// client's request (the command it wants to send, leaving its critical
// section, sleeping, drawing a random value, or being done), and what the world gives back when it
// resumes the client.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/kv/reply.h"
#include "sim/world/value.h"

namespace lockstep::kv {
struct CommandSpec;
}

namespace lockstep::world {

// A command built from the client's clock, read when its arguments are
// computed; an empty result sends nothing.
using CommandAtClock = std::function<std::vector<std::string>(Millis clock)>;

struct Request {
  enum class Kind { kCommand, kLeave, kSleep, kResource, kDraw, kDone };
  Kind kind = Kind::kDone;
  std::vector<Value> argv;  // kCommand
  // kCommand: the command argv names, if Redis knows it and its arity
  // accepts argv's count (else the server replies an error). Found once,
  // when the client's automaton keeps the request, not at every send.
  const kv::CommandSpec* command = nullptr;
  int instance = 0;               // kCommand, kLeave: the Redis instance it goes to
  CommandAtClock make;            // kLeave: optionally a command sent in the same step
  Millis sleep_ticks = 0;         // kSleep: the ticks it sleeps at least...
  Millis sleep_most = 0;          // ...and at most (Client::SleepBetween; else the same)
  int64_t token = 0;              // kResource: the fencing token sent with the write
  int64_t draw_least = 0;         // kDraw: the values it draws from, each as likely...
  int64_t draw_most = 0;          // ...(Client::Draw); its reply is the value drawn
  std::string error;              // kDone: the algorithm threw this...
  bool error_is_finding = false;  // ...not a std::logic_error (world::RuleBroken)...
  bool error_read_token = false;  // ...a world::TokenReadBack
  // Where the algorithm made it, "file.cc:12" or "script.lua:3" (a ghost:
  // for pictures, never part of a state).
  std::string source;

  // Returns true iff the request's arguments depend on the client's clock.
  bool ReadsClock() const;
};

// A time a client holds whose age past some bound is alike to it
// (Client::NowAsStart) has that bound; any other time has this.
inline constexpr Millis kUnboundedAge = -1;

// The reply a client sees when its request or the reply was lost.
inline constexpr const char* kTimeoutError = "TIMEOUT no reply within the client's timeout";

// What the world hands a client when it resumes it.
struct Input {
  kv::Reply reply;            // of its command; nil when none was sent
  Millis clock = 0;           // the client's clock at this step
  Millis sent_timestamp = 0;  // the value its command's ClockPlus argument took...
  bool sent_clock = false;    // ...if it had one
  // The reply is a value a client wrote as a time (kv::Entry::timestamp).
  bool reply_is_time = false;

  friend bool operator==(const Input&, const Input&) = default;
};

// Why a client's local code decided what it did, as the algorithm says it
// (Client::Because): for pictures and teaching, never part of a state.
struct Reason {
  std::string text;    // "7 < now 10: expired, take over"
  std::string source;  // "setnx_takeover.cc:23"
  friend bool operator==(const Reason&, const Reason&) = default;
};

// Ghost effects of the client's local code during one step.
struct GhostEvent {
  enum class Kind { kEnter, kRenew, kForget, kGiveUp };
  Kind kind;
  Millis valid_until = 0;  // kEnter, kRenew
  friend bool operator==(const GhostEvent&, const GhostEvent&) = default;
};

}  // namespace lockstep::world
