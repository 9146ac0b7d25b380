// A program lockstep starts as a client: without address randomisation
// (its runs must be alike), in a process group of its own, below a keeper
// (process_keeper.h) that kills everything it starts when it ends, when
// the object goes away and when lockstep is gone, however that ends. Its
// output, the tail of it, is kept in a file for messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <sys/types.h>

namespace lockstep::process {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] as found by FindProgram
  std::vector<std::string> env;   // NAME=value, the whole environment
  std::string cwd;
  std::vector<std::pair<int, int>>
      fds;  // (lockstep's descriptor, its number in the child, below 16)
  // stdout and stderr go to this file (its tail: kKeptOutput), in a folder
  // of the session's own, which the keeper removes if lockstep ends
  // without ending the program (a stop signal, SIGKILL).
  std::string output;
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
  int exit_fd() const { return channel_; }
  // If it has ended (and everything it started is gone): returns true and
  // sets *status (waitpid's), once.
  bool Ended(int* status);
  // Kills it and everything it started, and reaps them.
  void Kill();

 private:
  pid_t pid_ = -1;
  pid_t keeper_ = -1;
  int channel_ = -1;  // to the keeper
  bool ended_ = false;
};

// Every program lockstep runs and what they started killed, their keepers
// reaped, their sessions' folders removed: lockstep ends at once. Only
// system calls: a signal handler's.
void EndAllPrograms();

// Kills what every program runs, each program's end reported as ever; from
// now on, ProgramsStopped().
void StopAllPrograms();
bool ProgramsStopped();

// The resident size of every process below lockstep's programs' keepers
// (the programs and all they started), in bytes, and how many there are.
struct ProgramsMemory {
  uint64_t bytes = 0;
  size_t processes = 0;
};
ProgramsMemory ProgramsResident();
// Whether a program runs now.
bool AnyProgram();

// `program` as execve needs it: a name without '/' looked up in `path`
// (a PATH value), a relative path taken from `cwd`. Returns "" if there is
// no such executable file.
std::string FindProgram(const std::string& program, const std::string& path,
                        const std::string& cwd);

// `folder` absolute and in its one spelling ("" is the current folder;
// "/a/b/." and "/a/b/" are "/a/b"), as the trust list pins it. Empty, and
// `ec` set, if the current folder cannot be read.
std::filesystem::path AbsoluteFolder(const std::filesystem::path& folder, std::error_code& ec);

// "exited with status 1", "was killed by SIGSEGV".
std::string ExitText(int status);

// The last `max_bytes` of the file, from the start of a line, or "".
std::string Tail(const std::string& file, size_t max_bytes);

}  // namespace lockstep::process
