// `lockstep test`'s searches: each `lockstep explore` a process of its own,
// up to --jobs at once, so that one scenario's crash, memory or stop is its
// own, and a search's output is read as its --json report.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::cli {

struct JobEnd {
  int exit_code = 0;       // 128 + N when killed by signal N
  std::string out;         // its standard output (the --json report)
  std::string err;         // its standard error
  bool timed_out = false;  // stopped at --max-seconds
  bool stopped = false;    // stopped by a stop signal this process got
  bool started = true;     // false: not run (a stop came first)
  double seconds = 0;      // from its start to its end, on the wall clock
};

struct JobsProgress {
  size_t done = 0, total = 0;
  std::vector<std::string> running;  // their names, oldest first
};

// Runs `lockstep ARGS...` (this program, /proc/self/exe) for each of
// `jobs`, at most `parallel` at once, each in a process group of its own,
// killed if this process dies. A job still running `max_seconds` after it
// started gets SIGINT (it reports what it has and exits 3), and SIGKILL
// 30 s later. A stop signal to this process is passed to each running job
// once, and the rest are not started. `ended(i, end)` is called in the
// jobs' order, each as soon as it and all before it have ended; `progress`
// whenever a job starts or ends. Every job has ended when this returns,
// however it returns.
void RunExploreJobs(const std::vector<std::vector<std::string>>& jobs,
                    const std::vector<std::string>& names, size_t parallel,
                    std::optional<double> max_seconds,
                    const std::function<void(size_t, const JobEnd&)>& ended,
                    const std::function<void(const JobsProgress&)>& progress);

}  // namespace lockstep::cli
