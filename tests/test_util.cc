#include "tests/test_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/wait.h>

namespace lockstep::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "lockstep-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& content) const {
  std::string p = File(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::vector<std::string> AllScenarioPaths() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(SourceDir() + "/scenarios")) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> ScenarioSweep() {
  std::vector<std::string> files = AllScenarioPaths();
  if (!kAddressSanitizer) return files;
  std::vector<std::string> half;
  for (size_t i = 0; i < files.size(); i += 2) half.push_back(files[i]);
  return half;
}

bool InScenarioSweep(const std::string& file) {
  const std::vector<std::string> sweep = ScenarioSweep();
  return std::find(sweep.begin(), sweep.end(), file) != sweep.end();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// Runs argv[0] (a path) with the rest of argv as its arguments.
ProcessResult Run(std::vector<std::string> argv_words, size_t max_bytes) {
  TempDir tmp;
  std::string out = tmp.File("stdout"), err = tmp.File("stderr");
  // The child's freopen would otherwise write this process's pending output.
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (max_bytes > 0 && !kAddressSanitizer) {
      const rlimit limit{max_bytes, max_bytes};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(127);
    }
    std::vector<char*> argv;
    for (auto& a : argv_words) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadText(out);
  r.err = ReadText(err);
  return r;
}

// The lockstep binary's command line with `args`.
std::vector<std::string> LockstepWith(const std::vector<std::string>& args) {
  std::vector<std::string> argv{LOCKSTEP_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

const char* LockstepBinary() { return LOCKSTEP_BINARY; }

ProcessResult RunLockstep(const std::vector<std::string>& args) {
  return Run(LockstepWith(args), 0);
}

ProcessResult RunLockstepWithin(const std::vector<std::string>& args, size_t max_bytes) {
  return Run(LockstepWith(args), max_bytes);
}

ProcessResult RunProgram(const std::vector<std::string>& argv) { return Run(argv, 0); }

pid_t SpawnProgram(const std::vector<std::string>& argv, const std::string& out,
                   const std::string& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<std::string> copy = argv;
    std::vector<char*> args;
    for (auto& a : copy) args.push_back(a.data());
    args.push_back(nullptr);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

long CpuTicks(pid_t pid) {
  // ReadText, which gives "" for a process that ends as it is read.
  const std::string text = ReadText("/proc/" + std::to_string(pid) + "/stat");
  if (text.rfind(')') == std::string::npos) return 0;
  // Fields after the command name, which is in parentheses and may hold spaces.
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

#ifdef LOCKSTEP_MPIEXEC
std::vector<std::string> MpirunArgv(int ranks, const std::vector<std::string>& args,
                                    bool prompt_exit) {
  std::vector<std::string> argv;
  if (kAddressSanitizer) {
    const char* options = std::getenv("ASAN_OPTIONS");
    argv = {"/usr/bin/env",
            std::string("ASAN_OPTIONS=") + (options ? options : "") + ":detect_leaks=0"};
  }
  for (const std::string& word : {std::string(LOCKSTEP_MPIEXEC), std::string("-np"),
                                  std::to_string(ranks), std::string("--oversubscribe")}) {
    argv.push_back(word);
  }
  if (geteuid() == 0) argv.push_back("--allow-run-as-root");  // Open MPI refuses root otherwise
  if (prompt_exit) {
    for (const char* word : {"--mca", "odls_base_sigkill_timeout", "0"}) argv.push_back(word);
  }
  argv.push_back(LOCKSTEP_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

ProcessResult RunOnRanks(int ranks, const std::vector<std::string>& args, bool prompt_exit) {
  return RunProgram(MpirunArgv(ranks, args, prompt_exit));
}
#endif

std::optional<nlohmann::json> SetnxPortFor(const std::string& built_in) {
  if (built_in != "setnx-naive" && built_in != "setnx-getset") return std::nullopt;
  const std::string src = SourceDir();
  return nlohmann::json{{"process",
                         {{"command", {"/usr/bin/python3", src + "/tests/process/setnx_port.py"}},
                          {"env",
                           {{"TAKEOVER", built_in == "setnx-naive" ? "naive" : "getset"},
                            {"PYTHONPATH", src + "/examples/real-clients"}}},
                          {"draws_numbers", false}}}};
}

std::string WriteEndlessRun(const TempDir& dir) {
  nlohmann::json s = nlohmann::json::parse(ReadText(ScenarioPath("set-px-script-safe.json")));
  s["clients"] = nlohmann::json::array();
  for (int i = 1; i <= 8; ++i) {
    s["clients"].push_back({{"name", "C" + std::to_string(i)}, {"algorithm", "set-px-script"}});
  }
  s["lock"]["rounds"] = 1000;
  s["clock"]["horizon"] = 10'000'000;
  s["max_steps"] = 10'000'000;
  return dir.Write("endless.json", s.dump());
}

}  // namespace lockstep::testing
