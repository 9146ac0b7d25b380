// `replay --redis` against servers that are not Redis: one that answers +OK
// to every command, one that says it is empty and then answers +OK to
// everything, one that never answers. A reply that differs from the
// trace is a failed replay (exit 4); an answer to the emptiness check that
// Redis would not give, or silence, is an error (exit 2).
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <sys/socket.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::RunLockstep;

// The length of the first complete RESP command in `buffer` (an array of
// bulk strings, as hiredis sends), or 0 if it is not complete yet.
size_t CompleteCommand(const std::string& buffer) {
  auto number = [&](size_t at, char kind, size_t* end) -> long {
    if (at >= buffer.size() || buffer[at] != kind) return -1;
    const size_t eol = buffer.find("\r\n", at);
    if (eol == std::string::npos) return -1;
    *end = eol + 2;
    return std::stol(buffer.substr(at + 1, eol - at - 1));
  };
  size_t at = 0;
  const long count = number(0, '*', &at);
  for (long i = 0; count >= 0 && i < count; ++i) {
    const long length = number(at, '$', &at);
    if (length < 0 || at + static_cast<size_t>(length) + 2 > buffer.size()) return 0;
    at += static_cast<size_t>(length) + 2;
  }
  return count < 0 ? 0 : at;
}

// The name of the command at the start of `buffer`, a complete one.
std::string CommandName(const std::string& buffer) {
  const size_t at = buffer.find("\r\n", buffer.find("\r\n") + 2) + 2;
  return buffer.substr(at, buffer.find("\r\n", at) - at);
}

// The commands replay --redis asks to see that its user may not run them.
const std::set<std::string> kProbes = {"SELECT",   "SWAPDB",  "MOVE",   "COPY",
                                       "FLUSHALL", "MIGRATE", "CONFIG", "EVAL"};

// A server on 127.0.0.1 (an ephemeral port) served by a thread until the
// object goes away.
class FakeRedis {
 public:
  enum class Mode { kOkToEverything, kEmptyThenOk, kSilent };

  explicit FakeRedis(Mode mode) : mode_(mode) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        listen(listener_, 16) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      if (listener_ >= 0) close(listener_);
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeRedis() {
    stop_.store(true);
    thread_.join();
    for (const auto& [fd, buffer] : clients_) close(fd);
    close(listener_);
  }
  FakeRedis(const FakeRedis&) = delete;
  FakeRedis& operator=(const FakeRedis&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // Naming a user, as --redis must.
  std::string url() const { return "redis://lockstep-replay:pw@" + address(); }

 private:
  void Serve() {
    while (!stop_.load()) {
      std::vector<pollfd> fds = {{listener_, POLLIN, 0}};
      for (const auto& [fd, buffer] : clients_) fds.push_back({fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) clients_[fd];
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        char chunk[4096];
        const ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
        if (n <= 0) {
          close(fds[i].fd);
          clients_.erase(fds[i].fd);
          continue;
        }
        std::string& buffer = clients_[fds[i].fd];
        buffer.append(chunk, static_cast<size_t>(n));
        while (size_t used = CompleteCommand(buffer)) {
          const std::string name = CommandName(buffer);
          buffer.erase(0, used);
          // It refuses what the replay's user must not run (so that the
          // replay goes on), and says OK to the rest.
          const std::string reply = kProbes.count(name) != 0 ? "-NOPERM no permissions\r\n"
                                    : mode_ == Mode::kEmptyThenOk && name == "DBSIZE" ? ":0\r\n"
                                                                                      : "+OK\r\n";
          if (mode_ != Mode::kSilent &&
              write(fds[i].fd, reply.data(), reply.size()) != static_cast<ssize_t>(reply.size())) {
            break;
          }
        }
      }
    }
  }

  Mode mode_;
  int listener_ = -1;
  int port_ = 0;
  std::map<int, std::string> clients_;  // socket -> bytes not yet a command
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

const std::string kRace = testing::ScenarioPath("setnx-docs-race.json");

TEST_CASE(
    "replay --redis on a server that is empty and then answers +OK to everything is a failed "
    "replay (exit 4)",
    "[redis-replay]") {
  FakeRedis server(FakeRedis::Mode::kEmptyThenOk);
  auto r = RunLockstep({"replay", "--redis", server.url(), "--redis-flush", kRace});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 4);
  CHECK(r.out.find("DIFFERS") != std::string::npos);
  CHECK(r.out.find("mutual_exclusion not reproduced: the real replies differ from the trace at "
                   "step 1") != std::string::npos);
}

TEST_CASE(
    "replay --redis refuses +OK as the answer to DBSIZE, also after FLUSHDB: it does not say the "
    "database is empty",
    "[redis-replay]") {
  FakeRedis server(FakeRedis::Mode::kOkToEverything);
  for (const bool flush : {false, true}) {
    std::vector<std::string> args = {"replay", "--redis", server.url(), kRace};
    if (flush) args.push_back("--redis-flush");
    auto r = RunLockstep(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "lockstep: " + server.address() +
                       ": DBSIZE answered OK; expected an integer, as Redis answers\n");
    CHECK(r.out.empty());
  }
}

TEST_CASE("replay --redis on a server that never answers names it and the timeout",
          "[redis-replay]") {
  FakeRedis server(FakeRedis::Mode::kSilent);
  auto r = RunLockstep({"replay", "--redis", server.url(), kRace});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "lockstep: " + server.address() +
                     ": cannot connect to the Redis server: no reply to AUTH within 5000 ms\n");
}

}  // namespace
}  // namespace lockstep
