#include "tests/redis/redis_server.h"

#include <stdexcept>

#include "sim/replay/replay_user.h"

namespace lockstep::testing {

RedisServer::RedisServer() {
  const std::string binary = replay::FindRedisServer();
  if (binary.empty()) {
    throw std::runtime_error(
        "redis-server is not installed; these tests need a real server: run "
        "`bash .ci/install-deps` (as root) to install it");
  }
  process_ = std::make_unique<replay::RedisProcess>(replay::RedisProcessOptions{.binary = binary});
}

std::string RedisServer::ReplayUrl() {
  if (!url_.empty()) return url_;
  const std::string password = replay::RandomPassword();
  std::vector<std::string> setuser = {"ACL", "SETUSER", replay::kReplayUser, "on", ">" + password};
  for (const std::string& rule : replay::ReplayUserRules(/*setup=*/true)) setuser.push_back(rule);
  std::string error;
  std::optional<kv::Reply> r = Connect()->Command(setuser, &error);
  if (!r || *r != kv::Reply::Ok()) {
    throw std::runtime_error("ACL SETUSER failed: " + (r ? r->ToString() : error));
  }
  url_ = std::string("redis://") + replay::kReplayUser + ":" + password + "@" + address();
  return url_;
}

}  // namespace lockstep::testing
