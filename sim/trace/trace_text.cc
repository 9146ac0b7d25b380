// A trace's steps as short text: a reply, a command, a step on one line,
// the whole trace on one line (the form a test pastes).
#include <charconv>

#include "sim/base/join.h"
#include "sim/base/printable.h"
#include "sim/trace/trace.h"

namespace lockstep::trace {
namespace {

// Key `key` of the server a step ran on, as the step left it, and who wrote it.
struct KeyAfter {
  const kv::Entry* entry = nullptr;
  std::string writer;
};

KeyAfter Find(const world::StepRecord& r, const std::string& server, const std::string& key) {
  const std::vector<kv::Entry>* keyspace = &r.keyspace;
  const std::map<std::string, std::string>* writers = &r.writers;
  for (const world::ServerRecord& sv : r.servers) {
    if (sv.name == server) {
      keyspace = &sv.keyspace;
      writers = &sv.writers;
    }
  }
  KeyAfter k;
  for (const kv::Entry& e : *keyspace) {
    if (e.key == key) k.entry = &e;
  }
  if (const auto w = writers->find(key); w != writers->end()) k.writer = w->second;
  return k;
}

std::optional<long long> Number(const std::string& s) {
  long long n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

}  // namespace

std::string ArgAgeLabel(long long arg_age) {
  return "args " + base::Counted(arg_age, "tick") + " old";
}

std::string ArgAgeText(const world::StepRecord& before, const world::StepRecord& r) {
  std::string text = ArgAgeLabel(r.action.arg_age);
  if (r.command.size() < 2) return text;
  const std::string& key = r.command[1];
  const KeyAfter was = Find(before, r.server, key);
  const KeyAfter now = Find(r, r.server, key);
  // Only a value of another client's replaced by this one's is worth telling.
  if (!was.entry || !now.entry || was.writer.empty() || was.writer == r.actor ||
      now.writer != r.actor || was.entry->value == now.entry->value) {
    return text;
  }
  const std::string old_value = base::Printable(was.entry->value);
  const std::string new_value = base::Printable(now.entry->value);
  const std::optional<long long> a = Number(was.entry->value), b = Number(now.entry->value);
  if (was.entry->timestamp && now.entry->timestamp && a && b && *b < *a) {
    return text + ": replaced " + was.writer + "'s newer timestamp " + old_value +
           " with an older " + new_value;
  }
  return text + ": replaced " + was.writer + "'s " + old_value + " with " + new_value;
}

std::string CompactReply(const kv::Reply& r) {
  switch (r.type) {
    case kv::Reply::Type::kInteger:
      return std::to_string(r.integer);
    case kv::Reply::Type::kBulk:
      return "\"" + base::Printable(r.text) + "\"";
    case kv::Reply::Type::kNil:
      return "nil";
    case kv::Reply::Type::kStatus:
    case kv::Reply::Type::kError:
      return base::Printable(r.text);
    case kv::Reply::Type::kArray: {
      std::string s = "[";
      for (size_t i = 0; i < r.elements.size(); ++i) {
        s += (i ? ", " : "") + CompactReply(r.elements[i]);
      }
      return s + "]";
    }
  }
  return "?";
}

std::string CommandText(const std::vector<std::string>& command) {
  std::string s;
  for (const std::string& arg : command) {
    if (!s.empty()) s += " ";
    if (arg.find('\n') == std::string::npos) {
      s += base::Printable(arg);
      continue;
    }
    // A script: its first line with words (a script may open on a newline).
    const size_t words = arg.find_first_not_of(" \t\r\n");
    const size_t newline = words == std::string::npos ? words : arg.rfind('\n', words);
    const size_t from = newline == std::string::npos ? 0 : newline + 1;
    const size_t eol = arg.find('\n', from);
    s += "[" + base::Printable(arg.substr(from, eol - from)) + " ...]";
  }
  return s;
}

bool WakesActor(const std::vector<std::string>& events, const std::string& actor) {
  return std::find(events.begin(), events.end(), actor + " wakes") != events.end();
}

std::string StepLine(const world::StepRecord& r) {
  using K = world::Action::Kind;
  switch (r.action.kind) {
    case K::kTick:
      return "tick";
    case K::kCrash:
      return "crash " + r.actor;
    case K::kStall:
      return "stall " + r.actor;
    case K::kJump:
      return r.actor == "server" ? "jump +" + std::to_string(r.action.jump_by)
                                 : "jump " + r.actor + " +" + std::to_string(r.action.jump_by);
    case K::kRestart:
      return r.actor == "server" ? "restart" : "restart " + r.actor;
    case K::kReplicate:
      return "replicate " + r.actor;
    case K::kFailover:
      return "failover " + r.actor;
    default:
      break;
  }
  if (r.action.drawn) return r.actor + " draws " + std::to_string(*r.action.drawn);
  if (r.command.empty()) return r.actor + (WakesActor(r.events, r.actor) ? " wakes" : " leaves");
  std::string s = r.actor;
  if (!r.server.empty()) s += " @" + r.server;
  s += " " + CommandText(r.command);
  if (r.action.kind == K::kLoseRequest) return s + " -> request lost";
  if (r.reply) s += " -> " + CompactReply(*r.reply);
  if (r.action.kind == K::kLoseReply) s += " (reply lost)";
  return s;
}

std::string OneLine(const Trace& t) {
  std::string s;
  for (size_t i = 1; i < t.steps.size(); ++i) {
    s += (i > 1 ? "; " : "") + StepLine(t.steps[i]);
  }
  if (t.violation) {
    s += " !" + t.violation->property + "(";
    for (size_t i = 0; i < t.violation->clients.size(); ++i) {
      s += (i ? "," : "") + t.violation->clients[i];
    }
    s += ")@" + std::to_string(t.violation->step);
  }
  return s;
}

}  // namespace lockstep::trace
