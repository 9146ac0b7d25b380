#include "sim/replay/redis_process.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sim/replay/replay_user.h"
#include "sim/run/stop_signals.h"

namespace lockstep::replay {
namespace {

namespace fs = std::filesystem;

// A port nobody listens on now: bind port 0 on loopback and read it back.
// Another process could take it before the server binds; the constructor
// retries for that.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw std::runtime_error(std::string("cannot find a free port: ") + std::strerror(errno));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Executable(const fs::path& p) { return access(p.c_str(), X_OK) == 0; }

}  // namespace

std::string FindRedisServer() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(std::string(path ? path : "") + ":/usr/bin:/usr/local/bin:/usr/sbin");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    if (!d.empty() && Executable(fs::path(d) / "redis-server")) return d + "/redis-server";
  }
  return "";
}

std::string FindClockShim() {
  const char* named = std::getenv("LOCKSTEP_CLOCK_SHIM");
  if (named != nullptr && *named != '\0') return fs::exists(named) ? named : "";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path bin = exe.parent_path();
  std::vector<fs::path> candidates = {
      bin / "liblockstep_clock.so",
      bin.parent_path() / "lib" / "lockstep" / "liblockstep_clock.so"};
  // Debian's multiarch library folders (lib/x86_64-linux-gnu/lockstep).
  for (const auto& e : fs::directory_iterator(bin.parent_path() / "lib", ec)) {
    candidates.push_back(e.path() / "lockstep" / "liblockstep_clock.so");
  }
  for (const fs::path& p : candidates) {
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

RedisProcess::RedisProcess(RedisProcessOptions options) : options_(std::move(options)) {
  std::string tmpl = (fs::temp_directory_path() / "lockstep-redis-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  }
  dir_ = tmpl;
  try {
    if (options_.controlled_clock) {
      const std::string file = dir_ + "/clock";
      const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0 || ftruncate(fd, sizeof(int64_t)) != 0) {
        if (fd >= 0) close(fd);
        throw std::runtime_error("cannot create the clock file " + file + ": " +
                                 std::strerror(errno));
      }
      void* p = mmap(nullptr, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      close(fd);
      if (p == MAP_FAILED) {
        throw std::runtime_error("cannot map the clock file: " + std::string(std::strerror(errno)));
      }
      clock_ = static_cast<int64_t*>(p);
    }
    if (options_.replay_user) WriteUsers();
    std::string error;
    bool retry = true;
    for (int attempt = 0; attempt < 3 && retry; ++attempt) {
      port_ = FreePort();
      retry = false;
      if (TryStart(&error, &retry)) return;
    }
    throw std::runtime_error("cannot start " + options_.binary + ": " + error);
  } catch (...) {
    Cleanup();
    throw;
  }
}

RedisProcess::~RedisProcess() { Cleanup(); }

void RedisProcess::Cleanup() {
  Kill();
  if (clock_ != nullptr) munmap(clock_, sizeof(int64_t));
  clock_ = nullptr;
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    dir_.clear();
  }
}

// In a file of the server's folder (0700), not on its command line, where
// any local user could read the passwords.
void RedisProcess::WriteUsers() {
  admin_ = Credentials{"default", RandomPassword()};
  replay_user_ = Credentials{kReplayUser, RandomPassword()};
  std::string text = "user default on >" + admin_->password + " ~* &* +@all\n";
  text += "user " + replay_user_->user + " on >" + replay_user_->password;
  for (const std::string& rule : ReplayUserRules(/*setup=*/false)) text += " " + rule;
  text += "\n";
  const std::string file = dir_ + "/users.conf";
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool ok =
      fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) close(fd);
  if (!ok) throw std::runtime_error("cannot write " + file + ": " + std::strerror(errno));
}

void RedisProcess::SetClock(int64_t millis) {
  __atomic_store_n(clock_, millis * 1000, __ATOMIC_RELEASE);
}

void RedisProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void RedisProcess::Start() {
  std::string error;
  bool retry = false;
  if (!TryStart(&error, &retry))
    throw std::runtime_error("cannot restart " + options_.binary + ": " + error);
}

bool RedisProcess::TryStart(std::string* error, bool* retry) {
  const std::string log = dir_ + "/redis.log";
  const bool always = options_.persistence == RedisPersistence::kAlways;
  // Loopback only, no snapshots; the append-only file only when a restart
  // must keep every write. No DEBUG command: a replay never needs it, so no
  // trace could reach it. Active expiry stays on: with the wall clock at
  // the model's instant it removes only keys the model has removed already
  // (a master's clock never goes back), so no reply tells it from the
  // model's expiry.
  std::vector<std::string> args = {options_.binary};
  if (options_.replay_user) args.push_back(dir_ + "/users.conf");
  args.insert(args.end(), {"--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
                           "--appendonly", always ? "yes" : "no", "--appendfsync", "always",
                           "--dir", dir_, "--daemonize", "no", "--logfile", log});
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0 &&
        std::strncmp(*e, "LOCKSTEP_CLOCK_FILE=", 20) != 0)
      env.push_back(*e);
  }
  if (options_.controlled_clock) {
    const std::string shim = FindClockShim();
    if (shim.empty()) {
      *error = "liblockstep_clock.so was not found beside lockstep (or in $LOCKSTEP_CLOCK_SHIM)";
      return false;
    }
    env.push_back("LD_PRELOAD=" + shim);
    env.push_back("LOCKSTEP_CLOCK_FILE=" + dir_ + "/clock");
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    // Dies with lockstep, however that ends.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    // Nothing else of lockstep's: its connections to other servers stay its own.
    close_range(3, ~0U, 0);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(options_.binary.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  pid_ = pid;
  // Bounded: 10 s in 10 ms steps, and a stop signal ends the wait.
  for (int i = 0; i < 1000; ++i) {
    if (run::StopRequested()) {
      Kill();
      *error = std::string("stopped by ") + run::SignalName(run::StopSignal()) +
               " while waiting for it to answer";
      return false;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      *error = "it exited at once (" +
               (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                  : "signal " + std::to_string(WTERMSIG(status))) +
               "); its log:\n" + ReadLog(log);
      // Another process may have taken the port first: a new port can help.
      *retry = ReadLog(log).find("Address already in use") != std::string::npos;
      return false;
    }
    std::string ignored;
    auto c =
        RedisConnection::Connect("127.0.0.1", port_, 200, &ignored, admin_ ? &*admin_ : nullptr);
    if (c) {
      auto pong = c->Command({"PING"}, &ignored);
      // Another test's server may have taken the port between FreePort and
      // this one's bind: only a server with our child's pid is ours (ours
      // then exits with "Address already in use", and a new port is tried).
      if (pong && pong->text == "PONG" && ServesPid(*c, pid_)) {
        if (!options_.controlled_clock || ClockAnswers(*c, error)) return true;
        Kill();
        return false;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *error = "it did not answer PING within 10 s; its log:\n" + ReadLog(log);
  Kill();
  return false;
}

bool RedisProcess::ServesPid(RedisConnection& c, pid_t pid) {
  std::string ignored;
  std::optional<kv::Reply> info = c.Command({"INFO", "server"}, &ignored);
  if (!info) return false;
  const std::string field = "process_id:" + std::to_string(pid) + "\r\n";
  return info->text.str().find(field) != std::string::npos;
}

bool RedisProcess::ClockAnswers(RedisConnection& c, std::string* error) {
  // The instant lockstep wrote must be the one the server reads: a shim
  // that is not liblockstep_clock.so (or is not preloaded) leaves the server
  // on the machine's clock, and the replay would not be exact.
  const int64_t micros = __atomic_load_n(clock_, __ATOMIC_ACQUIRE);
  std::string failure;
  std::optional<kv::Reply> r = c.Command({"TIME"}, &failure);
  const std::string expected =
      std::to_string(micros / 1000000) + " " + std::to_string(micros % 1000000);
  const std::string got = !r ? failure
                          : r->type == kv::Reply::Type::kArray && r->elements.size() == 2
                              ? r->elements[0].text.str() + " " + r->elements[1].text.str()
                              : r->ToString();
  if (got == expected) return true;
  *error = "its clock is not the one lockstep sets: TIME answered " + got + ", expected " +
           expected + " (is " + FindClockShim() +
           " lockstep's liblockstep_clock.so? check $LOCKSTEP_CLOCK_SHIM)";
  return false;
}

std::unique_ptr<RedisConnection> RedisProcess::Connect() const {
  std::string error;
  auto c = RedisConnection::Connect("127.0.0.1", port_, 5000, &error, admin_ ? &*admin_ : nullptr);
  if (!c) throw std::runtime_error("cannot connect to redis-server at " + address() + ": " + error);
  return c;
}

}  // namespace lockstep::replay
