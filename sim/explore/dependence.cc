#include "sim/explore/dependence.h"

#include <optional>

#include "sim/kv/command_table.h"
#include "sim/kv/conflicts.h"

namespace lockstep::explore {
namespace {

// The command a step will send, if it is known before the step: nullopt
// means "unknown"; an empty vector means "no command".
std::optional<std::vector<std::string>> KnownCommand(const world::Request& r) {
  if (r.kind == world::Request::Kind::kLeave) {
    if (r.make) return std::nullopt;
    return std::vector<std::string>{};
  }
  static const std::string kClock = "\x01clock";
  std::vector<std::string> argv;
  for (const world::Value& v : r.argv) argv.push_back(v.is_clock() ? kClock : v.literal());
  // A key read from the clock is not known in advance.
  if (const kv::CommandSpec* spec = kv::FindCommand(argv.empty() ? "" : argv[0])) {
    if (kv::ArityOk(*spec, argv.size())) {
      for (const auto& key : kv::CommandKeys(*spec, argv)) {
        if (key == kClock) return std::nullopt;
      }
    }
  }
  return argv;
}

}  // namespace

bool Independent(const world::Model& m, const world::WorldState& s, const world::Action& x,
                 const world::Action& y) {
  using world::Action;
  if (x.kind != Action::Kind::kStep || y.kind != Action::Kind::kStep) return false;
  if (x.client == y.client) return false;
  const world::Request& rx = m.RequestOf(s, x.client);
  const world::Request& ry = m.RequestOf(s, y.client);
  // Two writes to the protected resource: which lands first decides which
  // a fenced resource refuses.
  if (rx.kind == world::Request::Kind::kResource && ry.kind == world::Request::Kind::kResource) {
    return false;
  }
  // Commands to different instances reach different servers.
  if (rx.instance != ry.instance) return true;
  auto cx = KnownCommand(rx);
  auto cy = KnownCommand(ry);
  if (!cx || !cy) return false;
  if (cx->empty() || cy->empty()) return true;
  return kv::CommandsCommute(*cx, *cy);
}

bool IndependenceCache::Independent(const world::Model& m, const world::WorldState& s,
                                    const world::Action& x, const world::Action& y) {
  using world::Action;
  if (x.kind != Action::Kind::kStep || y.kind != Action::Kind::kStep) return false;
  if (x.client == y.client) return false;
  std::pair<const void*, const void*> key{&m.RequestOf(s, x.client), &m.RequestOf(s, y.client)};
  auto it = known_.find(key);
  if (it != known_.end()) return it->second;
  bool answer = explore::Independent(m, s, x, y);
  known_.emplace(key, answer);
  return answer;
}

}  // namespace lockstep::explore
