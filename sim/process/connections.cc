#include "sim/process/connections.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "sim/process/loopback.h"
#include "sim/process/system_error.h"
#include "sim/world/client.h"
#include "sim/world/fiber_stack.h"

namespace lockstep::process {
namespace {

// epoll's tag of a listener; a connection's is its index.
constexpr uint64_t kListener = uint64_t{1} << 62;
// Accepted connections nobody named, held unread at most.
constexpr size_t kMaxHeld = 16;

void Watch(int epoll, int fd, uint64_t tag) {
  epoll_event e{};
  e.events = EPOLLIN;
  e.data.u64 = tag;
  if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e) != 0) SystemError("epoll_ctl");
}

// A spin that yields, then sleeps a little: acknowledgements on loopback
// come at once, or after the peer's delayed acknowledgement (40 ms).
void Backoff(int* spins) {
  if ((*spins)++ < 1000) {
    sched_yield();
    return;
  }
  const timespec t{0, 50'000};
  nanosleep(&t, nullptr);
}

}  // namespace

Connections::Connections(int instances, std::string who, std::function<void()> silent)
    : who_(std::move(who)), silent_(std::move(silent)) {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0) SystemError("epoll_create1");
  spare_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  try {
    for (int i = 0; i < instances; ++i) {
      int port = 0;
      listeners_.push_back(Listen(&port));
      ports_.push_back(port);
      Watch(epoll_, listeners_.back(), kListener | static_cast<uint64_t>(i));
    }
  } catch (...) {
    for (int fd : listeners_) close(fd);
    close(epoll_);
    if (spare_ >= 0) close(spare_);
    throw;
  }
}

Connections::~Connections() {
  for (const Connection& c : connections_) {
    if (c.fd >= 0) close(c.fd);
  }
  for (const auto& [endpoint, held] : held_) close(held.fd);
  for (int fd : listeners_) close(fd);
  close(epoll_);
  if (spare_ >= 0) close(spare_);
}

void Connections::Named(uint64_t endpoint) {
  const size_t index = connections_.size();
  connections_.emplace_back();
  connections_.back().state.id = static_cast<int64_t>(index) + 1;
  auto held = held_.find(endpoint);
  if (held == held_.end()) {
    named_[endpoint] = index;
    return;
  }
  const Held h = held->second;
  held_.erase(held);
  std::erase(held_order_, endpoint);
  Admit(index, h.fd, h.instance);
}

void Connections::Accept(size_t listener) {
  for (;;) {
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    const int fd = accept4(listeners_[listener], reinterpret_cast<sockaddr*>(&peer), &len,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE) {
        const int e = errno;
        if (spare_ >= 0) close(spare_);
        spare_ = -1;
        world::ForgetUnwoundFrames();  // the throw runs where stale shadow may be
        errno = e;
        throw world::RuleBroken(
            who_ + " opened more connections than lockstep can hold open (" + std::strerror(errno) +
            "): does it close the ones it no longer uses? (ulimit -n raises the limit)");
      }
      return;  // none left (EAGAIN), or one that failed on the way
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    const uint64_t endpoint = Endpoint(ntohl(peer.sin_addr.s_addr), ntohs(peer.sin_port));
    auto named = named_.find(endpoint);
    if (named != named_.end()) {
      const size_t index = named->second;
      named_.erase(named);
      Admit(index, fd, static_cast<int>(listener));
      continue;
    }
    // Not (yet) named by the program: held unread, the oldest let go.
    if (held_.count(endpoint) != 0 || held_.size() >= kMaxHeld) {
      const uint64_t oldest = held_.count(endpoint) != 0 ? endpoint : held_order_.front();
      close(held_[oldest].fd);
      held_.erase(oldest);
      std::erase(held_order_, oldest);
    }
    held_[endpoint] = Held{fd, static_cast<int>(listener)};
    held_order_.push_back(endpoint);
  }
}

void Connections::Admit(size_t index, int fd, int instance) {
  Connection& c = connections_[index];
  c.fd = fd;
  c.instance = instance;
  Watch(epoll_, fd, index);
  Read(index);  // what it sent before it was admitted
}

void Connections::Read(size_t index) {
  Connection& c = connections_[index];
  if (c.fd < 0) return;
  char buffer[65536];
  // What the program sends next is acknowledged at once, so that its
  // shim's check that it arrived (shim_protocol.h) returns at once.
  const int one = 1;
  setsockopt(c.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
  for (;;) {
    const ssize_t n = recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n > 0) {
      if (c.done) continue;  // after QUIT or a protocol error: dropped
      c.in.append(buffer, static_cast<size_t>(n));
      if (c.in.size() > kMaxPendingBytes) {
        throw world::RuleBroken(who_ + " sent more than " + std::to_string(kMaxPendingBytes >> 20) +
                                " MiB that is not a whole command");
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    // Closed by the program (or broken): closed here too, as Redis does,
    // the end delivered before the program is let go again.
    if (!c.closing) closed_ = true;
    c.done = c.closing = true;
    c.out.clear();
    c.out_at = 0;
    if (!c.shut) shutdown(c.fd, SHUT_WR);
    c.shut = true;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
    writing_.insert(index);
    break;
  }
  while (!c.done) {
    std::optional<ParsedCommand> parsed = process::TakeCommand(c.in);
    if (!parsed) break;
    if (parsed->argv.empty() && parsed->error.empty()) continue;  // an empty line
    c.done = !parsed->error.empty();  // nothing after a protocol error runs
    c.parsed.push_back(std::move(*parsed));
  }
  if (!c.parsed.empty()) ready_.insert(index);
}

void Connections::ReadAll() {
  std::vector<epoll_event>& events = events_;  // on the heap (process_session.cc says why)
  for (;;) {
    const int n = epoll_wait(epoll_, events.data(), 256, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) SystemError("epoll_wait");
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if ((tag & kListener) != 0) {
        Accept(static_cast<size_t>(tag & ~kListener));
      } else {
        Read(static_cast<size_t>(tag));
      }
    }
    if (n < 256) return;
  }
}

std::optional<Connections::Command> Connections::TakeCommand() {
  ReadAll();
  if (ready_.empty()) return std::nullopt;
  const size_t index = *ready_.begin();
  Connection& c = connections_[index];
  ParsedCommand p = std::move(c.parsed.front());
  c.parsed.pop_front();
  if (c.parsed.empty()) ready_.erase(index);
  return Command{static_cast<int>(index), c.instance, std::move(p.argv), std::move(p.error)};
}

bool Connections::HasCommand() {
  ReadAll();
  return !ready_.empty();
}

bool Connections::TakeClosed() {
  ReadAll();
  return std::exchange(closed_, false);
}

void Connections::Write(int index, const std::string& bytes, bool close_after) {
  Connection& c = connections_[static_cast<size_t>(index)];
  if (c.fd < 0 || c.shut) return;
  if (c.out_at > 0 && c.out_at * 2 > c.out.size()) {
    c.out.erase(0, c.out_at);
    c.out_at = 0;
  }
  c.out += bytes;
  if (close_after) {
    c.done = c.closing = true;
    c.in.clear();
    c.parsed.clear();
    ready_.erase(static_cast<size_t>(index));
  }
  writing_.insert(static_cast<size_t>(index));
  Push(static_cast<size_t>(index));
}

void Connections::Push(size_t index) {
  Connection& c = connections_[index];
  while (c.fd >= 0 && c.out_at < c.out.size()) {
    const ssize_t n =
        send(c.fd, c.out.data() + c.out_at, c.out.size() - c.out_at, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out_at += static_cast<size_t>(n);
      c.sent += n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;  // the rest at the program's next wait
    } else {
      c.out_at = c.out.size();  // the program closed it: it reads no more replies there
    }
  }
  c.out.clear();
  c.out_at = 0;
  if (c.fd >= 0 && c.closing && !c.shut) {
    shutdown(c.fd, SHUT_WR);
    c.shut = true;
  }
}

int64_t Connections::Reached(const Connection& c) const {
  const SendQueue q = c.fd >= 0 ? QueueOf(c.fd) : SendQueue{};
  return q.ok ? c.sent - q.queued : c.sent;
}

bool Connections::Settled(const Deadline& deadline, bool mark) {
  bool progressed = false;
  for (auto it = writing_.begin(); it != writing_.end();) {
    Connection& c = connections_[*it];
    if (c.fd < 0) {
      it = writing_.erase(it);
      continue;
    }
    Push(*it);
    // What was sent is acknowledged, but for what waits for room.
    SendQueue q = QueueOf(c.fd);
    for (int spins = 0; q.ok && q.queued > q.unsent; q = QueueOf(c.fd)) {
      if (deadline.Passed()) silent_();
      if ((spins & 1023) == 1023) HeedStop();
      Backoff(&spins);
    }
    const int64_t reached = q.ok ? c.sent - q.queued : c.sent;
    progressed |= reached > c.reached_at_resume;
    if (mark) c.reached_at_resume = reached;
    if ((!q.ok || q.queued == 0) && c.out.empty()) {
      if (c.closing) Close(*it);
      it = writing_.erase(it);
    } else {
      ++it;
    }
  }
  return progressed;
}

bool Connections::Progressed(const Deadline& deadline) {
  if (Settled(deadline, false)) return true;
  // A reply still waits for room, and the program has read all it had:
  // the room its reading made comes (the kernel's window update), and
  // with it the rest.
  for (size_t index : writing_) {
    Connection& c = connections_[index];
    if (c.fd < 0 || PeerUnread(c.fd) != 0) continue;
    for (int spins = 0; Reached(c) <= c.reached_at_resume; Push(index)) {
      if (deadline.Passed()) silent_();
      if ((spins & 1023) == 1023) HeedStop();
      Backoff(&spins);
    }
    return true;
  }
  return false;
}

void Connections::Close(size_t index) {
  Connection& c = connections_[index];
  // What it sent after is read first: a close with unread input would
  // reset the connection, and the program could lose the last reply.
  char buffer[4096];
  while (recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT) > 0) {
  }
  epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
  close(c.fd);
  c.fd = -1;
}

}  // namespace lockstep::process
