// A real redis-server for one test: started on a free loopback port with its
// own temporary folder and no persistence, stopped when the object goes away.
//
// The server never outlives the test process: the destructor kills and reaps
// it and removes its folder; SIGINT and SIGTERM do the same before the
// signal takes its usual course; and the child asks the kernel
// (PR_SET_PDEATHSIG) to be killed if the test process dies any other way.
#pragma once

#include <memory>
#include <string>

#include <sys/types.h>

#include "sim/cli/redis_replay.h"

namespace lockstep::testing {

class RedisServer {
 public:
  // Starts the server and waits until it answers PING. Throws
  // std::runtime_error saying what went wrong; if redis-server is not
  // installed, the message says to run `bash .ci/install-deps`.
  RedisServer();
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // A new connection to this server. Throws std::runtime_error on failure.
  std::unique_ptr<cli::RedisConnection> Connect() const;

 private:
  bool TryStart(const std::string& binary, std::string* error);
  void Stop();

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
};

}  // namespace lockstep::testing
