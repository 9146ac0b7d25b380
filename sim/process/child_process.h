// A program lockstep starts as a client: without address randomisation
// (its runs must be alike), in a process group of its own,
// killed with it (PR_SET_PDEATHSIG, and the shim asks the same for what it
// starts), its output kept in a file for messages, and killed and reaped,
// its whole group, when the object goes away.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace lockstep::process {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] as found by FindProgram
  std::vector<std::string> env;   // NAME=value, the whole environment
  std::string cwd;
  std::vector<std::pair<int, int>>
      fds;             // (lockstep's descriptor, its number in the child, below 16)
  std::string output;  // stdout and stderr go to this file
};

class ChildProcess {
 public:
  // Starts it. Throws std::runtime_error if it cannot be.
  explicit ChildProcess(const ChildSpec& spec);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Readable once the process has ended.
  int exit_fd() const { return pidfd_; }
  // Reaps it if it has ended: returns true and sets *status (waitpid's).
  bool Ended(int* status);
  // Kills its group and reaps it.
  void Kill();

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
};

// `program` as execve needs it: a name without '/' looked up in `path`
// (a PATH value), a relative path taken from `cwd`. Returns "" if there is
// no such executable file.
std::string FindProgram(const std::string& program, const std::string& path,
                        const std::string& cwd);

// "exited with status 1", "was killed by SIGSEGV".
std::string ExitText(int status);

// The last `max_bytes` of the file, from the start of a line, or "".
std::string Tail(const std::string& file, size_t max_bytes);

}  // namespace lockstep::process
