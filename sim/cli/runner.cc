#include "sim/cli/runner.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/explore/random_strategy.h"
#include "sim/explore/replay_strategy.h"

namespace lockstep::cli {

trace::Trace RecordTrace(const scenario::Scenario& s,
                         const std::vector<world::Action>& schedule, const std::string& end) {
  explore::Properties properties = explore::MakeProperties(s.properties);
  world::World w(s.world);
  trace::Trace t;
  t.scenario = s.document;
  t.seed = s.world.seed;
  for (size_t i = 0; i < s.world.clients.size(); ++i) {
    const auto& c = s.world.clients[i];
    t.clients.push_back({c.name, s.algorithms[i], c.skew, c.crashed});
  }
  if (w.model().server_count() > 1) t.server_names = w.model().server_names();
  t.steps.push_back(w.Initial());
  t.end = end;
  for (const world::Action& a : schedule) {
    std::string why;
    if (!w.IsEnabled(a, &why)) {
      throw explore::ScheduleError(t.schedule.size(), "'" + world::FormatAction(a, w.client_names(), t.server_names) +
                                                          "' is not possible here: " + why);
    }
    t.schedule.push_back(world::FormatAction(a, w.client_names(), t.server_names));
    t.steps.push_back(w.Apply(a));
    if (auto v = check::CheckAll(properties, w.model(), w.state(), w.steps())) {
      t.violation = std::move(v);
      t.end = explore::EndReasonText(explore::EndReason::kViolation);
      break;
    }
  }
  if (!t.violation && w.EnabledActions().empty()) {
    if (auto v = check::CheckAllEnd(properties, w.model(), w.state(), w.steps())) {
      t.violation = std::move(v);
      t.end = explore::EndReasonText(explore::EndReason::kViolation);
    }
  }
  return t;
}

trace::Trace RunToTrace(const scenario::Scenario& s, explore::Strategy& strategy,
                        int max_steps) {
  world::Model model(s.world, /*use_forget_history=*/false);
  explore::ExecutionResult r = explore::RunExecution(
      model, strategy, explore::MakeProperties(s.properties), max_steps);
  return RecordTrace(s, r.schedule, explore::EndReasonText(r.end));
}

trace::Trace ReplaySchedule(const scenario::Scenario& s) {
  explore::ReplayStrategy replay(s.schedule);
  // The schedule, not a step bound, ends a replay.
  return RunToTrace(s, replay, static_cast<int>(s.schedule.size()) + 1);
}

trace::Trace RunSeeded(const scenario::Scenario& s, uint64_t seed, int max_steps) {
  explore::RandomStrategy random(seed);
  return RunToTrace(s, random, max_steps);
}

bool WriteFileAtomically(const std::string& path, const std::string& content,
                         std::string* error) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    *error = "cannot create a file next to " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = "cannot write " + tmp + ": " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    *error = "cannot finish writing " + tmp + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace lockstep::cli
