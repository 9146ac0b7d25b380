// Every deliberate difference between the model (sim/kv) and a real Redis
// 7.0 server, in one place. The conformance test consults this list and
// nothing else: a difference not listed here is a model bug.
//
// Not a departure, but how the test avoids one: the model has no clock and
// real Redis reads its own. The test reads the server's clock (TIME) just
// before and just after each command and runs the model at that instant; in
// the rare case the two readings straddle a millisecond and the outcome
// depends on which, every instant in between is a correct answer, and the
// test accepts the one the server's reply and keyspace show. The timed
// conformance test (a server whose clock lockstep sets, see
// replay::RedisProcess) has no such choice: the server reads the instant the
// model runs at.
//
// Not a departure either: inside a script, Redis 7.0 judges expiry at the
// script's start and reads the live clock for TTL, PTTL, SET PX and EXPIRE;
// the model reads one instant for all. A model step is atomic, so its clock
// never moves inside a script, and a server whose clock lockstep sets does
// not move it either: the two readings agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lockstep::conformance {

struct Departure {
  std::string_view id;
  std::string_view what;
};

// Scripts (EVAL, sim/kv/script.cc). Every reply text the model gives for
// a script is Redis 7.0.15's byte for byte, including compile errors,
// runtime errors with their " script: <sha>, on @user_script:<line>."
// suffix, and redis.call's own errors; what differs is below. The generator
// sends scripts under the first two ids (to check they are recognised and
// skipped); the others it never generates, as the comparison would need a
// real server to crash, to run for seconds, or commands the model lacks.
inline constexpr Departure kKnownDepartures[] = {
    {"empty-command",
     "An empty command (argv with no name): the model answers \"ERR unknown command ''\"; "
     "a real server reads *0 as nothing and sends no reply at all."},
    {"lua-prng",
     "math.random: every script starts from the generator's initial state, so a script draws "
     "what the first script on a freshly started redis-server draws (40, 85, 36, ... for "
     "math.random(100)); a real server continues one sequence across all scripts since it "
     "started. A model state must not depend on the scripts run before it."},
    {"lua-libraries",
     "cmsgpack and struct are not loaded: Debian does not package them for Lua 5.1 (cjson and "
     "bit are, and are loaded); a script that names one gets the nonexistent-global error."},
    {"lua-instruction-limit",
     "Not generated. A script is stopped after 10,000,000 Lua instructions with "
     "\"ERR Script ran more than 10000000 Lua instructions and was stopped script: <sha>, on "
     "@user_script:<line>.\"; a real server lets it run past lua-time-limit (answering BUSY "
     "to others) until SCRIPT KILL. Virtual time needs a deterministic bound."},
    {"lua-work-limit",
     "Not generated. Work no instruction count sees counts toward the same limit: pattern "
     "matching (string.find, match, gmatch, gsub: one instruction a step), and allocation "
     "(one instruction every 64 bytes). A script that still runs for more than 60 s of CPU "
     "time stops the whole run with an error, as its reply would depend on the machine."},
    {"lua-pattern-depth",
     "Not generated. A pattern match nesting deeper than 200 calls raises \"pattern too "
     "complex\" (Lua 5.2's limit), where Lua 5.1 recurses until its C stack runs out."},
    {"lua-memory-limit",
     "Not generated. The interpreter may hold 256 MiB; beyond it a script gets \"ERR Error "
     "running script <sha>, not enough memory\". A real server has no such cap."},
    {"lua-error-without-err",
     "Not generated. error({}) (an error table without an err string) crashes redis-server "
     "7.0.15 (a NULL message); the model answers \"ERR Error running script: the error object "
     "has no err string\" with the usual suffix."},
    {"lua-readonly-emulation",
     "Not generated. Redis 7.0.15 marks globals and library tables read-only with a flag its "
     "own Lua has; Debian's Lua has none, so scripts see empty read-only proxies: every write "
     "fails with Redis's text, and rawget, rawset, next, pairs and setmetatable look through "
     "them, but getmetatable(_G) is false rather than a table, cjson.encode(string) encodes an "
     "empty table, and table.insert(string, x) succeeds for the rest of that script (it is "
     "undone before the next)."},
    {"lua-commands-outside-model",
     "Not generated. redis.call of a command the model does not implement (SADD, PING, ...) "
     "gets \"Unknown Redis command called from script\"; redis.acl_check_cmd likewise refuses "
     "it. RESP3 (redis.setresp(3)) is accepted but replies still convert as RESP2; the shebang "
     "line is split on spaces without quotes, and of its flags only no-writes is enforced."},
    {"lua-cjson-settings",
     "Not generated. cjson's settings (cjson.encode_max_depth(1), ...) are put back before "
     "every script, so a script's run does not depend on the scripts before it; a real server "
     "keeps them for every later script."},
    {"lua-gc-figures",
     "Not generated. collectgarbage('count') and gcinfo() report the model's interpreter."},
};

// The id of the departure `argv` falls under, or an empty view if none. The
// test sends such a command to neither side and counts it under the id.
inline std::string_view DepartureFor(const std::vector<std::string>& argv) {
  if (argv.empty()) return kKnownDepartures[0].id;
  const std::string& name = argv[0];
  const bool eval = name.size() == 4 && (name[0] | 0x20) == 'e' && (name[1] | 0x20) == 'v' &&
                    (name[2] | 0x20) == 'a' && (name[3] | 0x20) == 'l';
  if (eval && argv.size() >= 3) {
    const std::string& script = argv[1];
    if (script.find("math.random") != std::string::npos) return "lua-prng";
    for (const char* lib : {"cmsgpack", "struct"}) {
      if (script.find(lib) != std::string::npos) return "lua-libraries";
    }
  }
  return {};
}

}  // namespace lockstep::conformance
