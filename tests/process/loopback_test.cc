// What the session learns of a loopback connection from the kernel: how
// much of what it sent is still queued, and what its peer has not read.
#include "sim/process/loopback.h"

#include <unistd.h>

#include <chrono>
#include <thread>

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <sys/socket.h>

namespace lockstep::process {
namespace {

TEST_CASE("the kernel says what a loopback peer has received and not read", "[process]") {
  int port = 0;
  const int listener = Listen(&port);
  const int peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(peer, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  int mine = -1;
  for (int i = 0; i < 1000 && mine < 0; ++i) {
    mine = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (mine < 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(mine >= 0);
  CHECK(PeerUnread(mine) == 0);
  REQUIRE(send(mine, "hello", 5, MSG_NOSIGNAL) == 5);
  SendQueue q = QueueOf(mine);
  for (int i = 0; i < 1000 && q.queued > 0; ++i, q = QueueOf(mine)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(q.ok);
  CHECK(q.queued == 0);
  CHECK(PeerUnread(mine) == 5);
  char buffer[8];
  REQUIRE(recv(peer, buffer, sizeof buffer, 0) == 5);
  CHECK(PeerUnread(mine) == 0);
  close(peer);
  close(mine);
  close(listener);
}

}  // namespace
}  // namespace lockstep::process
