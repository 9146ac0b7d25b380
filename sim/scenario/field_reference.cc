// The scenario file reference that `lockstep list --fields` prints.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/algo/lua_algorithm.h"
#include "sim/algo/settings.h"
#include "sim/scenario/process_algorithm.h"
#include "sim/scenario/scenario.h"
#include "sim/world/fault_kind.h"

namespace lockstep::scenario {

using nlohmann::json;

namespace {

const char* const kFieldsBeforeLock =
    R"(Scenario fields (JSON object; unknown fields are refused; the file is at
most 16 MiB and nests at most 64 levels; integers are JSON integers, never
1.0 or 1e3, and null only where the type says |null):
  name            string       optional label (any text)
  description     string       optional (any text)
  clients         array, 1-8   each {name, algorithm, skew?, crashed?, lock?}
    name          string       1-16 of [A-Za-z0-9_-], starting with a letter; unique
    algorithm     string|object one of `lockstep list`, or a Lua algorithm: {lua: FILE
                               (relative to the scenario) or lua_inline: SOURCE,
                               settings?: object added to lock.settings, draws_numbers?:
                               boolean (default false), never_reads_tokens?: boolean
                               (default false), relative_time?: boolean (default
                               false; needed without a horizon)}, see "Lua
                               algorithms" below;
)";
const char* const kFieldsAfterAlgorithm =
    R"(                               optional if crashed
    skew          integer      client clock = global clock + skew; |skew| <= 10000000
    crashed       boolean      crashed before the run: never runs (default false)
    may_never_enter boolean    a SAFE need not see it enter the critical section
                               (default false: a SAFE in which it never enters is vacuous)
    lock          object       per-client override of the top-level lock settings
)";

const char* const kFieldsBeforeFaults =
    R"(  keyspace        array        initial entries {key, value, deadline?, writer?}; keys unique
    key           string       any text
    value         string       any text
    deadline      integer|null expires when the clock passes it, 0..10^12 (default null: never)
    writer        string       who wrote it, for traces (ghost state; any text)
    timestamp     boolean      the value is a time (default: true for an integer value of
                               a timestamp lock's key); an all-time search keeps it
                               relative to the clock
  clock           object       {start?, horizon}
    start         integer      0..10^12 (default 0)
    horizon       integer|null the clock never passes it; start..start+10000000; null:
                               all time, no horizon
  assumptions     object       {max_arg_delay?, holders_release_in_time?, max_hold_ticks?,
                               max_ready_ticks?}
    max_arg_delay integer|null largest age of timestamp arguments, 0..10000000; 0 = read
                               in the command's own step (default); null = unbounded
    holders_release_in_time  boolean  the clock never passes a holder's own
                               timestamp while it holds the lock (default false)
    max_hold_ticks integer|null the clock never moves more than this past a holder's
                               acquisition while it holds the lock, 0..10000000
                               (default null: no bound)
    max_ready_ticks integer|null the clock never ticks while a client has waited this
                               many ticks for its step, 0..10000000 (0: a step takes
                               no time; default null: no bound)
  faults          object       fault budgets, each an integer (default 0):
)";

const char* const kLockWorldFields =
    R"(    request_timeout integer    ticks a client waits for a reply before it sees a timeout,
                               0..10000000 (default 0: the timeout comes in the same step)
    token_server  string       top level only: the master whose INCR hands out
                               redlock-fenced's tokens; not one of Redlock's instances
)";

// Read after the budget of "jump", which they qualify.
const char* const kJumpFields =
    R"(    jump_by       array        sizes of the jumps, integers 1..10000000 (needed with jump)
    stall_where   string       holding (default: anywhere while holding the lock) or
                               releasing (holding the lock outside the critical section:
                               releasing it, or renewing it between two jobs)
)";

const char* const kFieldsAfterFaults =
    R"(  server          object       the one server (named S1): {skew?, persistence?,
                               sync_every?, restart_delay?}
    skew          integer      server clock = global clock + skew + jumps; |skew| <= 10000000
    persistence   string       always (default), everysec (synced every sync_every ticks), none
    sync_every    integer      1..10000000 (default 1)
    restart_delay integer      ticks a restarted server stays unavailable, 0..10000000
                               (default 0; Redlock's delayed restarts)
  servers         array, 1-8   several servers instead of "server": each {name, replica_of?,
                               and the fields of server}; the masters, in order, are the
                               instances clients address
    name          string       1-16 of [A-Za-z0-9_-], starting with a letter; unique
    replica_of    string       a master listed earlier; at most one replica each; writes
                               reach it by "replicate" steps the scheduler places
  resource        object       {fenced?}: holders write a protected resource while they
                               hold the lock; fenced (default false): it refuses tokens not
                               larger than one it has accepted
  properties      array        names of properties to check: mutual_exclusion,
                               foreign_release, stale_write, lost_lease_renewed,
                               no_stuck_states, some_contender_enters (no run
                               ends with every client given up: lock.give_up), and
                               (without a horizon, on fair infinite executions)
                               deadlock_free, starvation_free, no_orphaned_lock
                               (default ["mutual_exclusion"]); client_error (a client's
                               code threw) is always checked
  expect          string       "safe", "vacuous" (safe, but a client expected to enter never
                               does) or "violation:PROPERTY": the outcome expected; optional
                               (without it the outcome is reported, and exits by itself)
  schedule        array        actions: "C1", "C1~2" (arguments 2 ticks old), "C1 draws 3"
                               (C1's random draw gives 3), "tick",
                               "crash C1", "stall C1", "lose-request C1", "lose-reply C1",
                               "jump +5", "restart";
                               with several servers "jump A +5", "restart A",
                               "replicate A" (A's oldest unreplicated write reaches its
                               replica), "failover A"
  seed            integer      0..2^63-1, for random values (default 0)
  probabilistic   boolean      random back-offs and draws are random, each value as likely,
                               not the scheduler's choice; liveness then holds with
                               probability 1 or fails with a positive one (default false)
  max_steps       integer      1..10000000 (default 10000): the steps of a run; an
                               execution this long ends a search, incomplete

Trace fields (what --trace-out and explore write; `lockstep replay` reads them
with the same limits and refuses, at its JSON location, the first field that
differs from replaying the schedule on the embedded scenario):
  format          string       "lockstep-trace/1"; other versions are refused
  scenario        object       the scenario run, as above, without schedule
  seed            integer      0..2^63-1
  clients         array        {name, algorithm, skew, crashed_at_start?}; names
                               unique, the scenario's clients in its order
  schedule        array        actions, as in a scenario
  steps           array        step i: {index (= i), action (from step 1), actor,
                               command, reply, events, clock, client_clocks,
                               keyspace, in_critical_section, holding, server?, servers?}
    command       array        strings: the command as executed (empty: none)
    reply         object|null  {type: integer|bulk|status|error|nil|array,
                               value?, elements?}
    clock         integer      global clock after the step, |clock| <= 2^61
    client_clocks object       client name -> integer, |clock| <= 2^61
    keyspace      array        {key, value or list, deadline (integer|null), writer}; with
                               several servers, the first instance's master's
    server        string       several servers: the server the step's command went to
    servers       array        several servers: {name, role, available, clock, keyspace,
                               writers, unreplicated} after the step
  end             string       why the execution ended
  violation       object|null  {property, clients, step (0..2^31-1), message}
)";

// "    crash         integer      0..8: a client crashes (...)", and a second line if any.
std::string FaultFields() {
  std::string out;
  for (const world::FaultKind& k : world::kFaultKinds) {
    std::string name(k.name);
    out += "    " + name + std::string(14 - name.size(), ' ') + "integer      0.." +
           std::to_string(k.max_budget) + ": " + std::string(k.help) + "\n";
    if (!k.more.empty()) out += std::string(31, ' ') + std::string(k.more) + "\n";
    if (k.name == "jump") out += kJumpFields;
  }
  return out;
}

// `head` then `text`, wrapped at 90 columns under column 31.
std::string Wrapped(std::string head, const std::string& text) {
  if (head.size() < 31) head += std::string(31 - head.size(), ' ');
  std::string out = head;
  size_t column = head.size();
  bool first = true;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    at = end + 1;
    if (!first && column + 1 + word.size() > 90) {
      out += "\n" + std::string(31, ' ');
      column = 31;
    } else if (!first) {
      out += " ";
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out + "\n";
}

// The "lock" object: the settings the algorithms declare, then the world's.
std::string LockFieldLines() {
  const std::vector<algo::Setting> declared = algo::AllSettings();
  std::string names = "{";
  for (const algo::Setting& d : declared) names += std::string(d.name) + "?, ";
  names += "request_timeout?, token_server?}: each setting is read by the algorithms declaring it";
  std::string out = Wrapped("  lock            object", names);
  for (const algo::Setting& d : declared) {
    std::string head = "    " + std::string(d.name);
    head += std::string(head.size() < 18 ? 18 - head.size() : 1, ' ') +
            std::string(algo::TypeName(d.type));
    std::string what(d.help);
    switch (d.type) {
      case algo::SettingType::kInt:
        what += ", " + std::to_string(d.min) + ".." + std::to_string(d.max) + " (default " +
                std::to_string(d.default_value) + ")";
        break;
      case algo::SettingType::kBool:
        what += std::string(" (default ") + (d.default_value ? "true" : "false") + ")";
        break;
      case algo::SettingType::kString:
        what += " (default " + json(std::string(d.default_text)).dump() + ")";
        break;
    }
    out += Wrapped(head, what);
  }
  return out + kLockWorldFields;
}

}  // namespace

std::string FieldReference() {
  return kFieldsBeforeLock + std::string(kProcessFields) + kFieldsAfterAlgorithm +
         LockFieldLines() + kFieldsBeforeFaults + FaultFields() + kFieldsAfterFaults + "\n" +
         std::string(algo::kLuaApiReference);
}

}  // namespace lockstep::scenario
