// A connection to a real Redis server: hiredis's client, its replies as the
// model's kv::Reply, so that the model's replies and the server's compare.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/kv/reply.h"

struct redisContext;  // hiredis

namespace lockstep::replay {

// A Redis user and its password (AUTH USER PASSWORD).
struct Credentials {
  std::string user;
  std::string password;
};

// One blocking connection to a real Redis server (hiredis, RESP2).
class RedisConnection {
 public:
  // Returns nullptr, with the reason in *error, iff it cannot connect
  // within timeout_ms, or `auth` is given and AUTH is refused.
  static std::unique_ptr<RedisConnection> Connect(const std::string& host, int port, int timeout_ms,
                                                  std::string* error,
                                                  const Credentials* auth = nullptr);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends one command and waits for its reply. Returns nullopt, with the
  // reason in *error, iff the connection failed (a Redis error reply is a
  // Reply, not a failure). REQUIRES: !argv.empty()
  std::optional<kv::Reply> Command(const std::vector<std::string>& argv, std::string* error);

  // Sends every command before reading any reply (pipelining), then returns
  // the replies in order. Same failure rule as Command.
  std::optional<std::vector<kv::Reply>> Pipeline(
      const std::vector<std::vector<std::string>>& commands, std::string* error);

  // The last failure was a reply that did not come within the timeout.
  bool timed_out() const { return timed_out_; }

 private:
  explicit RedisConnection(redisContext* context) : context_(context) {}
  redisContext* context_;
  bool timed_out_ = false;
};

struct HostPort {
  std::string host;
  int port = 0;
};

// Splits "HOST:PORT" (the port 1..65535). Throws base::InputError otherwise.
HostPort ParseHostPort(const std::string& text);

// --redis's argument: HOST:PORT, or redis://[USER[:PASSWORD]@]HOST:PORT[/0].
struct ServerAddress {
  HostPort at;
  std::optional<Credentials> auth;  // with a USER
};

// Throws base::InputError for anything else (a database other than 0
// included: the replay uses database 0).
ServerAddress ParseServerAddress(const std::string& text);

}  // namespace lockstep::replay
