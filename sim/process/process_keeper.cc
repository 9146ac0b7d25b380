#include "sim/process/process_keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sim/process/process_tree.h"

namespace lockstep::process {
namespace {

// The keeper's own memory: a copy of lockstep's, written only here.
constexpr size_t kMaxProcesses = 32768;
ProcEntry g_table[kMaxProcesses];
char g_chunk[kKeptOutput];
char g_kept[kKeptOutput];

struct Keeper {
  int channel = -1;
  int output = -1;
  int pipe = -1;  // the program's stdout and stderr, until every writer is gone
  int sigchld = -1;
  pid_t program = -1;
  bool ended = false;
  int status = 0;
  size_t size = 0;  // of the output file
};

void Send(int channel, int32_t value) {
  ssize_t ignored = send(channel, &value, sizeof value, MSG_NOSIGNAL);
  (void)ignored;
}

// Appends to the output file, which keeps the tail: past 2 * kKeptOutput
// it starts again from its last kKeptOutput bytes.
void Append(Keeper& k, const char* bytes, size_t n) {
  if (n >= kKeptOutput) {
    bytes += n - kKeptOutput;
    n = kKeptOutput;
    k.size = 0;
  } else if (k.size + n > 2 * kKeptOutput) {
    const size_t keep = kKeptOutput - n;
    const ssize_t got = pread(k.output, g_kept, keep, static_cast<off_t>(k.size - keep));
    k.size = got > 0 && pwrite(k.output, g_kept, static_cast<size_t>(got), 0) == got
                 ? static_cast<size_t>(got)
                 : 0;
  }
  if (pwrite(k.output, bytes, n, static_cast<off_t>(k.size)) == static_cast<ssize_t>(n))
    k.size += n;
  ssize_t ignored = ftruncate(k.output, static_cast<off_t>(k.size));
  (void)ignored;
}

// Reads what the program wrote so far.
void Drain(Keeper& k) {
  while (k.pipe >= 0) {
    const ssize_t n = read(k.pipe, g_chunk, sizeof g_chunk);
    if (n > 0) {
      Append(k, g_chunk, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      return;
    } else {
      close(k.pipe);
      k.pipe = -1;
    }
  }
}

// Reaps every child that has ended; notes the program's status.
// Returns false once there are no children at all.
bool Reap(Keeper& k) {
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(-1, &status, WNOHANG | __WALL);
    if (r > 0) {
      if (r == k.program && !k.ended) {
        k.ended = true;
        k.status = status;
      }
      continue;
    }
    return !(r < 0 && errno == ECHILD);
  }
}

// Waits (up to `ms`) until a child has ended, or one had already.
void AwaitChild(const Keeper& k, int ms) {
  pollfd ended{k.sigchld, POLLIN, 0};
  poll(&ended, 1, ms);
  signalfd_siginfo info;
  while (read(k.sigchld, &info, sizeof info) > 0) {
  }
}

// Kills every process below the keeper until none is left. Those whose
// parent dies are the keeper's (it is their subreaper), so once it has no
// child there is no descendant either. The program's group first: most
// often that is all, and /proc need not be read.
void KillTree(Keeper& k) {
  if (!k.ended) {
    kill(-k.program, SIGKILL);
    kill(k.program, SIGKILL);
    if (Reap(k)) AwaitChild(k, 10);
  }
  const pid_t me = getpid();
  // Bounded (some 10 s), should /proc not say who is below.
  for (int round = 0; round < 10'000 && Reap(k); ++round) {
    const size_t n = ReadProcessTree(g_table, kMaxProcesses, &me, 1);
    for (size_t i = 0; i < n; ++i) {
      if (g_table[i].below) kill(g_table[i].pid, SIGKILL);
    }
    if (Reap(k)) AwaitChild(k, 1);
  }
}

[[noreturn]] void Finish(Keeper& k, bool bye, const char* folder) {
  KillTree(k);
  Drain(k);
  if (!bye) RemoveFolder(folder);
  _exit(0);
}

void SetSignals(int first, int last, void (*handler)(int)) {
  struct sigaction sa = {};
  sa.sa_handler = handler;
  for (int s = first; s <= last; ++s) {
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &sa, nullptr);
  }
}

[[noreturn]] void StartProgram(const KeeperPlan& plan, int pipe_write, pid_t keeper) {
  SetSignals(1, SIGRTMAX, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != keeper) _exit(127);
  // Each descriptor first to a number above every target (targets are
  // small), so that no dup2 overwrites a source still to be moved.
  int moved[16];
  if (plan.fd_count > 14) _exit(126);
  for (size_t i = 0; i < plan.fd_count; ++i) {
    moved[i] = fcntl(plan.fds[i].first, F_DUPFD, 16);
    if (moved[i] < 0) _exit(126);
  }
  const int out = fcntl(pipe_write, F_DUPFD, 16);
  if (out < 0) _exit(126);
  for (size_t i = 0; i < plan.fd_count; ++i) {
    if (dup2(moved[i], plan.fds[i].second) < 0) _exit(126);
  }
  if (plan.null_fd >= 0) dup2(plan.null_fd, 0);
  dup2(out, 1);
  dup2(out, 2);
  int first_free = 3;
  for (size_t i = 0; i < plan.fd_count; ++i)
    first_free = std::max(first_free, plan.fds[i].second + 1);
  close_range(static_cast<unsigned>(first_free), ~0U, 0);
  if (chdir(plan.cwd) != 0) _exit(126);
  // The same addresses in every run: OpenSSL, for one, mixes its thread's
  // address into its random bytes, and Python orders some sets by address.
  personality(ADDR_NO_RANDOMIZE);
  execve(plan.argv[0], plan.argv, plan.envp);
  _exit(127);
}

// Closes every descriptor but those in `keep`.
void CloseAllBut(int* keep, size_t n) {
  std::sort(keep, keep + n);
  unsigned from = 3;
  for (size_t i = 0; i < n; ++i) {
    if (keep[i] < 0 || static_cast<unsigned>(keep[i]) < from) continue;
    if (static_cast<unsigned>(keep[i]) > from)
      close_range(from, static_cast<unsigned>(keep[i]) - 1, 0);
    from = static_cast<unsigned>(keep[i]) + 1;
  }
  close_range(from, ~0U, 0);
}

}  // namespace

void RunKeeper(const KeeperPlan& plan) {
  // A stop signal is lockstep's to act on: the keeper learns of it when
  // lockstep ends or says so. Its own process group: a terminal's signals
  // reach lockstep, not this.
  SetSignals(1, SIGRTMAX, SIG_DFL);
  for (int s :
       {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
    signal(s, SIG_IGN);
  }
  setpgid(0, 0);
  prctl(PR_SET_NAME, kKeeperName);
  Keeper k;
  k.channel = plan.channel;
  k.output = plan.output_fd;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    Send(k.channel, -errno);
    _exit(1);
  }
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_SETMASK, &chld, nullptr);
  k.sigchld = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
  int pipe_fds[2];
  if (k.sigchld < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0) {
    Send(k.channel, -errno);
    _exit(1);
  }
  const pid_t keeper = getpid();
  const pid_t program = fork();
  if (program == 0) StartProgram(plan, pipe_fds[1], keeper);
  if (program < 0) {
    Send(k.channel, -errno);
    _exit(1);
  }
  k.program = program;
  close(pipe_fds[1]);
  k.pipe = pipe_fds[0];
  fcntl(k.pipe, F_SETFL, O_NONBLOCK);
  // Nothing else of lockstep's: another program's channel, above all,
  // must close when lockstep does.
  int keep[] = {k.channel, k.output, k.pipe, k.sigchld};
  CloseAllBut(keep, 4);
  Send(k.channel, program);
  bool bye = false, reported = false;
  for (;;) {
    pollfd fds[3] = {{k.channel, POLLIN, 0}, {k.sigchld, POLLIN, 0}, {k.pipe, POLLIN, 0}};
    if (poll(fds, k.pipe >= 0 ? 3 : 2, -1) < 0) continue;
    if (k.pipe >= 0 && fds[2].revents != 0) Drain(k);
    if (fds[1].revents != 0) {
      signalfd_siginfo info;
      while (read(k.sigchld, &info, sizeof info) > 0) {
      }
      Reap(k);
    }
    if (fds[0].revents != 0) {
      char said = 0;
      const ssize_t n = recv(k.channel, &said, 1, MSG_DONTWAIT);
      if (n == 1 && said == kKeeperBye) bye = true;
      if (n == 1 && said == kKeeperStop) KillTree(k);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) Finish(k, bye, plan.folder);
    }
    if (k.ended && !reported) {
      // What it wrote, then what it started, gone, before lockstep hears of its end.
      Drain(k);
      KillTree(k);
      Drain(k);
      Send(k.channel, k.status);
      reported = true;
    }
  }
}

}  // namespace lockstep::process
