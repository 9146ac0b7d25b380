// A trace's steps as short text: a reply, a command, a step on one line,
// the whole trace on one line (the form a test pastes).
#include "sim/base/printable.h"
#include "sim/trace/trace.h"

namespace lockstep::trace {

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
    const size_t eol = arg.find('\n');
    s += eol == std::string::npos ? base::Printable(arg)
                                  : "[" + base::Printable(arg.substr(0, eol)) + " ...]";
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
