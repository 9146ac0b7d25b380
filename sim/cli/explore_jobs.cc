#include "sim/cli/explore_jobs.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include <sys/prctl.h>
#include <sys/wait.h>

#include "sim/run/stop_signals.h"

namespace lockstep::cli {
namespace {

// After SIGINT at --max-seconds, how long a search has to report before it
// is killed.
constexpr double kGraceSeconds = 30;

double Now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Job {
  size_t index = 0;
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // its stdout and stderr, read here
  double started = 0;
  double signalled = 0;      // when SIGINT was sent
  bool interrupted = false;  // SIGINT sent, for --max-seconds or a stop
  bool killed = false;
  bool exited = false;
  JobEnd end;
};

// Starts `argv` (argv[0] the program) as described in explore_jobs.h.
// Everything the child does between fork and exec is async-signal-safe.
void Start(const std::vector<std::string>& args, Job& job) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("cannot make a pipe");
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    throw std::runtime_error("cannot make a pipe");
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // a terminal's Ctrl-C reaches this process, which passes it on once
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
        dup2(err[1], STDERR_FILENO) < 0) {
      _exit(127);
    }
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    throw std::runtime_error("cannot start a search: fork failed");
  }
  job.pid = pid;
  job.fds[0] = out[0];
  job.fds[1] = err[0];
  for (int fd : job.fds) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  job.started = Now();
}

// Reads what `fd` has now; false at its end.
bool Drain(int fd, std::string& into) {
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      into.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void CloseFds(Job& job) {
  for (int& fd : job.fds) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

// Every job still running is killed and reaped: no search outlives this.
struct KillOnExit {
  std::vector<Job>& running;
  ~KillOnExit() {
    for (Job& job : running) {
      if (!job.exited) {
        kill(job.pid, SIGKILL);
        waitpid(job.pid, nullptr, 0);
      }
      CloseFds(job);
    }
  }
};

// Reads, reaps and signals `job`; true once it has ended and its output is
// read.
bool Tend(Job& job, std::optional<double> max_seconds, bool stop) {
  for (int i = 0; i < 2; ++i) {
    if (job.fds[i] >= 0 && !Drain(job.fds[i], i == 0 ? job.end.out : job.end.err)) {
      close(job.fds[i]);
      job.fds[i] = -1;
    }
  }
  if (!job.exited) {
    int status = 0;
    if (waitpid(job.pid, &status, WNOHANG) == job.pid) {
      job.exited = true;
      job.end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      job.end.seconds = Now() - job.started;
    }
  }
  if (job.exited) {
    // Whatever it wrote before it ended is in the pipes now, unless a
    // program it started still holds them: that is not waited for.
    for (int i = 0; i < 2; ++i) {
      if (job.fds[i] >= 0) Drain(job.fds[i], i == 0 ? job.end.out : job.end.err);
    }
    CloseFds(job);
    return true;
  }
  const double age = Now() - job.started;
  if (!job.interrupted && (stop || (max_seconds && age > *max_seconds))) {
    job.interrupted = true;
    job.end.timed_out = !stop;
    job.end.stopped = stop;
    kill(job.pid, stop && run::StopSignal() != 0 ? run::StopSignal() : SIGINT);
    job.signalled = Now();
  } else if (job.interrupted && !job.killed && Now() - job.signalled > kGraceSeconds) {
    job.killed = true;
    kill(job.pid, SIGKILL);
  }
  return false;
}

}  // namespace

void RunExploreJobs(const std::vector<std::vector<std::string>>& jobs,
                    const std::vector<std::string>& names, size_t parallel,
                    std::optional<double> max_seconds,
                    const std::function<void(size_t, const JobEnd&)>& ended,
                    const std::function<void(const JobsProgress&)>& progress) {
  std::vector<Job> running;
  running.reserve(parallel);
  KillOnExit guard{running};
  std::vector<std::optional<JobEnd>> ends(jobs.size());
  size_t next = 0, reported = 0, done = 0;
  auto say = [&] {
    JobsProgress p{done, jobs.size(), {}};
    for (const Job& job : running) p.running.push_back(names[job.index]);
    progress(p);
  };
  while (reported < jobs.size()) {
    const bool stop = run::StopRequested().load();
    while (!stop && running.size() < parallel && next < jobs.size()) {
      Job job;
      job.index = next++;
      Start(jobs[job.index], job);
      running.push_back(std::move(job));
      say();
    }
    if (stop) {
      for (; next < jobs.size(); ++next) {
        JobEnd end;
        end.started = false;
        end.stopped = true;
        ends[next] = end;
        ++done;
      }
    }
    std::vector<pollfd> fds;
    for (const Job& job : running) {
      for (int fd : job.fds) {
        if (fd >= 0) fds.push_back({fd, POLLIN, 0});
      }
    }
    // A tenth of a second at most: exits and deadlines are noticed then.
    if (!running.empty()) poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; i < running.size();) {
      if (!Tend(running[i], max_seconds, stop)) {
        ++i;
        continue;
      }
      ends[running[i].index] = running[i].end;
      ++done;
      running.erase(running.begin() + static_cast<long>(i));
      say();
    }
    for (; reported < jobs.size() && ends[reported]; ++reported) ended(reported, *ends[reported]);
  }
}

}  // namespace lockstep::cli
