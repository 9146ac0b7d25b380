// liblockstep_client.so: a process that lockstep runs as a client reads its
// clock from lockstep, sleeps on it, and draws randomness from the run's
// seed (sim/process/shim_protocol.h says how the two talk).
//
// Covered: clock_gettime (every clock but the CPU-time ones), gettimeofday,
// time; nanosleep, clock_nanosleep, usleep, sleep; the timeouts of poll,
// ppoll, select, pselect, epoll_wait and epoll_pwait, and a recv that would
// block, which become waits lockstep answers when the process has something
// to read or its time has come; getrandom, getentropy and libuuid's
// uuid_generate family. Not covered: static binaries (nothing is
// preloaded), raw system calls, the vDSO called directly, reads of
// /dev/urandom, a blocking read() of a socket, threads of the process's
// own, and any program the process starts. The automaton's determinism
// check names a client whose behaviour escapes these.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "sim/process/shim_protocol.h"

namespace {

namespace lp = lockstep::process;

bool g_active = false;
int g_control = -1;
const lp::ClockPage* g_clock = nullptr;
uint64_t g_random = 0;  // splitmix64 state

using PollFn = int (*)(pollfd*, nfds_t, int);
using PpollFn = int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*);
using SelectFn = int (*)(int, fd_set*, fd_set*, fd_set*, timeval*);
using PselectFn = int (*)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*);
using EpollWaitFn = int (*)(int, epoll_event*, int, int);
using EpollPwaitFn = int (*)(int, epoll_event*, int, int, const sigset_t*);
using RecvFn = ssize_t (*)(int, void*, size_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*);
PollFn real_poll;
PpollFn real_ppoll;
SelectFn real_select;
PselectFn real_pselect;
EpollWaitFn real_epoll_wait;
EpollPwaitFn real_epoll_pwait;
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
  real_recv = Next<RecvFn>("recv");
  real_recvfrom = Next<RecvfromFn>("recvfrom");
  // Whatever ends lockstep ends the client too, and what it starts (which
  // inherits the preload): each dies with its parent.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* env = std::getenv(lp::kShimEnv);
  if (env == nullptr) return;  // a program the client started: its clock is its own
  int control = -1, clock = -1;
  unsigned long long seed = 0;
  if (std::sscanf(env, "%d %d %llu", &control, &clock, &seed) != 3) {
    Die("LOCKSTEP_SHIM is malformed");
  }
  unsetenv(lp::kShimEnv);
  void* page = mmap(nullptr, sizeof(lp::ClockPage), PROT_READ, MAP_SHARED, clock, 0);
  if (page == MAP_FAILED) Die("cannot map the clock page");
  g_clock = static_cast<const lp::ClockPage*>(page);
  g_random = seed;
  g_control = control;
  g_active = true;
  const lp::ShimMessage hello{static_cast<uint32_t>(lp::ShimCall::kHello), 0, 0};
  if (write(g_control, &hello, sizeof hello) != sizeof hello) Die("lockstep is gone");
}

int64_t NowNanos() { return __atomic_load_n(&g_clock->nanos, __ATOMIC_ACQUIRE); }

// Tells lockstep, and waits for its answer.
char Ask(lp::ShimCall call, int64_t nanos) {
  const lp::ShimMessage m{static_cast<uint32_t>(call), 0, nanos};
  if (write(g_control, &m, sizeof m) != sizeof m) Die("lockstep is gone");
  char answer = 0;
  for (;;) {
    const ssize_t n = read(g_control, &answer, 1);
    if (n == 1) return answer;
    if (n < 0 && errno == EINTR) continue;
    Die("lockstep is gone");
  }
}

void Sleep(int64_t nanos) {
  if (nanos > 0) Ask(lp::ShimCall::kSleep, nanos);
}

bool IsCpuClock(clockid_t id) {
  return id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0;
}

int64_t ToNanos(const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

uint64_t NextRandom() {
  uint64_t z = (g_random += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void FillRandom(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t v = NextRandom();
    std::memcpy(p + i, &v, n - i < 8 ? n - i : 8);
  }
}

// A wait for input that found none. `timeout_ms` < 0: for ever. Calls
// `ready()` (the real call with no timeout) after each answer; returns
// its result once it is not 0, or 0 when the time has come.
template <class Ready>
int Wait(int64_t timeout_nanos, Ready ready) {
  const int64_t deadline = timeout_nanos < 0 ? -1 : NowNanos() + timeout_nanos;
  for (;;) {
    const int64_t left = deadline < 0 ? -1 : deadline - NowNanos();
    if (deadline >= 0 && left <= 0) return 0;
    const char answer = Ask(lp::ShimCall::kWait, left);
    const int r = ready();
    if (r != 0 || answer == lp::kWoke) return r;
  }
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

extern "C" {

int clock_gettime(clockid_t id, struct timespec* ts) {
  if (!g_active || IsCpuClock(id)) return static_cast<int>(syscall(SYS_clock_gettime, id, ts));
  const int64_t ns = NowNanos();
  ts->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts->tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return 0;
}

int gettimeofday(struct timeval* tv, void* tz) {
  if (!g_active) return static_cast<int>(syscall(SYS_gettimeofday, tv, tz));
  // glibc declares tv non-null; a caller may pass null all the same.
  struct timeval* volatile out = tv;
  if (out != nullptr) {
    const int64_t ns = NowNanos();
    out->tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    out->tv_usec = static_cast<suseconds_t>(ns % 1'000'000'000 / 1000);
  }
  return 0;
}

time_t time(time_t* out) {
  const time_t t = g_active ? static_cast<time_t>(NowNanos() / 1'000'000'000)
                            : static_cast<time_t>(syscall(SYS_time, nullptr));
  if (out != nullptr) *out = t;
  return t;
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec* req, struct timespec* rem) {
  if (!g_active || IsCpuClock(id)) {
    return static_cast<int>(syscall(SYS_clock_nanosleep, id, flags, req, rem)) < 0 ? errno : 0;
  }
  Sleep((flags & TIMER_ABSTIME) != 0 ? ToNanos(*req) - NowNanos() : ToNanos(*req));
  return 0;
}

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (!g_active) return static_cast<int>(syscall(SYS_nanosleep, req, rem));
  Sleep(ToNanos(*req));
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
  if (!g_active) return real_poll(fds, n, timeout);
  const int r = real_poll(fds, n, 0);
  if (r != 0 || timeout == 0) return r;
  return Wait(MillisToNanos(timeout), [&] { return real_poll(fds, n, 0); });
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  static const timespec kZero{0, 0};
  if (!g_active) return real_ppoll(fds, n, timeout, mask);
  const int r = real_ppoll(fds, n, &kZero, mask);
  if (r != 0 || (timeout != nullptr && ToNanos(*timeout) == 0)) return r;
  return Wait(SpecToNanos(timeout), [&] { return real_ppoll(fds, n, &kZero, mask); });
}

int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  if (!g_active) return real_select(n, r, w, e, timeout);
  fd_set r0, w0, e0;  // select changes its sets: each try starts from these
  if (r) r0 = *r;
  if (w) w0 = *w;
  if (e) e0 = *e;
  auto ready = [&] {
    if (r) *r = r0;
    if (w) *w = w0;
    if (e) *e = e0;
    timeval zero{0, 0};
    return real_select(n, r, w, e, &zero);
  };
  const int got = ready();
  if (got != 0 || (timeout != nullptr && ValToNanos(timeout) == 0)) return got;
  return Wait(ValToNanos(timeout), ready);
}

int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout,
            const sigset_t* mask) {
  if (!g_active) return real_pselect(n, r, w, e, timeout, mask);
  fd_set r0, w0, e0;
  if (r) r0 = *r;
  if (w) w0 = *w;
  if (e) e0 = *e;
  auto ready = [&] {
    if (r) *r = r0;
    if (w) *w = w0;
    if (e) *e = e0;
    const timespec zero{0, 0};
    return real_pselect(n, r, w, e, &zero, mask);
  };
  const int got = ready();
  if (got != 0 || (timeout != nullptr && ToNanos(*timeout) == 0)) return got;
  return Wait(SpecToNanos(timeout), ready);
}

int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  if (!g_active) return real_epoll_wait(epfd, events, max, timeout);
  const int r = real_epoll_wait(epfd, events, max, 0);
  if (r != 0 || timeout == 0) return r;
  return Wait(MillisToNanos(timeout), [&] { return real_epoll_wait(epfd, events, max, 0); });
}

int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  if (!g_active) return real_epoll_pwait(epfd, events, max, timeout, mask);
  const int r = real_epoll_pwait(epfd, events, max, 0, mask);
  if (r != 0 || timeout == 0) return r;
  return Wait(MillisToNanos(timeout), [&] { return real_epoll_pwait(epfd, events, max, 0, mask); });
}

ssize_t recv(int fd, void* buf, size_t len, int flags) {
  if (!g_active || !WouldBlock(fd, flags)) return real_recv(fd, buf, len, flags);
  for (;;) {
    const ssize_t n = real_recv(fd, buf, len, flags | MSG_DONTWAIT);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    Ask(lp::ShimCall::kWait, -1);
  }
}

ssize_t recvfrom(int fd, void* buf, size_t len, int flags, struct sockaddr* from,
                 socklen_t* from_len) {
  if (!g_active || !WouldBlock(fd, flags))
    return real_recvfrom(fd, buf, len, flags, from, from_len);
  for (;;) {
    const ssize_t n = real_recvfrom(fd, buf, len, flags | MSG_DONTWAIT, from, from_len);
    if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return n;
    Ask(lp::ShimCall::kWait, -1);
  }
}

ssize_t getrandom(void* buf, size_t len, unsigned int flags) {
  if (!g_active) return syscall(SYS_getrandom, buf, len, flags);
  FillRandom(buf, len);
  return static_cast<ssize_t>(len);
}

int getentropy(void* buf, size_t len) {
  if (len > 256) {
    errno = EIO;
    return -1;
  }
  if (!g_active) return syscall(SYS_getrandom, buf, len, 0) == static_cast<long>(len) ? 0 : -1;
  FillRandom(buf, len);
  return 0;
}

// libuuid (Python's uuid1 and uuid4 call it through _uuid): a version-1
// shaped UUID from the seeded stream, where libuuid would read the machine's
// MAC address and clock.
static void SeededUuid(unsigned char out[16], int version) {
  if (g_active) {
    FillRandom(out, 16);
  } else if (syscall(SYS_getrandom, out, 16, 0) != 16) {
    Die("getrandom failed");
  }
  out[6] = static_cast<unsigned char>((out[6] & 0x0f) | (version << 4));
  out[8] = static_cast<unsigned char>((out[8] & 0x3f) | 0x80);
}
int uuid_generate_time_safe(unsigned char out[16]) {
  SeededUuid(out, 1);
  return 0;
}
void uuid_generate_time(unsigned char out[16]) { SeededUuid(out, 1); }
void uuid_generate_random(unsigned char out[16]) { SeededUuid(out, 4); }
void uuid_generate(unsigned char out[16]) { SeededUuid(out, 4); }

}  // extern "C"
