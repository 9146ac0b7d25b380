// A program's keeper: the process between lockstep and a program it runs.
//
// Forked by ChildProcess, it forks the program and stays its parent and
// the subreaper of everything the program starts (PR_SET_CHILD_SUBREAPER):
// a child that calls setsid, forks twice, changes its process group,
// ignores SIGTERM or starts with a clean environment (no preload) is still
// below the keeper, whose descendants are exactly the program's tree. The
// keeper kills that whole tree when the program ends, when lockstep asks,
// and when lockstep is gone however it ended (SIGKILL included: its end of
// the channel closes), and then also removes the session's folder. It
// drains the program's stdout and stderr into the output file, keeping
// the tail only (kKeptOutput).
//
// The keeper is a copy of a threaded lockstep that never calls execve:
// it makes system calls alone, no allocation, no lock.
#pragma once

#include <cstddef>
#include <utility>

namespace lockstep::process {

// The output file keeps at least the last kKeptOutput bytes the program
// wrote and at most twice that.
inline constexpr size_t kKeptOutput = size_t{64} << 10;

// What the keeper says on its channel, each a 32-bit int: the program's
// pid (or -errno if it could not fork), then waitpid's status once the
// program has ended and its tree is gone. What lockstep says: kKeeperBye,
// then it closes its end (the keeper kills the tree and exits, leaving the
// folder to lockstep), or kKeeperStop (kill the tree now, the program's end
// reported as ever); a close without kKeeperBye: lockstep is gone.
inline constexpr char kKeeperBye = 'k';
inline constexpr char kKeeperStop = 's';

// Everything made before the fork.
struct KeeperPlan {
  char* const* argv;
  char* const* envp;
  const char* cwd;
  const std::pair<int, int>* fds;  // (descriptor, its number in the program, below 16)
  size_t fd_count;
  int null_fd;         // the program's stdin
  int output_fd;       // the output file, read and written
  int channel;         // the keeper's end
  const char* folder;  // removed if lockstep goes away
};

// In the forked child: runs the keeper; never returns.
[[noreturn]] void RunKeeper(const KeeperPlan& plan);

}  // namespace lockstep::process
