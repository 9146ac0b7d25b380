#include "sim/replay/redis_replay.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/replay/redis_connection.h"
#include "sim/replay/redis_process.h"
#include "sim/replay/redis_session.h"
#include "sim/replay/vetting.h"
#include "sim/run/exit_codes.h"
#include "sim/run/messages.h"
#include "sim/run/stop_signals.h"
#include "sim/run/trace_file.h"

namespace lockstep::replay {

int ReplayOnRedis(const std::string& file, const RedisReplayOptions& options) {
  RedisReplayOptions o = options;
  ServerAddress named;
  if (!o.managed) {
    named = ParseServerAddress(o.address);
  } else {
    if (o.server_binary.empty()) o.server_binary = FindRedisServer();
    if (o.server_binary.empty()) {
      run::PrintError(
          "--redis-server: no redis-server on PATH; install it (Debian: apt install "
          "redis-server) or name it: --redis-server PATH");
      return run::kExitBadInput;
    }
    if (access(o.server_binary.c_str(), X_OK) != 0) {
      run::PrintError("--redis-server: " + o.server_binary +
                      " is not a program lockstep can run (" + std::strerror(errno) +
                      "); give redis-server's path, after the trace: replay TRACE " +
                      "--redis-server [PATH]");
      return run::kExitBadInput;
    }
  }
  // The model replays the whole trace first, and vouches for every command
  // before anything is sent; with --redis-server it then replays alongside,
  // saying each server's clock and whether it is up, step by step.
  const run::ReplayedTrace model = run::LoadReplayedTrace(file);
  StepsToSend send = VetForRealServer(model, file);
  // A stop signal lets the replay stop between steps, so that the servers
  // lockstep started are stopped.
  run::CooperativeStop cooperative;
  RedisSession session(file, model, o, std::move(send));
  const bool ready = o.managed ? session.StartServers() && session.Connect() &&
                                     session.WriteInitialKeyspace() && session.SaveSnapshots()
                               : session.UseServer(named) && session.Connect() &&
                                     session.CheckUser() && session.CheckDatabase() &&
                                     session.MapTime() && session.WriteInitialKeyspace();
  if (!ready || !session.ReplaySteps()) {
    // A stop signal while a server was starting is the signal's, not the
    // server's fault.
    if (run::StopRequested()) {
      run::PrintError(std::string("replay stopped by ") + run::SignalName(run::StopSignal()));
      return 128 + run::StopSignal();
    }
    return run::kExitBadInput;
  }
  return session.Verdict();
}

}  // namespace lockstep::replay
