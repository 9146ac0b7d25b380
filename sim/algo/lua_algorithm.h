// Lock algorithms written in Lua 5.1 (the Lua Redis embeds), given in a
// scenario instead of compiled in. A Lua algorithm is a body like any other
// (algorithm.h): it runs in its client's fiber against world::Client, each
// command one step, so every search, reduction, trace and replay treats it
// as a built-in. Its API is kLuaApiReference below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/algo/algorithm.h"

namespace lockstep::algo {

// What a Lua algorithm can call; `lockstep list --fields` prints it.
inline constexpr std::string_view kLuaApiReference =
    R"(Lua algorithms (Lua 5.1; each client runs the script from the top, once; a
call marked "step" is one atomic step and one scheduling point):
  redis.call(cmd, ...)           step: a command to instance 1; an error reply
                                 raises a Lua error
  redis.pcall(cmd, ...)          step: the same; an error reply is {err = text}
  redis.call_on(i, cmd, ...)     step: to instance i (1..instances); pcall_on too
      Replies as EVAL converts them: integer -> number, bulk -> string,
      nil -> false, status -> {ok = text}, array -> table. Arguments are
      strings, numbers, or lock.clock_plus(n).
      A status is a table: SET's OK is {ok = "OK"}, so `if r == "OK"` is
      always false (a warning when the scenario loads); test
      `type(r) == "table" and r.ok`.
  lock.now()                     this client's clock (a time, with "relative_time")
  lock.clock_plus(n)             an argument "my clock + n", read at the step
  lock.sent_timestamp()          the value the last clock_plus argument took (a time)
  lock.sleep(n)                  wait until this client's clock advanced n ticks
  lock.sleep(least, most)        wait any number of ticks between them (a random
                                 back-off: the explorer tries every one; with
                                 --probabilistic, one drawn, each as likely)
  lock.draw(least, most)         an integer between them, a step of its own
                                 ("C1 draws 3"): the explorer tries every one;
                                 with --probabilistic, each is as likely
  lock.enter(valid_until)        enter the critical section, believing the lock
                                 valid until that clock reading (right after
                                 the reply that gave the lock)
  lock.renew(valid_until)        the lease was renewed: believe the lock valid
                                 until that clock reading from here on (right
                                 after the reply that renewed it; while
                                 holding, inside the critical section or not)
  lock.leave([cmd [, {unless_expired = t}]])
                                 step: leave the critical section; with cmd
                                 (a table), send it in the same step, unless
                                 t < the clock then
  lock.forget()                  no longer believe it holds the lock
  lock.give_up()                 this attempt ended without the lock (its retries
                                 ran out): for some_contender_enters
  lock.because(text)             why the code does what it does next, shown
                                 under the step (a ghost: never part of a
                                 state)
  lock.write_resource(token)     step: write the protected resource; true iff
                                 accepted
  lock.random()                  a number in [0, 2^53) ("draws_numbers": true)
  lock.random_token()            16 hex digits, compared only for equality
                                 ("never_reads_tokens": true promises that no reply
                                 holds one; then symmetry renames tokens)
  lock.forget_history(label, {n, ...} [, {t, ...}])
                                 from here on only label, the integers, the
                                 times and what follows matter (a loop's head;
                                 see `docs/design.md`)
  lock.is_time(v)                whether v is a time
  Times ("relative_time": true, needed to search without a horizon): the
  clock, sent_timestamp and a bulk reply holding a time written as one are
  times. A time is offset by an integer (t + n, t - n), subtracted from a
  time (a duration: a number) and compared with a time; anything else, and a
  time read before lock.forget_history and not among its live times, is an
  error at the line. tostring and .. give its number, for reading only.
  lock.settings                  the client's lock settings (key, timeout,
                                 rounds, retry_delay, release_with_leave, ttl,
                                 write_resource, instances, token_instance,
                                 request_timeout) and the algorithm's own;
                                 reading a name the scenario does not give
                                 (a typo: settings.wrok) is an error naming it
  lock.setting(name, default)    an optional setting of the algorithm's own:
                                 its value, or default if not given
  Only the base (no dofile, loadfile, load, loadstring, print, xpcall,
  coroutine, collectgarbage), string, table and math (no random) libraries.
  At most 10000000 instructions between two steps and 64 MiB per client;
  pcall does not catch the end of a run or these limits. pairs() over keys
  that are tables or functions goes in an order that depends on addresses:
  never let it decide what the algorithm does.
)";

// Lua instructions a client may run between two of its steps: more is taken
// for an endless loop and ends the run with an error naming the line.
inline constexpr int64_t kLuaInstructionsPerStep = 10'000'000;
// Bytes one client's Lua state may hold.
inline constexpr size_t kLuaMemoryLimit = size_t{64} << 20;

struct LuaProgram {
  std::string source;
  // How messages name it: "lock.lua" gives "lock.lua:12: ...".
  std::string name;
  // It declares relative_time: its clock readings and the times replies
  // hold are times, which it may only offset, subtract and compare (checked
  // as it runs).
  bool relative_time = false;
};

// Compiles `program` without running it. Returns "" or the syntax error,
// "NAME:LINE: message".
std::string LuaSyntaxError(const LuaProgram& program);

// Where the script compares a value with the bare string "OK", which a
// status reply never equals (it is {ok = "OK"}): "NAME:LINE: ..." each, for
// a warning when the scenario loads. Comparisons with a reply's ok field
// (r.ok == "OK") are not listed.
std::vector<std::string> LuaStatusComparisons(const LuaProgram& program);

// The sum of the magnitudes of the integers in `settings` (lock.settings):
// every constant a Lua algorithm can offset a time by, as
// Settings::Magnitude is a built-in's (world::ClientSetup::time_constants).
int64_t LuaTimeConstants(const nlohmann::json& settings);

// The body of a client that runs `program` with `settings` (a JSON object,
// lock.settings). An error in the script ends the run with
// "NAME:LINE: message" (world: "the algorithm of C1 threw: ...").
Body MakeLuaBody(std::shared_ptr<const LuaProgram> program, nlohmann::json settings);

}  // namespace lockstep::algo
