// liblockstep_clock.so: a redis-server started by `lockstep replay
// --redis-server` reads its wall clock from lockstep, not from the machine.
//
// lockstep preloads this library (LD_PRELOAD) and names, in
// LOCKSTEP_CLOCK_FILE, a file of 8 bytes: the server's time in microseconds
// since the Unix epoch, a native int64 that lockstep rewrites before each
// step. Redis reads the wall clock through gettimeofday, clock_gettime
// (CLOCK_REALTIME) and time, so every deadline and TTL it computes is at
// the instant lockstep chose. The monotonic clocks stay the machine's:
// Redis's event loop and timers run as usual.
//
// Without a readable clock file the server does not start: a replay whose
// time silently fell back to the machine's would not be exact.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

namespace {

const int64_t* g_clock = nullptr;

void Die(const char* what) {
  std::fprintf(stderr, "liblockstep_clock: %s\n", what);
  _exit(70);
}

__attribute__((constructor)) void MapClock() {
  const char* path = std::getenv("LOCKSTEP_CLOCK_FILE");
  if (path == nullptr || *path == '\0') Die("LOCKSTEP_CLOCK_FILE is not set");
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die("cannot open LOCKSTEP_CLOCK_FILE");
  // A shorter file would map, and fault (SIGBUS) at the first read.
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(int64_t))) {
    Die("LOCKSTEP_CLOCK_FILE holds fewer than 8 bytes");
  }
  void* p = mmap(nullptr, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) Die("cannot map LOCKSTEP_CLOCK_FILE");
  g_clock = static_cast<const int64_t*>(p);
}

int64_t NowMicros() { return __atomic_load_n(g_clock, __ATOMIC_ACQUIRE); }

bool IsWallClock(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI;
}

}  // namespace

extern "C" {

int clock_gettime(clockid_t id, struct timespec* ts) {
  if (!IsWallClock(id)) return static_cast<int>(syscall(SYS_clock_gettime, id, ts));
  const int64_t us = NowMicros();
  ts->tv_sec = static_cast<time_t>(us / 1000000);
  ts->tv_nsec = static_cast<long>(us % 1000000) * 1000;
  return 0;
}

int gettimeofday(struct timeval* tv, void* /*tz*/) {
  if (tv != nullptr) {
    const int64_t us = NowMicros();
    tv->tv_sec = static_cast<time_t>(us / 1000000);
    tv->tv_usec = static_cast<suseconds_t>(us % 1000000);
  }
  return 0;
}

time_t time(time_t* out) {
  const time_t t = static_cast<time_t>(NowMicros() / 1000000);
  if (out != nullptr) *out = t;
  return t;
}

}  // extern "C"
