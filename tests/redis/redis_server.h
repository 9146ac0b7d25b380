// A real redis-server for one test (replay::RedisProcess: a free loopback port,
// its own folder, no persistence, the machine's clock), stopped when the
// object goes away.
#pragma once

#include <memory>
#include <string>

#include "sim/replay/redis_process.h"

namespace lockstep::testing {

class RedisServer {
 public:
  // Starts the server and waits until it answers PING. Throws
  // std::runtime_error saying what went wrong; if redis-server is not
  // installed, the message says to run `bash .ci/install-deps`.
  RedisServer();

  int port() const { return process_->port(); }
  std::string address() const { return process_->address(); }
  // A new connection to this server. Throws std::runtime_error on failure.
  std::unique_ptr<replay::RedisConnection> Connect() const { return process_->Connect(); }
  // Makes the user a replay runs as (replay_user.h), once; the --redis URL
  // that names it.
  std::string ReplayUrl();

 private:
  std::unique_ptr<replay::RedisProcess> process_;
  std::string url_;
};

}  // namespace lockstep::testing
