#include "sim/process/child_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/socket.h>
#include <sys/wait.h>

#include "sim/process/process_keeper.h"
#include "sim/process/process_tree.h"

namespace lockstep::process {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxChildFds = 8;

bool IsExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

}  // namespace

fs::path AbsoluteFolder(const fs::path& folder, std::error_code& ec) {
  fs::path a = fs::absolute(folder.empty() ? fs::path(".") : folder, ec).lexically_normal();
  if (!a.has_filename() && a.has_relative_path()) a = a.parent_path();
  return a;
}

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

namespace {

// The keepers running, for a stop signal's handler and the memory bound:
// lock-free slots, a keeper's pid and lockstep's end of its channel.
constexpr size_t kMaxKeepers = 1024;
std::atomic<pid_t> keeper_pids[kMaxKeepers];
std::atomic<int> keeper_channels[kMaxKeepers];
std::atomic<int> keepers_running{0};
std::atomic<bool> programs_stopped{false};
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void Register(pid_t keeper, int channel) {
  for (size_t i = 0; i < kMaxKeepers; ++i) {
    pid_t none = 0;
    if (keeper_pids[i].compare_exchange_strong(none, keeper)) {
      keeper_channels[i].store(channel);
      keepers_running.fetch_add(1);
      return;
    }
  }
  // Past that many at once, a stop signal does not wait for this one: it
  // still ends all it runs when lockstep's end of the channel closes.
}

void Forget(pid_t keeper) {
  for (size_t i = 0; i < kMaxKeepers; ++i) {
    if (keeper_pids[i].load() == keeper) {
      keeper_channels[i].store(-1);
      keeper_pids[i].store(0);
      keepers_running.fetch_sub(1);
      return;
    }
  }
}

}  // namespace

void EndAllPrograms() {
  // Closed without a goodbye: each keeper kills its tree and removes its folder.
  for (auto& channel : keeper_channels) {
    const int fd = channel.exchange(-1);
    if (fd >= 0) close(fd);
  }
  for (auto& keeper : keeper_pids) {
    const pid_t pid = keeper.exchange(0);
    if (pid <= 0) continue;
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

void StopAllPrograms() {
  programs_stopped.store(true);
  for (auto& channel : keeper_channels) {
    const int fd = channel.load();
    if (fd >= 0) send(fd, &kKeeperStop, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
}

bool ProgramsStopped() { return programs_stopped.load(); }

bool AnyProgram() { return keepers_running.load() > 0; }

ProgramsMemory ProgramsResident() {
  std::vector<pid_t> roots;
  for (const auto& keeper : keeper_pids) {
    if (const pid_t pid = keeper.load(); pid > 0) roots.push_back(pid);
  }
  if (roots.empty()) return {};
  static thread_local std::vector<ProcEntry> table(32768);
  const size_t n = ReadProcessTree(table.data(), table.size(), roots.data(), roots.size());
  ProgramsMemory m;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (size_t i = 0; i < n; ++i) {
    // A keeper's copy about to start a program shares lockstep's pages.
    if (!table[i].below || table[i].keeper) continue;
    m.bytes += table[i].resident_pages * page;
    ++m.processes;
  }
  return m;
}

ChildProcess::ChildProcess(const ChildSpec& spec) {
  if (spec.fds.size() > kMaxChildFds) throw std::logic_error("too many descriptors for a child");
  // Everything the keeper needs is made before fork: after it, a
  // multi-threaded parent's child may only make async-signal-safe calls.
  std::vector<char*> argv, envp;
  std::vector<std::string> args = spec.argv, env = spec.env;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string folder = fs::path(spec.output).parent_path().string();
  const int out = open(spec.output.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0)
    throw std::runtime_error("cannot create " + spec.output + ": " + std::strerror(errno));
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    const int e = errno;
    close(out);
    if (null >= 0) close(null);
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(e));
  }
  const KeeperPlan plan{
      argv.data(), envp.data(), spec.cwd.c_str(), spec.fds.data(), spec.fds.size(),
      null,        out,         pair[1],          folder.c_str()};
  // No handler of lockstep's may run in the keeper before it sets its own.
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  const pid_t keeper = fork();
  if (keeper == 0) {
    close(pair[0]);
    RunKeeper(plan);
  }
  const int fork_error = errno;
  if (keeper > 0) Register(keeper, pair[0]);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  close(out);
  if (null >= 0) close(null);
  close(pair[1]);
  if (keeper < 0) {
    close(pair[0]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(fork_error));
  }
  keeper_ = keeper;
  channel_ = pair[0];
  int32_t said = 0;
  size_t got = 0;
  while (got < sizeof said) {
    const ssize_t n = read(channel_, reinterpret_cast<char*>(&said) + got, sizeof said - got);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (!(n < 0 && errno == EINTR)) {
      break;
    }
  }
  if (got < sizeof said || said <= 0) {
    Kill();
    throw std::runtime_error(std::string("fork: ") +
                             std::strerror(got == sizeof said ? -said : EAGAIN));
  }
  pid_ = said;
}

ChildProcess::~ChildProcess() { Kill(); }

bool ChildProcess::Ended(int* status) {
  if (channel_ < 0 || ended_) return false;
  int32_t said = 0;
  const ssize_t n = recv(channel_, &said, sizeof said, MSG_DONTWAIT | MSG_WAITALL);
  if (n == static_cast<ssize_t>(sizeof said)) {
    *status = said;
  } else if (n == 0) {
    *status = SIGKILL;  // the keeper is gone, and with it the program
  } else {
    return false;
  }
  ended_ = true;
  return true;
}

void ChildProcess::Kill() {
  if (channel_ >= 0) {
    Forget(keeper_);
    send(channel_, &kKeeperBye, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(channel_);
    channel_ = -1;
  }
  if (keeper_ > 0) {
    while (waitpid(keeper_, nullptr, 0) < 0 && errno == EINTR) {
    }
    keeper_ = -1;
  }
  pid_ = -1;
}

}  // namespace lockstep::process
