#include "sim/replay/vetting.h"

#include "sim/base/check.h"
#include "sim/base/input_error.h"
#include "sim/kv/command_table.h"
#include "sim/trace/trace.h"
#include "sim/world/model.h"

namespace lockstep::replay {

StepsToSend VetForRealServer(const run::ReplayedTrace& replayed, const std::string& file) {
  const trace::Trace& t = replayed.trace;
  world::Model model(replayed.scenario.world, /*use_forget_history=*/true);
  world::WorldState s = model.Initial();
  LOCKSTEP_CHECK(t.steps.size() == replayed.scenario.schedule.size() + 1,
                 "a replayed trace has a step for each action of its schedule");
  StepsToSend send(t.steps.size(), "no command");
  for (size_t i = 0; i < replayed.scenario.schedule.size(); ++i) {
    world::StepEffects effects;
    model.Apply(s, replayed.scenario.schedule[i], &effects);
    const world::StepRecord& step = t.steps[i + 1];
    LOCKSTEP_CHECK(effects.command == step.command, "a replayed trace holds the model's commands");
    if (!effects.ran) {
      const world::Action& a = replayed.scenario.schedule[i];
      send[i + 1] = a.kind == world::Action::Kind::kLoseRequest ? "the request is lost"
                    : effects.server >= 0                       ? "the server is down"
                    : effects.command.empty()                   ? "no command"
                    : effects.command[0] == "WRITE"             ? "the resource is lockstep's model"
                                                                : "it reaches no server";
      continue;
    }
    send[i + 1] = "";
    const std::string what = "step " + std::to_string(step.index) + ": " + step.actor + " sends " +
                             trace::CommandText(step.command);
    const char* why = effects.effect.unvouched;
    if (why == nullptr && kv::FindCommand(step.command[0]) == nullptr) {
      why = "a command the model does not implement";
    }
    if (why != nullptr) {
      throw base::InputError(file, "",
                             what + ": " + why +
                                 ", so the model cannot vouch for what it does on a real server; "
                                 "a replay sends a server only commands the model executed, and "
                                 "sends nothing of this trace");
    }
  }
  return send;
}

}  // namespace lockstep::replay
