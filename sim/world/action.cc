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

}  // namespace

std::string FormatAction(const Action& a,
                         const std::vector<std::string>& client_names) {
  switch (a.kind) {
    case Action::Kind::kTick:
      return "tick";
    case Action::Kind::kCrash:
      return "crash " + client_names.at(a.client);
    case Action::Kind::kStep:
      break;
  }
  std::string s = client_names.at(a.client);
  if (a.age != 0) s += "~" + std::to_string(a.age);
  return s;
}

std::optional<Action> ParseAction(std::string_view text,
                                  const std::vector<std::string>& client_names,
                                  std::string* error) {
  if (text == "tick") return Action::Tick();
  if (text.starts_with("crash ")) {
    std::string_view name = text.substr(6);
    int c = FindClient(name, client_names);
    if (c < 0) {
      *error = "unknown client '" + std::string(name) + "' (clients: " +
               KnownClients(client_names) + ")";
      return std::nullopt;
    }
    return Action::Crash(c);
  }
  std::string_view name = text;
  kv::Millis age = 0;
  if (auto tilde = text.find('~'); tilde != std::string_view::npos) {
    name = text.substr(0, tilde);
    std::string_view digits = text.substr(tilde + 1);
    auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), age);
    if (ec != std::errc() || end != digits.data() + digits.size() || age < 0) {
      *error = "expected a non-negative tick count after '~' in '" +
               std::string(text) + "'";
      return std::nullopt;
    }
  }
  int c = FindClient(name, client_names);
  if (c < 0) {
    *error = "expected \"tick\", \"crash NAME\", \"NAME\" or \"NAME~AGE\" "
             "with a client name (" + KnownClients(client_names) +
             "), got '" + std::string(text) + "'";
    return std::nullopt;
  }
  return Action::Step(c, age);
}

}  // namespace lockstep::world
