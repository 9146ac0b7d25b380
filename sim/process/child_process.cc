#include "sim/process/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

namespace lockstep::process {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxChildFds = 8;

bool IsExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::string FindProgram(const std::string& program, const std::string& path,
                        const std::string& cwd) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) {
    fs::path p(program);
    if (p.is_relative()) p = fs::path(cwd) / p;
    return IsExecutableFile(p) ? p.string() : "";
  }
  std::stringstream dirs(path);
  std::string d;
  while (std::getline(dirs, d, ':')) {
    if (!d.empty() && IsExecutableFile(fs::path(d) / program)) return d + "/" + program;
  }
  return "";
}

std::string ExitText(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return std::string("was killed by ") +
           (name ? "SIG" + std::string(name) : "signal " + std::to_string(WTERMSIG(status)));
  }
  return "ended";
}

std::string Tail(const std::string& file, size_t max_bytes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(max_bytes)
                                  ? size - static_cast<std::streamoff>(max_bytes)
                                  : 0;
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (from > 0) {
    const size_t line = text.find('\n');
    if (line != std::string::npos) text.erase(0, line + 1);
  }
  return text;
}

ChildProcess::ChildProcess(const ChildSpec& spec) {
  if (spec.fds.size() > kMaxChildFds) throw std::logic_error("too many descriptors for a child");
  // Everything the child needs is made before fork: after it, a
  // multi-threaded parent's child may only make async-signal-safe calls.
  std::vector<char*> argv, envp;
  std::vector<std::string> args = spec.argv, env = spec.env;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int out = open(spec.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0)
    throw std::runtime_error("cannot create " + spec.output + ": " + std::strerror(errno));
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(out);
    if (null >= 0) close(null);
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // Each descriptor first to a number above every target (targets are
    // small), so that no dup2 overwrites a source still to be moved.
    int moved[kMaxChildFds];
    for (size_t i = 0; i < spec.fds.size(); ++i) {
      moved[i] = fcntl(spec.fds[i].first, F_DUPFD, 16);
      if (moved[i] < 0) _exit(126);
    }
    for (size_t i = 0; i < spec.fds.size(); ++i) {
      if (dup2(moved[i], spec.fds[i].second) < 0) _exit(126);
    }
    if (null >= 0) dup2(null, 0);
    dup2(out, 1);
    dup2(out, 2);
    int first_free = 3;
    for (const auto& [from, to] : spec.fds) first_free = std::max(first_free, to + 1);
    close_range(static_cast<unsigned>(first_free), ~0U, 0);
    if (chdir(spec.cwd.c_str()) != 0) _exit(126);
    // The same addresses in every run: OpenSSL, for one, mixes its thread's
    // address into its random bytes, and Python orders some sets by address.
    personality(ADDR_NO_RANDOMIZE);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out);
  if (null >= 0) close(null);
  pid_ = pid;
  setpgid(pid, pid);  // whichever of the two runs first
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd_ < 0) {
    const int e = errno;
    Kill();
    throw std::runtime_error(std::string("pidfd_open: ") + std::strerror(e));
  }
  fcntl(pidfd_, F_SETFD, FD_CLOEXEC);
}

ChildProcess::~ChildProcess() { Kill(); }

bool ChildProcess::Ended(int* status) {
  if (pid_ <= 0) return false;
  const pid_t r = waitpid(pid_, status, WNOHANG);
  if (r != pid_) return false;
  kill(-pid_, SIGKILL);  // what it started, if anything
  pid_ = -1;
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  return true;
}

void ChildProcess::Kill() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
}

}  // namespace lockstep::process
