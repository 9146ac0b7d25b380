#include "sim/process/lockstep_calls.h"

#include <nlohmann/json.hpp>

#include "sim/base/limits.h"
#include "sim/kv/int_parse.h"
#include "sim/process/connection_commands.h"

namespace lockstep::process {
namespace {

using nlohmann::json;
using world::Client;
using world::RuleBroken;

constexpr std::string_view kClockArgument = "lockstep:clock+";

[[noreturn]] void Malformed(const std::string& who, const std::string& verb,
                            const std::string& expected, const std::string& got) {
  throw RuleBroken(who + " sent ECHO lockstep:" + verb + " with " + expected + ", got \"" + got +
                   "\"");
}

// Times, and offsets from the clock, lie within the clock's range: an
// algorithm's arithmetic on them cannot overflow.
constexpr int64_t kMaxTime = base::Limits::kMaxTime;
// A token is an integer a trace shows exactly wherever it is read (a
// JavaScript number).
constexpr int64_t kMaxToken = int64_t{1} << 53;

// A JSON integer within +-bound (an unsigned one too large for int64 is not).
bool InRange(const json& v, int64_t bound) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(bound);
  return v.get<int64_t>() >= -bound && v.get<int64_t>() <= bound;
}

int64_t IntArg(const std::string& who, const std::string& verb, const std::string& arg,
               int64_t bound = kMaxTime) {
  int64_t v = 0;
  if (!kv::ParseInt64(arg, &v)) Malformed(who, verb, "an argument that is an integer", arg);
  if (v < -bound || v > bound) {
    Malformed(who, verb,
              "an integer from " + kv::FormatInt64(-bound) + " to " + kv::FormatInt64(bound), arg);
  }
  return v;
}

// The JSON object argument of `verb`, with only `fields`.
json ObjectArg(const std::string& who, const std::string& verb, const std::string& arg,
               std::initializer_list<std::string_view> fields, const std::string& expected) {
  json j = json::parse(arg, nullptr, /*allow_exceptions=*/false);
  bool ok = j.is_object();
  if (ok) {
    for (const auto& [key, value] : j.items()) {
      bool known = false;
      for (std::string_view f : fields) known |= key == f;
      ok &= known;
    }
  }
  if (!ok) Malformed(who, verb, expected, arg);
  return j;
}

// An array of integers at `key` of `j` (none: empty).
std::vector<int64_t> Integers(const json& j, const char* key, const std::string& who,
                              const std::string& verb, const std::string& arg,
                              const std::string& expected, int64_t bound) {
  std::vector<int64_t> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) Malformed(who, verb, expected, arg);
  for (const json& v : j[key]) {
    if (!InRange(v, bound)) {
      Malformed(who, verb, expected + " whose " + key + " lie within +-" + kv::FormatInt64(bound),
                arg);
    }
    out.push_back(v.get<int64_t>());
  }
  return out;
}

// forget_history {"label": L, "live": [N...], "times": [T...]}:
// Client::ForgetHistory(L, live, times).
void ForgetHistory(Client& c, const std::string& who, const std::string& arg) {
  const std::string expected =
      "{\"label\": TEXT, \"live\": [INTEGER...], \"times\": [TIME...]} (live and times "
      "optional)";
  const json j = ObjectArg(who, "forget_history", arg, {"label", "live", "times"}, expected);
  if (!j.contains("label") || !j["label"].is_string()) {
    Malformed(who, "forget_history", expected, arg);
  }
  const std::vector<int64_t> live =
      Integers(j, "live", who, "forget_history", arg, expected, kMaxToken);
  const std::vector<int64_t> times =
      Integers(j, "times", who, "forget_history", arg, expected, kMaxTime);
  c.ForgetHistory(j["label"].get<std::string>(), live, times);
}

// leave {"command": [ARG...], "unless_expired": T}: leaves, and in the same
// step sends the command unless T is before the clock then.
kv::Reply LeaveReleasing(Client& c, const std::string& who, const std::string& arg) {
  const std::string expected =
      "{\"command\": [ARG...], \"unless_expired\": TIME} (unless_expired optional)";
  const json j = ObjectArg(who, "leave", arg, {"command", "unless_expired"}, expected);
  if (!j.contains("command") || !j["command"].is_array() || j["command"].empty()) {
    Malformed(who, "leave", expected, arg);
  }
  std::vector<std::string> command;
  for (const json& a : j["command"]) {
    if (!a.is_string() || a.get<std::string>().starts_with(kClockArgument)) {
      Malformed(who, "leave", expected + " whose arguments are strings and read no clock", arg);
    }
    command.push_back(a.get<std::string>());
  }
  const bool conditional = j.contains("unless_expired");
  if (conditional && !InRange(j["unless_expired"], kMaxTime)) {
    Malformed(who, "leave", expected + " with a TIME within +-" + kv::FormatInt64(kMaxTime), arg);
  }
  const world::Millis unless_expired = conditional ? j["unless_expired"].get<int64_t>() : 0;
  return c.LeaveCriticalSection([command, conditional, unless_expired](world::Millis now) {
    return conditional && unless_expired < now ? std::vector<std::string>{} : command;
  });
}

// "LEAST MOST": a value between them, each as likely when draws are
// weighed (Client::Draw); a step unless they are equal.
kv::Reply Draw(Client& c, const std::string& who, const std::string& arg, CallEffects* effects) {
  const size_t gap = arg.find(' ');
  if (gap == std::string::npos) Malformed(who, "draw", "two integers, the least and the most", arg);
  const int64_t least = IntArg(who, "draw", arg.substr(0, gap));
  const int64_t most = IntArg(who, "draw", arg.substr(gap + 1));
  if (most < least || most - least >= base::Limits::kMaxDrawValues) {
    Malformed(who, "draw",
              "a least and a most at most " + std::to_string(base::Limits::kMaxDrawValues - 1) +
                  " above it",
              arg);
  }
  effects->stepped = least != most;
  return kv::Reply::Bulk(kv::FormatInt64(c.Draw(least, most)));
}

}  // namespace

bool IsLockstepCall(const std::vector<std::string>& argv) {
  return argv.size() == 2 && Upper(argv[0]) == "ECHO" && argv[1].starts_with(kCallPrefix);
}

kv::Reply RunLockstepCall(Client& c, const std::string& text, const std::string& who,
                          CallEffects* effects) {
  const std::string call = text.substr(kCallPrefix.size());
  const size_t space = call.find(' ');
  const std::string verb = call.substr(0, space);
  const std::string arg = space == std::string::npos ? "" : call.substr(space + 1);
  if (verb == "enter") {
    c.EnterCriticalSection(IntArg(who, verb, arg));
  } else if (verb == "renew") {
    c.Renew(IntArg(who, verb, arg));
  } else if (verb == "leave") {
    effects->stepped = true;
    return arg.empty() ? c.LeaveCriticalSection() : LeaveReleasing(c, who, arg);
  } else if (verb == "released") {
    c.ForgetLock();
  } else if (verb == "write") {
    effects->stepped = true;
    return kv::Reply::Bulk(c.WriteResource(IntArg(who, verb, arg, kMaxToken)) ? "1" : "0");
  } else if (verb == "draw") {
    return Draw(c, who, arg, effects);
  } else if (verb == "give_up") {
    c.GiveUp();
  } else if (verb == "because") {
    c.Because(arg);
  } else if (verb == "forget_history") {
    ForgetHistory(c, who, arg);
    effects->forgot = true;
  } else if (verb == "clock_plus") {
    return kv::Reply::Bulk(std::string(kClockArgument) + kv::FormatInt64(IntArg(who, verb, arg)));
  } else if (verb == "sent_timestamp") {
    return kv::Reply::Bulk(kv::FormatInt64(c.SentTimestamp()));
  } else {
    throw RuleBroken(who + " sent ECHO lockstep:" + verb +
                     ", which is none of lockstep:enter, renew, leave, released, write, draw, "
                     "give_up, because, forget_history, clock_plus and sent_timestamp");
  }
  return kv::Reply::Bulk(text);
}

std::vector<world::Value> RequestArguments(const std::vector<std::string>& argv,
                                           const std::string& who) {
  std::vector<world::Value> values;
  bool clock = false;
  for (const std::string& a : argv) {
    int64_t offset = 0;
    if (a.starts_with(kClockArgument) &&
        kv::ParseInt64(std::string_view(a).substr(kClockArgument.size()), &offset)) {
      if (offset < -kMaxTime || offset > kMaxTime) {
        throw RuleBroken(who + " sent an argument " + a +
                         ": the offset from the clock must lie "
                         "within +-" +
                         kv::FormatInt64(kMaxTime));
      }
      if (clock) {
        throw RuleBroken(who +
                         " sent a command with two arguments lockstep:clock+N; a step "
                         "reads its clock once");
      }
      clock = true;
      values.push_back(world::Value::ClockPlus(offset));
    } else {
      values.push_back(world::Value(a));
    }
  }
  return values;
}

}  // namespace lockstep::process
