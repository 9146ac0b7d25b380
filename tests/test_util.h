// Helpers shared by the tests: paths, temporary folders, running the
// lockstep binary as a user would.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/types.h>

namespace lockstep::testing {

// Built with AddressSanitizer: several times slower, so a case that runs a
// subset there is tagged [scaled], and the Release suite runs it whole
// (tests/CMakeLists.txt).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// The source tree (scenarios/ lives there).
inline std::string SourceDir() { return LOCKSTEP_SOURCE_DIR; }
inline std::string ScenarioPath(const std::string& name) {
  return SourceDir() + "/scenarios/" + name;
}
// Every shipped scenario file, sorted.
std::vector<std::string> AllScenarioPaths();
// The scenarios a long sweep runs: all of them, or under the sanitizers
// every other one.
std::vector<std::string> ScenarioSweep();
// Whether `file`, one of AllScenarioPaths(), is in ScenarioSweep().
bool InScenarioSweep(const std::string& file);

// A fresh temporary folder, removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  // Writes `content` to `name` inside the folder; returns its path.
  std::string Write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The lockstep binary this build made.
const char* LockstepBinary();

// Runs the lockstep binary with `args` (no shell quoting is applied: pass
// plain words).
ProcessResult RunLockstep(const std::vector<std::string>& args);
// The same, with the process's address space limited to `max_bytes` (not
// under AddressSanitizer, whose shadow memory needs more): a test of a
// memory bound fails instead of exhausting the machine.
ProcessResult RunLockstepWithin(const std::vector<std::string>& args, size_t max_bytes);

// Runs argv[0] (a path) with the rest as its arguments, as RunLockstep does.
ProcessResult RunProgram(const std::vector<std::string>& argv);

// Starts argv[0] with the rest as its arguments, its output in the files
// `out` and `err`, and returns at once.
pid_t SpawnProgram(const std::vector<std::string>& argv, const std::string& out,
                   const std::string& err);
// Its exit code, or 1000 + the signal that killed it (a signal lockstep
// does not handle never passes for an exit code).
int Wait(pid_t pid);
// The CPU time `pid` has used so far, in clock ticks (utime + stime).
long CpuTicks(pid_t pid);

#ifdef LOCKSTEP_MPIEXEC
// The mpirun command line that runs lockstep with `args` on `ranks` ranks
// (oversubscribed, as root if need be, without leak checks under ASan:
// Open MPI's plugins keep what they allocate until exit).
// `prompt_exit`: when a rank exits with a code other than 0 (rank 0, for a
// violation), mpirun kills the others at once instead of a second later.
// Only for runs in which no rank but 0 can exit so, having finished.
std::vector<std::string> MpirunArgv(int ranks, const std::vector<std::string>& args,
                                    bool prompt_exit = false);
// Runs it.
ProcessResult RunOnRanks(int ranks, const std::vector<std::string>& args, bool prompt_exit = false);
#endif

std::string ReadText(const std::string& path);

// Writes, in `dir`, a scenario whose run does not end for a long time and
// grows all along: eight clients retrying a thousand times, up to ten
// million steps. Returns its path.
std::string WriteEndlessRun(const TempDir& dir);

// The algorithm of a process client that runs tests/process/setnx_port.py
// in place of `built_in` (setnx-naive or setnx-getset); nullopt for any
// other algorithm.
std::optional<nlohmann::json> SetnxPortFor(const std::string& built_in);

// Whether `text` contains `part`.
inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace lockstep::testing
