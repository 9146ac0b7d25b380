#include "sim/world/action.h"

#include <charconv>
#include <optional>

#include "sim/base/input_error.h"
#include "sim/base/join.h"
#include "sim/kv/int_parse.h"

namespace lockstep::world {
namespace {

int FindClient(std::string_view name, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string KnownClients(const std::vector<std::string>& names) { return base::Join(names, ", "); }

// Faults that name a client, by their text prefix.
struct ClientFault {
  const char* prefix;
  Action::Kind kind;
};
constexpr ClientFault kClientFaults[] = {
    {"crash ", Action::Kind::kCrash},
    {"stall ", Action::Kind::kStall},
    {"lose-request ", Action::Kind::kLoseRequest},
    {"lose-reply ", Action::Kind::kLoseReply},
};

std::optional<kv::Millis> Ticks(std::string_view digits) {
  kv::Millis v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || v < 0) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::string FormatAction(const Action& a, const std::vector<std::string>& client_names,
                         const std::vector<std::string>& server_names) {
  // "restart" or "restart S2": servers are named only when there are several.
  auto on = [&](std::string verb) {
    return server_names.size() > 1 ? verb + " " + server_names.at(a.server) : verb;
  };
  switch (a.kind) {
    case Action::Kind::kTick:
      return "tick";
    case Action::Kind::kRestart:
      return on("restart");
    case Action::Kind::kJump:
      return on("jump") + " +" + std::to_string(a.jump_by);
    case Action::Kind::kReplicate:
      return "replicate " + server_names.at(a.server);
    case Action::Kind::kFailover:
      return "failover " + server_names.at(a.server);
    case Action::Kind::kStep:
      break;
    default:
      for (const ClientFault& f : kClientFaults) {
        if (f.kind == a.kind) return f.prefix + client_names.at(a.client);
      }
  }
  std::string s = client_names.at(a.client);
  if (a.arg_age != 0) s += "~" + std::to_string(a.arg_age);
  if (a.drawn) s += " draws " + std::to_string(*a.drawn);
  return s;
}

Action ParseAction(std::string_view text, const std::vector<std::string>& client_names,
                   const std::vector<std::string>& server_names) {
  auto fail = [](std::string why) { return base::InputError("", "", std::move(why)); };
  if (text == "tick") return Action::Tick();
  if (text == "restart") return Action::Restart();
  // "VERB SERVER rest": the server's index, and the rest in *rest.
  auto server_of = [&](std::string_view verb, std::string_view* rest) -> int {
    std::string_view after = text.substr(verb.size() + 1);
    std::string_view name = after.substr(0, after.find(' '));
    *rest = after.substr(name.size());
    for (size_t i = 0; i < server_names.size(); ++i) {
      if (server_names[i] == name) return static_cast<int>(i);
    }
    if (server_names.empty()) {
      throw fail("'" + std::string(text) + "' names a server, but the scenario has one: " +
                 "its actions are \"jump +N\" and \"restart\"");
    }
    throw fail("unknown server '" + std::string(name) + "' in '" + std::string(text) +
               "' (servers: " + KnownClients(server_names) + ")");
  };
  for (auto [verb, kind] : {std::pair{"restart", Action::Kind::kRestart},
                            std::pair{"replicate", Action::Kind::kReplicate},
                            std::pair{"failover", Action::Kind::kFailover}}) {
    if (!text.starts_with(std::string(verb) + " ")) continue;
    std::string_view rest;
    const int server = server_of(verb, &rest);
    if (!rest.empty()) {
      throw fail("expected \"" + std::string(verb) + " SERVER\", got '" + std::string(text) + "'");
    }
    return Action{.kind = kind, .server = server};
  }
  if (text.starts_with("jump ")) {
    int server = 0;
    std::string_view rest = text.substr(4);
    if (!text.starts_with("jump +")) {
      server = server_of("jump", &rest);
    }
    auto by = rest.starts_with(" +") ? Ticks(rest.substr(2)) : std::nullopt;
    if (!by || *by == 0) {
      throw fail(
          "expected a positive tick count after \"+\" in \"jump +N\" or \"jump SERVER +N\", "
          "got '" +
          std::string(text) + "'");
    }
    return Action::Jump(*by, server);
  }
  for (const ClientFault& f : kClientFaults) {
    std::string_view prefix = f.prefix;
    if (!text.starts_with(prefix)) continue;
    std::string_view name = text.substr(prefix.size());
    int c = FindClient(name, client_names);
    if (c < 0) {
      throw fail("unknown client '" + std::string(name) +
                 "' (clients: " + KnownClients(client_names) + ")");
    }
    return Action{.kind = f.kind, .client = c};
  }
  std::string_view name = text;
  std::optional<int64_t> drawn;
  if (auto draws = text.rfind(" draws "); draws != std::string_view::npos) {
    name = text.substr(0, draws);
    int64_t value = 0;
    if (!kv::ParseInt64(text.substr(draws + 7), &value)) {
      throw fail("expected an integer after \"draws\" in '" + std::string(text) + "'");
    }
    drawn = value;
    text = name;
  }
  kv::Millis arg_age = 0;
  if (auto tilde = text.find('~'); tilde != std::string_view::npos) {
    name = text.substr(0, tilde);
    auto parsed = Ticks(text.substr(tilde + 1));
    if (!parsed) {
      throw fail("expected a non-negative tick count after '~' in '" + std::string(text) + "'");
    }
    arg_age = *parsed;
  }
  int c = FindClient(name, client_names);
  if (c < 0) {
    throw fail(
        "expected \"tick\", \"crash NAME\", \"NAME\", \"NAME~AGE\" or \"NAME draws N\" "
        "with a client name (" +
        KnownClients(client_names) +
        "), or a fault (\"stall NAME\", \"jump +N\", \"restart\", \"lose-request NAME\", "
        "\"lose-reply NAME\", \"failover SERVER\"), or \"replicate SERVER\", got '" +
        std::string(text) + "'");
  }
  Action a = Action::Step(c, arg_age);
  a.drawn = drawn;
  return a;
}

}  // namespace lockstep::world
