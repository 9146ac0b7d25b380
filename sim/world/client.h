// The client API: everything a lock algorithm may do. Algorithms are plain
// sequential code against this class; they never see the keyspace, the
// scheduler or other clients.
//
// Each command is one atomic step at the server and one scheduling point:
// the call returns only after the world has chosen to run this client's
// step. Code between two commands is local and runs without interruption;
// Now() read there gives this client's clock at the step that resumed it.
//
// Algorithms must be deterministic: what they do may depend only on what
// this API gives them. The client keeps a hash of everything it observed
// (replies, clock readings, random numbers); the explorer identifies a
// client's state by it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kv/reply.h"
#include "sim/world/request.h"
#include "sim/world/value.h"

// The fibers the driver runs clients on; an algorithm never sees them, so
// this header does not bring Boost.Fiber in.
namespace boost::fibers {
class context;
}  // namespace boost::fibers

namespace lockstep::world {

class FiberScheduler;

// What a client's algorithm promised of its random values, and how its
// history records them (see Client::RandomToken).
struct RandomRules {
  bool tokens_only = false;         // it draws only tokens: Random() throws
  bool never_reads_tokens = false;  // no reply it reads holds a token: one that does throws
  // Its history records a token it draws as which draw it was, not by its
  // value (every client of the scenario never reads tokens, so symmetry
  // renames them with their clients).
  bool tokens_as_draws = false;
  // A random back-off is a draw of its delay (WorldConfig::probabilistic).
  bool probabilistic = false;
};

// Thrown inside a client's fiber when its run is abandoned; algorithms must
// let it pass (a `catch (...)` in an algorithm must rethrow).
struct ClientStopped {};

// The algorithm broke a rule of lockstep's API, of its sandbox or of its own
// declarations: the scenario is wrong (exit 2), whatever the lock does.
// Every std::logic_error an algorithm throws is taken as one; any other
// exception is a finding about the algorithm (the property client_error).
struct RuleBroken : std::logic_error {
  using std::logic_error::logic_error;
};

// A reply held a random token, but the client's rules said none would
// (never_reads_tokens: declared, or assumed by run::Explore, which then
// searches again without it).
struct TokenReadBack : RuleBroken {
  explicit TokenReadBack(const std::string& what, std::string reader = "")
      : RuleBroken(what), client(std::move(reader)) {}
  std::string client;  // which client read it, once known (ClientAutomaton)
};

// Thrown by a critical-section call that makes no sense where it is made:
// entering before the client's first step (entering is part of the step
// whose reply gave the lock), entering again while inside, leaving while
// outside. A bug of the algorithm, not a finding about the lock: a Lua
// pcall does not catch it.
struct LockMisuse : std::logic_error {
  LockMisuse(std::string where, const std::string& what)
      : std::logic_error(what), place(std::move(where)) {}
  std::string place;  // the algorithm's line that made the call
};

class Client {
 public:
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  int index() const { return index_; }

  // Each method that is a step takes the place it is called from (the
  // default argument): traces show the line of every command. What
  // std::source_location gives, from the builtins GCC and clang share:
  // clang 14 (the fuzz and asan-clang builds) has no std::source_location.
  struct Where {
    static constexpr Where current(const char* file = __builtin_FILE(),
                                   unsigned line = __builtin_LINE()) {
      return Where{file, line};
    }
    constexpr const char* file_name() const { return file_; }
    constexpr unsigned line() const { return line_; }
    const char* file_ = "";
    unsigned line_ = 0;
  };

  // --- Commands: each one is a step. ---
  // Sends to the first (often the only) Redis instance.
  kv::Reply Call(std::vector<Value> argv, Where where = Where::current()) {
    return CallOn(0, std::move(argv), where);
  }
  // Sends to instance `instance` (0-based, in the scenario's order of
  // masters); whichever server is that instance's master at the step runs it.
  kv::Reply CallOn(int instance, std::vector<Value> argv, Where where = Where::current());
  // SETNX key value: true iff the key was set.
  bool SetNx(const std::string& key, Value value, Where where = Where::current());
  // GET key: the value, or nullopt for nil.
  std::optional<std::string> Get(const std::string& key, Where where = Where::current());
  // GETSET key value: the old value, or nullopt for nil.
  std::optional<std::string> GetSet(const std::string& key, Value value,
                                    Where where = Where::current());
  // DEL key: the number of keys removed.
  int64_t Del(const std::string& key, Where where = Where::current());

  // --- Why: what the algorithm decided and why, shown under the step. ---
  // Says why the local code does what it does next, in words for a reader
  // ("\"7\" < now 10: expired, take over"). Belongs to the step whose reply
  // the code is reacting to. A ghost: never part of a state or a verdict.
  void Because(std::string reason, Where where = Where::current());
  // For algorithms interpreted from another language (Lua): the place in
  // their own source of the next step or reason, which then replaces the
  // C++ one. Cleared by that step or reason.
  void At(std::string source) { at_ = std::move(source); }

  // --- Time. ---
  // This client's clock (global time plus its skew), read in local code.
  Millis Now();
  // The same, read as the start of an elapsed time that the algorithm only
  // ever measures against later readings of its clock and compares with
  // constants of at most `longest` (Redlock: now - start against the
  // validity). Past `longest` every elapsed time is alike, so the search,
  // with a horizon or without, keeps this reading at most `longest` + 1
  // ticks behind the clock (docs/design.md, "Time without a horizon"). A
  // promise, as ForgetHistory's: using it otherwise merges states that
  // differ.
  Millis NowAsStart(Millis longest);
  // An argument "my clock + offset", read when the command's arguments are
  // computed (see value.h).
  static Value ClockPlus(Millis offset) { return Value::ClockPlus(offset); }
  // The value the ClockPlus argument of its last command took. A command
  // without one sent no time: asking is LockMisuse.
  Millis SentTimestamp(Where where = Where::current());
  // The last reply is a value written as a time (docs/design.md, "Which
  // data are times"): an integer the search keeps relative to the clock.
  bool LastReplyIsTime() const;
  // Waits until this client's clock has advanced by `ticks`. Not a step:
  // the client is simply not runnable until the clock gets there.
  void Sleep(Millis ticks, Where where = Where::current());
  // Waits for some number of ticks from `least` to `most`, any of them: a
  // random back-off, checked for every value it may take. The explorer
  // tries each wake-up time (the scheduler wakes the client, "C1 wakes", or
  // the clock reaching `most` does), so clients that back off this way stay
  // interchangeable for symmetry, where Random() would set them apart.
  void SleepBetween(Millis least, Millis most, Where where = Where::current());
  // A random back-off of `least` to `most` ticks, as a lock's code says it:
  // SleepBetween in an ordinary search (the adversary picks the delay), and
  // Sleep(Draw(least, most)) in a probabilistic one (explore
  // --probabilistic: the delay is drawn, each as likely).
  void SleepRandom(Millis least, Millis most, Where where = Where::current());
  // A value from `least` to `most`, each as likely: a step of its own
  // ("C1 draws 3"). An ordinary search tries every value, as the
  // adversary's choice; a probabilistic search weighs them equally. Unlike
  // Random(), a value does not depend on which client drew it, so clients
  // that draw stay interchangeable for symmetry. At most
  // base::Limits::kMaxDrawValues values.
  int64_t Draw(int64_t least, int64_t most, Where where = Where::current());

  // --- The protected resource (if the scenario has one). ---
  // Writes to the resource with a fencing token (0 when the algorithm has
  // none). A step of its own. Returns true iff the resource accepted it.
  bool WriteResource(int64_t token, Where where = Where::current());

  // --- Randomness, from the schedule's seed (per client and draw). ---
  // A random number. An algorithm that draws one declares it
  // (algo::AlgorithmInfo::draws_numbers): a number can change what the
  // client does, so its clients are never interchangeable for symmetry (a
  // back-off needs no number: SleepBetween).
  uint64_t Random();
  // A fresh random token, 16 hex digits, for values compared only for
  // equality (a lock's value): renaming tokens between clients changes
  // nothing, so clients that draw only tokens may be interchangeable. When
  // no client of the scenario reads a reply that holds a token (each
  // algorithm declares it: algo::AlgorithmInfo::never_reads_tokens),
  // symmetry renames the tokens with their clients.
  std::string RandomToken();

  // --- Ghost state: invisible to other clients, seen by properties. ---
  // Enters the critical section, believing it holds the lock until its own
  // clock passes `valid_until`. Call it in the local code right after the
  // reply that gave the lock: entering is part of that step.
  // Throws LockMisuse before the first step or when inside already.
  void EnterCriticalSection(Millis valid_until, Where where = Where::current());
  // Leaves the critical section. This is a step of its own; if `release` is
  // given, the command it builds from the clock (read as for timestamp
  // arguments) is sent in the same step, and its reply returned. Throws
  // LockMisuse when not inside.
  kv::Reply LeaveCriticalSection(CommandAtClock release = nullptr, Where where = Where::current());
  // The holder's lease moved (a watchdog's renewal succeeded): from here on
  // it believes the lock valid until its clock passes `valid_until`, and
  // the assumptions bound the clock by this validity instead. Call it in
  // the local code right after the reply that renewed the lock, inside the
  // critical section or out of it. Throws LockMisuse unless it holds the
  // lock (entered, and not forgotten since).
  void Renew(Millis valid_until, Where where = Where::current());
  // The client no longer believes it holds the lock (after its release).
  void ForgetLock();
  // Its attempt to acquire ended without the lock (its retries ran out, as
  // a library's error says): the state remembers it until it enters again,
  // for some_contender_enters. Throws LockMisuse before the first step or
  // when inside.
  void GiveUp(Where where = Where::current());

  // --- State identity for the explorer. ---
  // Declares that from here on this client's behaviour depends only on
  // `label`, `live` and what it observes next: everything observed before
  // is forgotten. Lets the explorer recognise a client that comes back to
  // the same place with the same live values (a loop's head). It is a
  // promise: forgetting something that matters makes the explorer merge
  // states that differ (the tests compare against plain enumeration).
  void ForgetHistory(std::string_view label, std::initializer_list<int64_t> live) {
    ForgetHistory(label, std::span<const int64_t>(live.begin(), live.size()));
  }
  void ForgetHistory(std::string_view label, std::span<const int64_t> live);
  // The same, with live values that are times (clock readings, timestamps
  // read or written): an all-time search keeps those relative to the clock.
  void ForgetHistory(std::string_view label, std::initializer_list<int64_t> live,
                     std::initializer_list<Millis> live_times) {
    ForgetHistory(label, std::span<const int64_t>(live.begin(), live.size()),
                  std::span<const Millis>(live_times.begin(), live_times.size()));
  }
  void ForgetHistory(std::string_view label, std::span<const int64_t> live,
                     std::span<const Millis> live_times);

 private:
  // The driver (ClientAutomaton) makes, runs and reads clients; an
  // algorithm sees only the methods above.
  friend class ClientAutomaton;
  friend struct UnobservedClock;
  Client(int index, uint64_t seed, FiberScheduler* scheduler, boost::fibers::context* driver);
  const Request& request() const { return request_; }
  uint64_t concrete_history() const { return concrete_; }
  uint64_t abstract_history() const { return abstract_; }
  // The abstract history with its times apart: shape() hashes everything
  // but the times, which times() lists in the order observed.
  uint64_t shape() const { return shape_; }
  const std::vector<Millis>& times() const { return times_; }
  // For each of times(), the elapsed time past which it is alike
  // (NowAsStart), or kUnboundedAge; empty when none has one.
  const std::vector<Millis>& time_ages() const { return time_ages_; }
  // Requests made since the last ForgetHistory (or the start): all of them
  // are remembered in the state's name.
  uint64_t requests_since_forget() const { return requests_since_forget_; }
  // Gives `input` to the parked client and runs it to its next scheduling
  // point. Returns the ghost events of that stretch of local code; its
  // reasons are in reasons().
  std::vector<GhostEvent> Resume(const Input& input);
  const std::vector<Reason>& reasons() const { return reasons_; }  // during the last Resume
  bool read_clock() const { return read_clock_; }                  // during the last Resume
  void Stop() { stop_ = true; }
  // The input the client sees before its first request (its starting clock).
  void Prime(const Input& input) { input_ = input; }
  // The body returned, or threw `error` (a finding about the algorithm, or
  // a rule it broke).
  void Finish(std::string error, bool finding, bool read_token);
  // Also enters it: the fiber runs from here.
  void set_fiber(boost::fibers::context* fiber, char* stack_bottom);
  void set_rules(const RandomRules& rules) { rules_ = rules; }
  boost::fibers::context* fiber() const { return fiber_; }

  // Gives control back to the driver and waits to be resumed.
  void Park();
  // A new request, made at `where` (or where At() said).
  Request& NewRequest(Request::Kind kind, const Where& where);
  std::string Source(const Where& where);
  void Observe(uint64_t v);
  void ObserveTime(uint64_t tag, Millis t, Millis longest_age = kUnboundedAge);
  void ObserveReply();
  // The last reply as a time, if it is one (LastReplyIsTime).
  std::optional<Millis> ReplyTime() const;

  int index_;
  uint64_t seed_;
  FiberScheduler* scheduler_;
  boost::fibers::context* driver_;
  boost::fibers::context* fiber_ = nullptr;
  char* stack_bottom_ = nullptr;  // of the fiber's stack

  Request request_;
  Input input_;
  std::vector<GhostEvent> events_;
  std::vector<Reason> reasons_;
  std::string at_;  // see At()
  bool stop_ = false;
  bool read_clock_ = false;
  bool stepped_ = false;  // it made a request
  bool inside_ = false;   // in the critical section, as its own calls say
  bool holding_ = false;  // entered, and not forgotten since

  uint64_t concrete_;          // hash of everything observed since the start
  uint64_t abstract_;          // the same since the last ForgetHistory
  uint64_t shape_;             // abstract_ without the times...
  std::vector<Millis> times_;  // ...which are these
  std::vector<Millis> time_ages_;
  uint64_t requests_since_forget_ = 0;
  uint64_t random_count_ = 0;
  bool drew_number_ = false;  // Random() was called: the stream is this client's own
  RandomRules rules_;
  uint64_t NextRandom();
};

// The clock of a client whose body serves a program (sim/process/), read
// without observing it: the program's own reads of its clock are observed,
// each when it is made (docs/design.md, "Processes as clients"). Not for
// algorithms, whose every read must be observed (Client::Now).
struct UnobservedClock {
  static Millis Of(const Client& c) { return c.input_.clock; }
};

}  // namespace lockstep::world
