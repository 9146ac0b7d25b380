// A redis-server that lockstep starts and owns: on a free loopback port,
// in a folder of its own, optionally with its wall clock under lockstep's
// control (liblockstep_clock.so), stopped and its folder removed when the
// object goes away.
//
// The server never outlives lockstep: the destructor kills and reaps it, and
// the child asks the kernel (PR_SET_PDEATHSIG) to be killed if lockstep dies
// any other way. Callers that can be stopped by a signal run under a
// run::CooperativeStop, so that destructors run.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <sys/types.h>

#include "sim/replay/redis_connection.h"

namespace lockstep::replay {

// What a restart keeps: nothing, or every write (appendfsync always).
enum class RedisPersistence { kNone, kAlways };

struct RedisProcessOptions {
  std::string binary;             // path of redis-server
  bool controlled_clock = false;  // preload the clock shim
  RedisPersistence persistence = RedisPersistence::kNone;
  // A replay's server: the default user gets a random password, and the
  // user kReplayUser (replay_user.h) one of its own.
  bool replay_user = false;
};

// The redis-server on PATH (then /usr/bin, /usr/local/bin, /usr/sbin), or
// "" if there is none.
std::string FindRedisServer();
// liblockstep_clock.so: $LOCKSTEP_CLOCK_SHIM, else beside this program, else
// in ../lib/lockstep or ../lib/<multiarch>/lockstep from it; "" if none.
std::string FindClockShim();

class RedisProcess {
 public:
  // Starts the server and waits until it answers PING. Throws
  // std::runtime_error saying what went wrong (with the server's log).
  explicit RedisProcess(RedisProcessOptions options);
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  bool running() const { return pid_ > 0; }

  // Sets the server's wall clock to `millis` since the Unix epoch; it reads
  // that instant until the next call. REQUIRES: controlled_clock
  void SetClock(int64_t millis);

  // Kills the server at once (SIGKILL: what was not synced is lost), as a
  // crash does. Its folder, and so its append-only file, stays.
  void Kill();
  // Starts it again on the same port and folder; with kAlways it loads its
  // append-only file. Throws as the constructor does.
  void Start();

  // A new connection, as the default user. Throws std::runtime_error on
  // failure.
  std::unique_ptr<RedisConnection> Connect() const;

  // With replay_user: the default user's and the replay user's.
  const std::optional<Credentials>& admin() const { return admin_; }
  const std::optional<Credentials>& replay_user() const { return replay_user_; }

 private:
  // Starts the server; on failure says why, and whether another port could
  // help (*retry).
  bool TryStart(std::string* error, bool* retry);
  // Whether the server reads the clock lockstep sets.
  bool ClockAnswers(RedisConnection& c, std::string* error);
  // Whether the server `c` reaches is the process `pid` (INFO server).
  static bool ServesPid(RedisConnection& c, pid_t pid);
  void Cleanup();  // kills the server, removes its folder
  // With replay_user: the file that defines the users, read at each start.
  void WriteUsers();

  RedisProcessOptions options_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  int64_t* clock_ = nullptr;  // the mapped clock file
  std::optional<Credentials> admin_;
  std::optional<Credentials> replay_user_;
};

}  // namespace lockstep::replay
