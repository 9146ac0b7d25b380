#include "sim/world/action.h"

#include <charconv>

namespace lockstep::world {
namespace {

int FindClient(std::string_view name, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string KnownClients(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

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
    case Action::Kind::kTick: return "tick";
    case Action::Kind::kRestart: return on("restart");
    case Action::Kind::kJump: return on("jump") + " +" + std::to_string(a.age);
    case Action::Kind::kReplicate: return "replicate " + server_names.at(a.server);
    case Action::Kind::kFailover: return "failover " + server_names.at(a.server);
    case Action::Kind::kStep: break;
    default:
      for (const ClientFault& f : kClientFaults) {
        if (f.kind == a.kind) return f.prefix + client_names.at(a.client);
      }
  }
  std::string s = client_names.at(a.client);
  if (a.age != 0) s += "~" + std::to_string(a.age);
  return s;
}

std::optional<Action> ParseAction(std::string_view text,
                                  const std::vector<std::string>& client_names,
                                  std::string* error,
                                  const std::vector<std::string>& server_names) {
  if (text == "tick") return Action::Tick();
  if (text == "restart") return Action::Restart();
  // "VERB SERVER rest": the server's index, and the rest in *rest.
  auto server_of = [&](std::string_view verb, std::string_view* rest) -> std::optional<int> {
    std::string_view after = text.substr(verb.size() + 1);
    std::string_view name = after.substr(0, after.find(' '));
    *rest = after.substr(name.size());
    for (size_t i = 0; i < server_names.size(); ++i) {
      if (server_names[i] == name) return static_cast<int>(i);
    }
    if (server_names.empty()) {
      *error = "'" + std::string(text) + "' names a server, but the scenario has one: " +
               "its actions are \"jump +N\" and \"restart\"";
    } else {
      *error = "unknown server '" + std::string(name) + "' in '" + std::string(text) +
               "' (servers: " + KnownClients(server_names) + ")";
    }
    return std::nullopt;
  };
  for (auto [verb, kind] : {std::pair{"restart", Action::Kind::kRestart},
                            std::pair{"replicate", Action::Kind::kReplicate},
                            std::pair{"failover", Action::Kind::kFailover}}) {
    if (!text.starts_with(std::string(verb) + " ")) continue;
    std::string_view rest;
    auto server = server_of(verb, &rest);
    if (!server) return std::nullopt;
    if (!rest.empty()) {
      *error = "expected \"" + std::string(verb) + " SERVER\", got '" + std::string(text) + "'";
      return std::nullopt;
    }
    return Action{kind, -1, 0, *server};
  }
  if (text.starts_with("jump ")) {
    int server = 0;
    std::string_view rest = text.substr(4);
    if (!text.starts_with("jump +")) {
      auto named = server_of("jump", &rest);
      if (!named) return std::nullopt;
      server = *named;
    }
    auto by = rest.starts_with(" +") ? Ticks(rest.substr(2)) : std::nullopt;
    if (!by || *by == 0) {
      *error = "expected a positive tick count after \"+\" in \"jump +N\" or \"jump SERVER +N\", "
               "got '" + std::string(text) + "'";
      return std::nullopt;
    }
    return Action::Jump(*by, server);
  }
  for (const ClientFault& f : kClientFaults) {
    std::string_view prefix = f.prefix;
    if (!text.starts_with(prefix)) continue;
    std::string_view name = text.substr(prefix.size());
    int c = FindClient(name, client_names);
    if (c < 0) {
      *error = "unknown client '" + std::string(name) + "' (clients: " +
               KnownClients(client_names) + ")";
      return std::nullopt;
    }
    return Action{f.kind, c, 0};
  }
  std::string_view name = text;
  kv::Millis age = 0;
  if (auto tilde = text.find('~'); tilde != std::string_view::npos) {
    name = text.substr(0, tilde);
    auto parsed = Ticks(text.substr(tilde + 1));
    if (!parsed) {
      *error = "expected a non-negative tick count after '~' in '" + std::string(text) + "'";
      return std::nullopt;
    }
    age = *parsed;
  }
  int c = FindClient(name, client_names);
  if (c < 0) {
    *error = "expected \"tick\", \"crash NAME\", \"NAME\" or \"NAME~AGE\" "
             "with a client name (" + KnownClients(client_names) +
             "), or a fault (\"stall NAME\", \"jump +N\", \"restart\", \"lose-request NAME\", "
             "\"lose-reply NAME\", \"failover SERVER\"), or \"replicate SERVER\", got '" + std::string(text) + "'";
    return std::nullopt;
  }
  return Action::Step(c, age);
}

}  // namespace lockstep::world
