// The loopback TCP facts a process session relies on: a listener on a free
// port, and how far what lockstep sent has gone (a loopback segment is
// acknowledged once the peer's kernel holds it; one the peer's window has
// no room for waits, unsent, until the program reads).
#pragma once

#include <cstdint>

namespace lockstep::process {

// A non-blocking listener on 127.0.0.1 at a free port (*port). Throws
// std::runtime_error.
int Listen(int* port);

// An IPv4 address and port as one number: address << 16 | port (host order),
// how the shim names the connections it opens (ShimCall::kConnect).
uint64_t Endpoint(uint32_t address, uint16_t port);

struct SendQueue {
  int64_t queued = 0;  // handed to the kernel, not yet acknowledged
  int64_t unsent = 0;  // of which not yet sent: the peer's window is full
  bool ok = false;     // false: the socket is gone
};
SendQueue QueueOf(int fd);

// What the peer of connection `fd` (a loopback connection) has received and
// not yet read, from the kernel's socket table (sock_diag); -1 if unknown.
int64_t PeerUnread(int fd);

}  // namespace lockstep::process
