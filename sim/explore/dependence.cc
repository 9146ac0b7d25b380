#include "sim/explore/dependence.h"

#include <optional>

#include "sim/check/property.h"
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
  if (const kv::CommandSpec* spec = kv::FindRunnable(argv.empty() ? "" : argv[0], argv.size())) {
    for (const auto& key : kv::CommandKeys(*spec, argv)) {
      if (key == kClock) return std::nullopt;
    }
  }
  return argv;
}

bool ReadOnly(const std::vector<std::string>& argv) {
  const kv::CommandSpec* spec = kv::FindCommand(argv[0]);
  return spec && spec->access == kv::Access::kRead;
}

// The step may write a key (unknown commands may).
bool MayWrite(const world::Request& r) {
  if (r.kind == world::Request::Kind::kResource) return false;
  auto c = KnownCommand(r);
  return !c || (!c->empty() && !ReadOnly(*c));
}

}  // namespace

Dependence::Dependence(world::Model& model, uint32_t ghost)
    : model_(model),
      holders_matter_(ghost & check::Property::kLatestAcquirer),
      owners_matter_(ghost & check::Property::kWriters) {}

Dependence::Static Dependence::Classify(const world::Request& rx, const world::Request& ry) {
  using world::Request;
  if (rx.kind == Request::Kind::kResource && ry.kind == Request::Kind::kResource) {
    return Static::kDependent;
  }
  if (rx.instance != ry.instance) return Static::kIndependent;
  auto cx = KnownCommand(rx);
  auto cy = KnownCommand(ry);
  if (!cx || !cy) return Static::kDependent;
  if (cx->empty() || cy->empty()) return Static::kIndependent;
  if (!kv::CommandsCommute(*cx, *cy)) return Static::kDependent;
  return ReadOnly(*cx) || ReadOnly(*cy) ? Static::kIndependent : Static::kUnlessLogged;
}

bool Dependence::Independent(const world::WorldState& s, const world::Action& x,
                             const world::WorldState& after_x, const world::Action& y) {
  using world::Action;
  if (x.kind != Action::Kind::kStep || y.kind != Action::Kind::kStep) return false;
  if (x.client == y.client) return false;
  const world::Request& rx = model_.RequestOf(s, x.client);
  const world::Request& ry = model_.RequestOf(s, y.client);
  std::pair<const void*, const void*> key{&rx, &ry};
  auto it = known_.find(key);
  if (it == known_.end()) {
    it = known_.emplace(key, Known{Classify(rx, ry), MayWrite(rx), MayWrite(ry)}).first;
  }
  const Known& known = it->second;
  switch (known.relation) {
    case Static::kDependent:
      return false;
    case Static::kUnlessLogged: {
      const int server = world::Model::Serving(s, rx.instance);
      const int replica = model_.ReplicaOf(server);
      if (replica >= 0 && s.servers[replica].role == world::ServerRole::kReplica) return false;
      break;
    }
    case Static::kIndependent:
      break;
  }
  // Entering marks the other holders: it does not commute with another
  // client's entering, letting go or renewing (which reads the marks).
  const world::StepGhost& gx = after_x.step;
  if (holders_matter_ && (gx.entered || gx.forgot || gx.renewed)) {
    scratch_ = s;
    model_.Apply(scratch_, y, nullptr);
    const world::StepGhost& gy = scratch_.step;
    if ((gx.entered && (gy.entered || gy.forgot || gy.renewed)) ||
        (gy.entered && (gx.forgot || gx.renewed))) {
      return false;
    }
  }
  // Entering makes the values the client wrote its lock, on every server:
  // it does not commute with another client's write, which may be the
  // release that removes one of them.
  if (owners_matter_) {
    if (gx.entered && known.y_may_write) return false;
    if (known.x_may_write) {
      scratch_ = s;
      model_.Apply(scratch_, y, nullptr);
      if (scratch_.step.entered) return false;
    }
  }
  return true;
}

}  // namespace lockstep::explore
