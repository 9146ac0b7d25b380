// Whether a client's own threads are busy (client_shim.cc waits for them
// before it tells lockstep the main thread waits).
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/syscall.h>

#include "sim/clock_shim/client_shim.h"

namespace lockstep::client_shim {

// Whether every other thread of the process is asleep (or stopped): none is
// about to make the main thread's input ready (a thread pool's file read,
// say, which Node uses at start-up). What they wait for is theirs.
bool OwnThreadsIdle(int main_tid) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return true;
  bool idle = true;
  while (const dirent* e = readdir(tasks)) {
    const int tid = std::atoi(e->d_name);
    if (tid <= 0 || tid == main_tid) continue;
    char path[64], stat[512];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
    if (fd < 0) continue;  // it ended
    const ssize_t n = syscall(SYS_read, fd, stat, sizeof stat - 1);
    syscall(SYS_close, fd);
    if (n <= 0) continue;
    stat[n] = '\0';
    const char* paren = std::strrchr(stat, ')');
    if (paren != nullptr && (paren[2] == 'R' || paren[2] == 'D')) {
      idle = false;
      break;
    }
  }
  closedir(tasks);
  return idle;
}

}  // namespace lockstep::client_shim
