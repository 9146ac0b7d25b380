#include "sim/process/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <sys/syscall.h>

namespace lockstep::process {
namespace {

// getdents64 fills records laid out as glibc's dirent64.
using LinuxDirent64 = struct dirent64;

bool Digits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

uint64_t ParseNumber(const char** p) {
  while (**p == ' ') ++*p;
  uint64_t n = 0;
  for (; **p >= '0' && **p <= '9'; ++*p) n = n * 10 + static_cast<uint64_t>(**p - '0');
  return n;
}

// /proc/PID/stat: "pid (comm) state ppid ... rss ...", comm holding any byte.
bool ReadStat(const char* pid, ProcEntry* e) {
  char path[64];
  if (std::strlen(pid) > 20) return false;
  std::strcpy(path, "/proc/");
  std::strcat(path, pid);
  std::strcat(path, "/stat");
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return false;  // it ended
  char text[1024];
  const ssize_t n = syscall(SYS_read, fd, text, sizeof text - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return false;
  text[n] = '\0';
  const char* open = std::strchr(text, '(');
  const char* close = std::strrchr(text, ')');
  if (open == nullptr || close == nullptr || close < open || close[1] == '\0') return false;
  const size_t name_length = std::strlen(kKeeperName);
  e->keeper = static_cast<size_t>(close - open - 1) == name_length &&
              std::strncmp(open + 1, kKeeperName, name_length) == 0;
  const char* p = close + 2;
  ++p;  // the state
  e->ppid = static_cast<pid_t>(ParseNumber(&p));
  // Fields 5 to 23, then the resident size in pages (field 24).
  for (int field = 5; field < 24; ++field) {
    while (*p == ' ') ++p;
    while (*p != ' ' && *p != '\0') ++p;
  }
  e->resident_pages = ParseNumber(&p);
  return true;
}

}  // namespace

size_t ReadProcessTree(ProcEntry* table, size_t capacity, const pid_t* roots, size_t root_count) {
  const int dir =
      static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return 0;
  size_t count = 0;
  alignas(8) char buffer[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* d = reinterpret_cast<const LinuxDirent64*>(buffer + at);
      at += d->d_reclen;
      if (count == capacity || !Digits(d->d_name)) continue;
      ProcEntry e;
      const char* p = d->d_name;
      e.pid = static_cast<pid_t>(ParseNumber(&p));
      if (ReadStat(d->d_name, &e)) table[count++] = e;
    }
  }
  syscall(SYS_close, dir);
  std::sort(table, table + count,
            [](const ProcEntry& a, const ProcEntry& b) { return a.pid < b.pid; });
  auto below = [&](pid_t ppid) {
    for (size_t r = 0; r < root_count; ++r) {
      if (roots[r] == ppid) return true;
    }
    const ProcEntry* begin = table;
    const ProcEntry* end = table + count;
    const ProcEntry* parent = std::lower_bound(
        begin, end, ppid, [](const ProcEntry& e, pid_t pid) { return e.pid < pid; });
    return parent != end && parent->pid == ppid && parent->below;
  };
  // Until nothing changes: a parent's pid is most often the smaller one.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < count; ++i) {
      if (!table[i].below && table[i].ppid > 0 && below(table[i].ppid)) {
        table[i].below = true;
        changed = true;
      }
    }
  }
  return count;
}

namespace {

// Removes what is in the folder `fd`; `depth` bounds the recursion.
void EmptyFolder(int fd, int depth) {
  alignas(8) char buffer[1024];
  for (bool again = true; again;) {
    again = false;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* d = reinterpret_cast<const LinuxDirent64*>(buffer + at);
        at += d->d_reclen;
        if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
        if (unlinkat(fd, d->d_name, 0) == 0) continue;
        if (depth == 0) continue;
        const int sub = static_cast<int>(
            syscall(SYS_openat, fd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (sub < 0) continue;
        char name[256];
        std::strncpy(name, d->d_name, sizeof name - 1);
        name[sizeof name - 1] = '\0';
        EmptyFolder(sub, depth - 1);  // reuses nothing of this buffer
        syscall(SYS_close, sub);
        if (unlinkat(fd, name, AT_REMOVEDIR) == 0) again = true;  // the listing moved on
      }
      if (again) break;
    }
  }
}

}  // namespace

void RemoveFolder(const char* path) {
  const int fd = static_cast<int>(
      syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd < 0) return;
  EmptyFolder(fd, 16);
  syscall(SYS_close, fd);
  rmdir(path);
}

}  // namespace lockstep::process
