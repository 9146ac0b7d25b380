// liblockstep_client.so, the other half: what would make two runs of a
// client differ besides its clock. Random bytes come from a stream seeded by
// lockstep (getrandom, getentropy, arc4random, libuuid's uuid_generate
// family, and read() of a descriptor opened on /dev/urandom or /dev/random);
// the process id is the same in every run (getpid, gettid on the main
// thread; kill() takes it as the process's own). OpenSSL, for one, mixes
// the process id into its random bytes. Not covered: the random device
// read through stdio (fopen), raw system calls, getppid.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <sys/syscall.h>
#include <sys/uio.h>

#include "sim/clock_shim/client_shim.h"
#include "sim/process/shim_protocol.h"

namespace lockstep::client_shim {
namespace {

std::atomic<uint64_t> g_random{0};  // splitmix64 state

uint64_t NextRandom() {
  uint64_t z = g_random.fetch_add(0x9e3779b97f4a7c15ULL) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Descriptors open on a random device, below 1024.
constexpr int kRandomFdLimit = 1024;
std::atomic<uint64_t> g_random_fds[kRandomFdLimit / 64];

bool IsRandomDevice(const char* path) {
  return path != nullptr &&
         (std::strcmp(path, "/dev/urandom") == 0 || std::strcmp(path, "/dev/random") == 0);
}

void Track(int fd, bool random) {
  if (fd < 0 || fd >= kRandomFdLimit) return;
  const uint64_t bit = uint64_t{1} << (fd % 64);
  if (random) {
    g_random_fds[fd / 64].fetch_or(bit);
  } else {
    g_random_fds[fd / 64].fetch_and(~bit);
  }
}

bool Tracked(int fd) {
  return fd >= 0 && fd < kRandomFdLimit && (g_random_fds[fd / 64].load() >> (fd % 64) & 1) != 0;
}

template <class F>
F Real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// The mode argument of open and openat is there only with these flags.
bool HasMode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

int Opened(int fd, const char* path) {
  if (Active()) Track(fd, IsRandomDevice(path));
  return fd;
}

ssize_t ReadRandom(void* buf, size_t n) {
  FillRandom(buf, n);
  return static_cast<ssize_t>(n);
}

// libuuid (Python's uuid1 and uuid4 call it through _uuid): a UUID of
// `version`'s shape from the seeded stream, where libuuid would read the
// machine's MAC address and clock.
void SeededUuid(unsigned char out[16], int version) {
  if (Active()) {
    FillRandom(out, 16);
  } else if (syscall(SYS_getrandom, out, 16, 0) != 16) {
    std::fprintf(stderr, "liblockstep_client: getrandom failed\n");
    _exit(70);
  }
  out[6] = static_cast<unsigned char>((out[6] & 0x0f) | (version << 4));
  out[8] = static_cast<unsigned char>((out[8] & 0x3f) | 0x80);
}

}  // namespace

void SeedRandom(uint64_t seed) { g_random.store(seed); }

void FillRandom(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t v = NextRandom();
    std::memcpy(p + i, &v, n - i < 8 ? n - i : 8);
  }
}

}  // namespace lockstep::client_shim

namespace cs = lockstep::client_shim;
using lockstep::process::kVirtualPid;

extern "C" {

// --- The process id. ---

pid_t getpid() { return cs::Active() ? kVirtualPid : static_cast<pid_t>(syscall(SYS_getpid)); }

pid_t gettid() {
  return cs::Active() && cs::OnMainThread() ? kVirtualPid : static_cast<pid_t>(syscall(SYS_gettid));
}

int kill(pid_t pid, int sig) {
  if (cs::Active() && (pid == kVirtualPid || pid == -kVirtualPid)) {
    pid = pid > 0 ? cs::RealPid() : -cs::RealPid();  // its own group: it leads it
  }
  return static_cast<int>(syscall(SYS_kill, pid, sig));
}

// --- Random bytes. ---

ssize_t getrandom(void* buf, size_t len, unsigned int flags) {
  if (!cs::Active()) return syscall(SYS_getrandom, buf, len, flags);
  return cs::ReadRandom(buf, len);
}

int getentropy(void* buf, size_t len) {
  if (len > 256) {
    errno = EIO;
    return -1;
  }
  if (!cs::Active()) return syscall(SYS_getrandom, buf, len, 0) == static_cast<long>(len) ? 0 : -1;
  cs::FillRandom(buf, len);
  return 0;
}

uint32_t arc4random() {
  uint32_t v = 0;
  if (cs::Active()) {
    cs::FillRandom(&v, sizeof v);
  } else {
    while (syscall(SYS_getrandom, &v, sizeof v, 0) != static_cast<long>(sizeof v)) {
    }
  }
  return v;
}

void arc4random_buf(void* buf, size_t n) {
  if (cs::Active()) {
    cs::FillRandom(buf, n);
    return;
  }
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    const long got = syscall(SYS_getrandom, p, n, 0);
    if (got > 0) {
      p += got;
      n -= static_cast<size_t>(got);
    }
  }
}

uint32_t arc4random_uniform(uint32_t bound) {
  if (bound < 2) return 0;
  const uint32_t floor = -bound % bound;  // rejects the biased low values
  for (;;) {
    const uint32_t v = arc4random();
    if (v >= floor) return v % bound;
  }
}

int uuid_generate_time_safe(unsigned char out[16]) {
  cs::SeededUuid(out, 1);
  return 0;
}
void uuid_generate_time(unsigned char out[16]) { cs::SeededUuid(out, 1); }
void uuid_generate_random(unsigned char out[16]) { cs::SeededUuid(out, 4); }
void uuid_generate(unsigned char out[16]) { cs::SeededUuid(out, 4); }

// --- The random devices, opened and read. ---

using OpenFn = int (*)(const char*, int, ...);
using OpenatFn = int (*)(int, const char*, int, ...);

#define LOCKSTEP_OPEN(name)                                   \
  int name(const char* path, int flags, ...) {                \
    static const OpenFn real = cs::Real<OpenFn>(#name);       \
    mode_t mode = 0;                                          \
    if (cs::HasMode(flags)) {                                 \
      va_list args;                                           \
      va_start(args, flags);                                  \
      mode = static_cast<mode_t>(va_arg(args, unsigned int)); \
      va_end(args);                                           \
    }                                                         \
    return cs::Opened(real(path, flags, mode), path);         \
  }
#define LOCKSTEP_OPENAT(name)                                 \
  int name(int dir, const char* path, int flags, ...) {       \
    static const OpenatFn real = cs::Real<OpenatFn>(#name);   \
    mode_t mode = 0;                                          \
    if (cs::HasMode(flags)) {                                 \
      va_list args;                                           \
      va_start(args, flags);                                  \
      mode = static_cast<mode_t>(va_arg(args, unsigned int)); \
      va_end(args);                                           \
    }                                                         \
    return cs::Opened(real(dir, path, flags, mode), path);    \
  }
LOCKSTEP_OPEN(open)
LOCKSTEP_OPEN(open64)
LOCKSTEP_OPENAT(openat)
LOCKSTEP_OPENAT(openat64)
#undef LOCKSTEP_OPEN
#undef LOCKSTEP_OPENAT

// The fortified forms, which never take a mode.
int __open_2(const char* path, int flags) {
  static const auto real = cs::Real<int (*)(const char*, int)>("__open_2");
  return cs::Opened(real(path, flags), path);
}
int __open64_2(const char* path, int flags) {
  static const auto real = cs::Real<int (*)(const char*, int)>("__open64_2");
  return cs::Opened(real(path, flags), path);
}

// The real calls, not raw system calls: glibc's are cancellation points.
ssize_t read(int fd, void* buf, size_t n) {
  static const auto real = cs::Real<ssize_t (*)(int, void*, size_t)>("read");
  if (cs::Tracked(fd)) return cs::ReadRandom(buf, n);
  return real(fd, buf, n);
}

ssize_t __read_chk(int fd, void* buf, size_t n, size_t buf_size) {
  if (n > buf_size) {
    std::fprintf(stderr, "liblockstep_client: read past its buffer\n");
    abort();
  }
  return read(fd, buf, n);
}

ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  static const auto real = cs::Real<ssize_t (*)(int, void*, size_t, off64_t)>("pread64");
  if (cs::Tracked(fd)) return cs::ReadRandom(buf, n);
  return real(fd, buf, n, offset);
}

ssize_t pread(int fd, void* buf, size_t n, off_t offset) { return pread64(fd, buf, n, offset); }

ssize_t readv(int fd, const struct iovec* iov, int count) {
  static const auto real = cs::Real<ssize_t (*)(int, const iovec*, int)>("readv");
  if (!cs::Tracked(fd)) return real(fd, iov, count);
  ssize_t total = 0;
  for (int i = 0; i < count; ++i) total += cs::ReadRandom(iov[i].iov_base, iov[i].iov_len);
  return total;
}

int close(int fd) {
  static const auto real = cs::Real<int (*)(int)>("close");
  cs::Track(fd, false);
  cs::ForgetConnection(fd);
  return real(fd);
}

int dup2(int from, int to) {
  static const auto real = cs::Real<int (*)(int, int)>("dup2");
  const int r = real(from, to);
  if (r >= 0 && from != to) {
    cs::Track(to, cs::Tracked(from));
    cs::ForgetConnection(to);
  }
  return r;
}

int dup3(int from, int to, int flags) {
  static const auto real = cs::Real<int (*)(int, int, int)>("dup3");
  const int r = real(from, to, flags);
  if (r >= 0) {
    cs::Track(to, cs::Tracked(from));
    cs::ForgetConnection(to);
  }
  return r;
}

}  // extern "C"
