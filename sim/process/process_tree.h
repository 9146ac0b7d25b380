// The processes under one of lockstep's, read from /proc with system calls
// alone: nothing here allocates or takes a lock, so a forked child of a
// threaded lockstep (a program's keeper, process_keeper.h) may use it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <sys/types.h>

namespace lockstep::process {

struct ProcEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  uint64_t resident_pages = 0;
  bool keeper = false;  // named as a keeper: one, or its copy about to start a program
  bool below = false;   // a descendant of the roots asked for
};

// The name a keeper gives itself (PR_SET_NAME), inherited by the program
// it forks until that program starts: such a process is a copy of
// lockstep's memory, not the program's.
inline constexpr const char* kKeeperName = "lockstep-keeper";

// Reads every process into `table` (at most `capacity`), sorted by pid, and
// marks those below one of `roots` (their descendants, not the roots).
// Returns how many it read; 0 if /proc cannot be read.
size_t ReadProcessTree(ProcEntry* table, size_t capacity, const pid_t* roots, size_t root_count);

// Removes the folder `path` and everything in it (no symbolic link
// followed), as far as it can.
void RemoveFolder(const char* path);

}  // namespace lockstep::process
