#include "tests/redis/redis_server.h"

#include <stdexcept>

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

}  // namespace lockstep::testing
