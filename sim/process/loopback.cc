#include "sim/process/loopback.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

namespace lockstep::process {

int Listen(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    close(fd);
    throw std::runtime_error(std::string("cannot listen on loopback: ") + std::strerror(e));
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

uint64_t Endpoint(uint32_t address, uint16_t port) { return uint64_t{address} << 16 | port; }

SendQueue QueueOf(int fd) {
  SendQueue q;
  int queued = 0, unsent = 0;
  // A connection reset is closed with its queue never acknowledged.
  tcp_info info{};
  socklen_t len = sizeof info;
  q.ok = getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0 && info.tcpi_state != TCP_CLOSE &&
         ioctl(fd, SIOCOUTQ, &queued) == 0 && ioctl(fd, SIOCOUTQNSD, &unsent) == 0;
  q.queued = queued;
  q.unsent = unsent;
  return q;
}

int64_t PeerUnread(int fd) {
  sockaddr_in mine{}, peer{};
  socklen_t a = sizeof mine, b = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &a) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &b) != 0 || mine.sin_family != AF_INET) {
    return -1;
  }
  const int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return -1;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;  // one socket, by its addresses
  message.request.sdiag_family = AF_INET;
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0U;
  // The peer's socket: its source is the peer, its destination lockstep.
  message.request.id.idiag_sport = peer.sin_port;
  message.request.id.idiag_dport = mine.sin_port;
  message.request.id.idiag_src[0] = peer.sin_addr.s_addr;
  message.request.id.idiag_dst[0] = mine.sin_addr.s_addr;
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  int64_t unread = -1;
  alignas(nlmsghdr) char reply[8192];
  if (send(nl, &message, sizeof message, 0) == static_cast<ssize_t>(sizeof message)) {
    const ssize_t n = recv(nl, reply, sizeof reply, 0);
    const auto* h = reinterpret_cast<const nlmsghdr*>(reply);
    if (n >= static_cast<ssize_t>(sizeof(nlmsghdr)) && NLMSG_OK(h, static_cast<size_t>(n)) &&
        h->nlmsg_type == SOCK_DIAG_BY_FAMILY &&
        h->nlmsg_len >= NLMSG_LENGTH(sizeof(inet_diag_msg))) {
      unread = static_cast<const inet_diag_msg*>(NLMSG_DATA(h))->idiag_rqueue;
    }
  }
  close(nl);
  return unread;
}

}  // namespace lockstep::process
