// liblockstep_client.so: a process that lockstep runs as a client reads its
// clock from lockstep, sleeps on it, and draws randomness from the run's
// seed (sim/process/shim_protocol.h says how the two talk).
//
// Covered here: clock_gettime (every clock but the CPU-time ones),
// gettimeofday, time; nanosleep, clock_nanosleep, usleep, sleep; the
// timeouts of poll, ppoll, select, pselect, epoll_wait and epoll_pwait, and
// a recv that would block, which become waits lockstep answers when the
// process has something to read or its time has come. client_identity.cc
// covers randomness and the process id. Only the main thread speaks to
// lockstep; the process's own threads read the main thread's clock and
// sleep in real time. Not covered: static binaries (nothing is preloaded),
// raw system calls, the vDSO called directly, a blocking read() of a
// socket, and any program the process starts or child it forks (a program
// it becomes by execve keeps the shim: client_exec.cc). The automaton's
// determinism check names a client whose behaviour escapes these.
#include "sim/clock_shim/client_shim.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "sim/process/shim_protocol.h"

namespace lockstep::client_shim {
namespace {

namespace lp = lockstep::process;

bool g_active = false;
int g_control = -1;
int g_real_pid = 0;
const lp::ClockPage* g_clock = nullptr;
// The program has read its clock since lockstep last resumed it (and
// lockstep observed that read).
bool g_observed = false;

using PollFn = int (*)(pollfd*, nfds_t, int);
using PpollFn = int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*);
using SelectFn = int (*)(int, fd_set*, fd_set*, fd_set*, timeval*);
using PselectFn = int (*)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*);
using EpollWaitFn = int (*)(int, epoll_event*, int, int);
using EpollPwaitFn = int (*)(int, epoll_event*, int, int, const sigset_t*);
using ConnectFn = int (*)(int, const sockaddr*, socklen_t);
using RecvFn = ssize_t (*)(int, void*, size_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*);
PollFn real_poll;
PpollFn real_ppoll;
SelectFn real_select;
PselectFn real_pselect;
EpollWaitFn real_epoll_wait;
EpollPwaitFn real_epoll_pwait;
ConnectFn real_connect;
RecvFn real_recv;
RecvfromFn real_recvfrom;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "liblockstep_client: %s\n", what);
  _exit(70);
}

template <class F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

__attribute__((constructor)) void Attach() {
  real_poll = Next<PollFn>("poll");
  real_ppoll = Next<PpollFn>("ppoll");
  real_select = Next<SelectFn>("select");
  real_pselect = Next<PselectFn>("pselect");
  real_epoll_wait = Next<EpollWaitFn>("epoll_wait");
  real_epoll_pwait = Next<EpollPwaitFn>("epoll_pwait");
  real_connect = Next<ConnectFn>("connect");
  real_recv = Next<RecvFn>("recv");
  real_recvfrom = Next<RecvfromFn>("recvfrom");
  // Whatever ends lockstep ends the client too, and what it starts (which
  // inherits the preload): each dies with its parent.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* env = FindInEnviron(lp::kShimEnv);
  if (env == nullptr) return;  // a program the client started: its clock is its own
  int control = -1, clock = -1;
  unsigned long long seed = 0;
  char mode[8] = "";
  const int fields = std::sscanf(env, "%d %d %llu %7s", &control, &clock, &seed, mode);
  if (fields < 3 || (fields == 4 && std::strcmp(mode, lp::kShimExeced) != 0)) {
    Die("LOCKSTEP_SHIM is malformed");
  }
  RemoveFromEnviron(lp::kShimEnv);
  void* page = mmap(nullptr, sizeof(lp::ClockPage), PROT_READ, MAP_SHARED, clock, 0);
  if (page == MAP_FAILED) Die("cannot map the clock page");
  // Neither descriptor is the business of a program the client starts;
  // both are kept for one it becomes (client_exec.cc).
  fcntl(control, F_SETFD, FD_CLOEXEC);
  fcntl(clock, F_SETFD, FD_CLOEXEC);
  g_clock = static_cast<const lp::ClockPage*>(page);
  SeedRandom(seed);
  g_control = control;
  g_real_pid = static_cast<int>(syscall(SYS_getpid));
  KeepForExec(control, clock, seed, FindInEnviron("LD_PRELOAD"));
  g_active = true;
  // A child it forks is not the client lockstep serves: it runs on its own.
  pthread_atfork(nullptr, nullptr, [] { g_active = false; });
  // A program the client became by execve: lockstep heard from it already.
  if (fields == 4) return;
  const lp::ShimMessage hello{static_cast<uint32_t>(lp::ShimCall::kHello), 0, 0};
  if (write(g_control, &hello, sizeof hello) != sizeof hello) Die("lockstep is gone");
}

// The clock as lockstep last set it, for the shim's own reckoning.
int64_t PageNanos() { return __atomic_load_n(&g_clock->nanos, __ATOMIC_ACQUIRE); }

// The main thread's TCP connections, below 1024 (lockstep's among them).
constexpr int kTrackedFds = 1024;
uint64_t g_connections[kTrackedFds / 64];

// What the process has sent is delivered, so that lockstep, answered next,
// reads every command sent before the wait whatever the machine's load: a
// loopback send is acknowledged once the peer has it.
void Flush() {
  for (int word = 0; word < kTrackedFds / 64; ++word) {
    for (uint64_t bits = g_connections[word]; bits != 0; bits &= bits - 1) {
      const int fd = word * 64 + __builtin_ctzll(bits);
      // Replies lockstep sends next are acknowledged at once (not the
      // delayed acknowledgement of request-reply traffic), so that its
      // check that they arrived returns at once.
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
      int unacked = 0;
      // Bounded: a peer that never acknowledges is not lockstep's.
      for (int tries = 0; tries < 100'000; ++tries) {
        if (ioctl(fd, SIOCOUTQ, &unacked) != 0 || unacked == 0) break;
        sched_yield();
      }
    }
  }
}

// Before the main thread says it waits: its own threads finish what they
// are doing, in real time, and if that made its input ready it need not
// wait. Returns `ready()`'s result, 0 if still nothing is ready.
template <class Ready>
int SettleOwnThreads(Ready ready) {
  for (;;) {
    // Idle first: what a thread made ready before it slept is seen next.
    const bool idle = OwnThreadsIdle(g_real_pid);
    const int r = ready();
    if (r != 0 || idle) return r;
    sched_yield();
  }
}

// Tells lockstep, and waits for its answer. REQUIRES: OnMainThread().
char Ask(lp::ShimCall call, int64_t nanos) {
  if (call != lp::ShimCall::kClock) Flush();
  const lp::ShimMessage m{static_cast<uint32_t>(call), 0, nanos};
  if (write(g_control, &m, sizeof m) != sizeof m) Die("lockstep is gone");
  char answer = 0;
  for (;;) {
    const ssize_t n = read(g_control, &answer, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    Die("lockstep is gone");
  }
  // Resumed: steps may have run, and the next read is a new observation.
  if (call != lp::ShimCall::kClock) g_observed = false;
  return answer;
}

// The clock as the program reads it: lockstep observes the first read after
// each resumption (a state holds the clock only where the code read it).
int64_t ProgramNanos() {
  if (!g_observed && OnMainThread()) {
    Ask(lp::ShimCall::kClock, 0);
    g_observed = true;
  }
  return PageNanos();
}

// Whether the call is lockstep's to serve.
bool Served() { return g_active && OnMainThread(); }

int RealSleep(int64_t nanos) {
  if (nanos <= 0) return 0;
  const timespec t{static_cast<time_t>(nanos / 1'000'000'000),
                   static_cast<long>(nanos % 1'000'000'000)};
  return static_cast<int>(syscall(SYS_nanosleep, &t, nullptr));
}

void Sleep(int64_t nanos) {
  if (nanos <= 0) return;
  SettleOwnThreads([] { return 0; });
  Ask(lp::ShimCall::kSleep, nanos);
}

bool IsCpuClock(clockid_t id) {
  return id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0;
}

int64_t ToNanos(const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

// A wait for input that found none. `timeout_nanos` < 0: for ever. Calls
// `ready()` (the real call with no timeout) after each answer; returns
// its result once it is not 0, or 0 when the time has come.
template <class Ready>
int Wait(int64_t timeout_nanos, Ready ready) {
  const int64_t deadline = timeout_nanos < 0 ? -1 : PageNanos() + timeout_nanos;
  for (;;) {
    const int64_t left = deadline < 0 ? -1 : deadline - PageNanos();
    if (deadline >= 0 && left <= 0) return 0;
    if (const int r = SettleOwnThreads(ready); r != 0) return r;
    const char answer = Ask(lp::ShimCall::kWait, left);
    const int r = ready();
    if (r != 0 || answer == lp::kWoke) return r;
  }
}

// Tells lockstep the local end of TCP connection `fd` (ShimCall::kConnect).
// Unanswered, so any thread may: a message this small is written whole.
void NameConnection(int fd) {
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return;
  uint32_t address = 0;
  uint16_t port = 0;
  if (local.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&local);
    address = ntohl(v4->sin_addr.s_addr);
    port = ntohs(v4->sin_port);
  } else if (local.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&local);
    if (!IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) return;  // lockstep listens on IPv4
    std::memcpy(&address, &v6->sin6_addr.s6_addr[12], 4);
    address = ntohl(address);
    port = ntohs(v6->sin6_port);
  } else {
    return;
  }
  const lp::ShimMessage m{static_cast<uint32_t>(lp::ShimCall::kConnect), 0,
                          static_cast<int64_t>(uint64_t{address} << 16 | port)};
  if (write(g_control, &m, sizeof m) != sizeof m) Die("lockstep is gone");
}

int64_t MillisToNanos(int ms) { return ms < 0 ? -1 : int64_t{ms} * 1'000'000; }
int64_t SpecToNanos(const timespec* t) { return t == nullptr ? -1 : ToNanos(*t); }
int64_t ValToNanos(const timeval* t) {
  return t == nullptr ? -1 : int64_t{t->tv_sec} * 1'000'000'000 + int64_t{t->tv_usec} * 1000;
}

bool WouldBlock(int fd, int flags) {
  if ((flags & MSG_DONTWAIT) != 0) return false;
  const int fl = fcntl(fd, F_GETFL);
  return fl >= 0 && (fl & O_NONBLOCK) == 0;
}

}  // namespace

bool Active() { return g_active; }

bool OnMainThread() {
  // Cached per thread; a forked child is inactive, so its copy never counts.
  static thread_local int on_main = -1;
  if (on_main < 0) on_main = syscall(SYS_gettid) == g_real_pid ? 1 : 0;
  return on_main == 1;
}

int RealPid() { return g_real_pid; }

void ForgetConnection(int fd) {
  if (fd >= 0 && fd < kTrackedFds) g_connections[fd / 64] &= ~(uint64_t{1} << (fd % 64));
}

}  // namespace lockstep::client_shim

namespace cs = lockstep::client_shim;

extern "C" {

int clock_gettime(clockid_t id, struct timespec* ts) {
  if (!cs::g_active || cs::IsCpuClock(id))
    return static_cast<int>(syscall(SYS_clock_gettime, id, ts));
  const int64_t ns = cs::ProgramNanos();
  ts->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts->tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return 0;
}

int gettimeofday(struct timeval* tv, void* tz) {
  if (!cs::g_active) return static_cast<int>(syscall(SYS_gettimeofday, tv, tz));
  // glibc declares tv non-null; a caller may pass null all the same.
  struct timeval* volatile out = tv;
  if (out != nullptr) {
    const int64_t ns = cs::ProgramNanos();
    out->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    out->tv_usec = static_cast<suseconds_t>(ns % 1'000'000'000 / 1000);
  }
  return 0;
}

time_t time(time_t* out) {
  const time_t t = cs::g_active ? static_cast<time_t>(cs::ProgramNanos() / 1'000'000'000)
                                : static_cast<time_t>(syscall(SYS_time, nullptr));
  if (out != nullptr) *out = t;
  return t;
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec* req, struct timespec* rem) {
  if (!cs::g_active || cs::IsCpuClock(id)) {
    return static_cast<int>(syscall(SYS_clock_nanosleep, id, flags, req, rem)) < 0 ? errno : 0;
  }
  const int64_t nanos =
      (flags & TIMER_ABSTIME) != 0 ? cs::ToNanos(*req) - cs::PageNanos() : cs::ToNanos(*req);
  if (!cs::OnMainThread()) return cs::RealSleep(nanos) < 0 ? errno : 0;
  cs::Sleep(nanos);
  return 0;
}

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (!cs::Served()) return static_cast<int>(syscall(SYS_nanosleep, req, rem));
  cs::Sleep(cs::ToNanos(*req));
  return 0;
}

int usleep(useconds_t us) {
  const timespec t{static_cast<time_t>(us / 1'000'000), static_cast<long>(us % 1'000'000) * 1000};
  return nanosleep(&t, nullptr);
}

unsigned int sleep(unsigned int seconds) {
  const timespec t{static_cast<time_t>(seconds), 0};
  nanosleep(&t, nullptr);
  return 0;
}

int poll(struct pollfd* fds, nfds_t n, int timeout) {
  if (!cs::Served()) return cs::real_poll(fds, n, timeout);
  const int r = cs::real_poll(fds, n, 0);
  if (r != 0 || timeout == 0) return r;
  return cs::Wait(cs::MillisToNanos(timeout), [&] { return cs::real_poll(fds, n, 0); });
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  static const timespec kZero{0, 0};
  if (!cs::Served()) return cs::real_ppoll(fds, n, timeout, mask);
  const int r = cs::real_ppoll(fds, n, &kZero, mask);
  if (r != 0 || (timeout != nullptr && cs::ToNanos(*timeout) == 0)) return r;
  return cs::Wait(cs::SpecToNanos(timeout), [&] { return cs::real_ppoll(fds, n, &kZero, mask); });
}

int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  if (!cs::Served()) return cs::real_select(n, r, w, e, timeout);
  fd_set r0, w0, e0;  // select changes its sets: each try starts from these
  if (r) r0 = *r;
  if (w) w0 = *w;
  if (e) e0 = *e;
  auto ready = [&] {
    if (r) *r = r0;
    if (w) *w = w0;
    if (e) *e = e0;
    timeval zero{0, 0};
    return cs::real_select(n, r, w, e, &zero);
  };
  const int got = ready();
  if (got != 0 || (timeout != nullptr && cs::ValToNanos(timeout) == 0)) return got;
  return cs::Wait(cs::ValToNanos(timeout), ready);
}

int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout,
            const sigset_t* mask) {
  if (!cs::Served()) return cs::real_pselect(n, r, w, e, timeout, mask);
  fd_set r0, w0, e0;
  if (r) r0 = *r;
  if (w) w0 = *w;
  if (e) e0 = *e;
  auto ready = [&] {
    if (r) *r = r0;
    if (w) *w = w0;
    if (e) *e = e0;
    const timespec zero{0, 0};
    return cs::real_pselect(n, r, w, e, &zero, mask);
  };
  const int got = ready();
  if (got != 0 || (timeout != nullptr && cs::ToNanos(*timeout) == 0)) return got;
  return cs::Wait(cs::SpecToNanos(timeout), ready);
}

int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  if (!cs::Served()) return cs::real_epoll_wait(epfd, events, max, timeout);
  const int r = cs::real_epoll_wait(epfd, events, max, 0);
  if (r != 0 || timeout == 0) return r;
  return cs::Wait(cs::MillisToNanos(timeout),
                  [&] { return cs::real_epoll_wait(epfd, events, max, 0); });
}

int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  if (!cs::Served()) return cs::real_epoll_pwait(epfd, events, max, timeout, mask);
  const int r = cs::real_epoll_pwait(epfd, events, max, 0, mask);
  if (r != 0 || timeout == 0) return r;
  return cs::Wait(cs::MillisToNanos(timeout),
                  [&] { return cs::real_epoll_pwait(epfd, events, max, 0, mask); });
}

// A connection to lockstep is named to it before connect returns (it serves
// only those, from any thread), and made at once: the program's next wait
// must not depend on how fast the handshake went.
int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  const int r = cs::real_connect(fd, addr, len);
  if (!cs::g_active || addr == nullptr ||
      (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)) {
    return r;
  }
  const int saved = errno;
  int type = 0;
  socklen_t type_len = sizeof type;
  const bool stream =
      getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_len) == 0 && type == SOCK_STREAM;
  if (stream && (r == 0 || saved == EINPROGRESS)) cs::NameConnection(fd);
  errno = saved;
  if (!stream || !cs::OnMainThread()) return r;
  if (fd < cs::kTrackedFds) cs::g_connections[fd / 64] |= uint64_t{1} << (fd % 64);
  if (r < 0 && errno == EINPROGRESS) {
    pollfd out{fd, POLLOUT, 0};
    while (cs::real_poll(&out, 1, 10'000) < 0 && errno == EINTR) {
    }
    errno = EINPROGRESS;  // as the program expects: it learns the outcome as it would
  }
  return r;
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  if (!cs::Served() || !cs::WouldBlock(fd, flags)) return cs::real_recv(fd, buf, len, flags);
  for (;;) {
    const ssize_t n = cs::real_recv(fd, buf, len, flags | MSG_DONTWAIT);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    cs::SettleOwnThreads([] { return 0; });
    cs::Ask(lockstep::process::ShimCall::kWait, -1);
  }
}

ssize_t recvfrom(int fd, void* buf, size_t len, int flags, struct sockaddr* from,
                 socklen_t* from_len) {
  if (!cs::Served() || !cs::WouldBlock(fd, flags))
    return cs::real_recvfrom(fd, buf, len, flags, from, from_len);
  for (;;) {
    const ssize_t n = cs::real_recvfrom(fd, buf, len, flags | MSG_DONTWAIT, from, from_len);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    cs::SettleOwnThreads([] { return 0; });
    cs::Ask(lockstep::process::ShimCall::kWait, -1);
  }
}

}  // extern "C"
