#include "tests/redis/redis_server.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

namespace lockstep::testing {
namespace {

// What a signal handler needs to clean up, in plain arrays: a handler may
// only make async-signal-safe calls (kill, unlink, rmdir).
struct Live {
  std::atomic<pid_t> pid{0};
  char log[4096] = {};
  char dir[4096] = {};
};
std::array<Live, 8> g_live;
std::atomic<bool> g_handlers_installed{false};

void OnSignal(int sig) {
  for (Live& l : g_live) {
    const pid_t pid = l.pid.exchange(0);
    if (pid <= 0) continue;
    kill(pid, SIGKILL);
    unlink(l.log);
    rmdir(l.dir);
  }
  // Then the signal's usual course: the process ends by it.
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallHandlers() {
  if (g_handlers_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

Live* Register(pid_t pid, const std::string& log, const std::string& dir) {
  for (Live& l : g_live) {
    if (l.pid.load() != 0) continue;
    std::snprintf(l.log, sizeof(l.log), "%s", log.c_str());
    std::snprintf(l.dir, sizeof(l.dir), "%s", dir.c_str());
    l.pid.store(pid);
    return &l;
  }
  return nullptr;
}

void Unregister(pid_t pid) {
  for (Live& l : g_live) {
    pid_t expected = pid;
    l.pid.compare_exchange_strong(expected, 0);
  }
}

std::string FindBinary() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(std::string(path ? path : "") + ":/usr/bin:/usr/local/bin:/usr/sbin");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    if (d.empty()) continue;
    std::string candidate = d + "/redis-server";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A port nobody listens on now: bind port 0 on loopback and read it back.
// Another process could take it before the server binds; TryStart's caller
// retries for that.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
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

}  // namespace

RedisServer::RedisServer() {
  const std::string binary = FindBinary();
  if (binary.empty()) {
    throw std::runtime_error(
        "redis-server is not installed; these tests need a real server: run "
        "`bash .ci/install-deps` (as root) to install it");
  }
  InstallHandlers();
  std::string error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (TryStart(binary, &error)) return;
  }
  throw std::runtime_error("cannot start redis-server: " + error);
}

RedisServer::~RedisServer() { Stop(); }

bool RedisServer::TryStart(const std::string& binary, std::string* error) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "lockstep-redis-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    *error = std::string("mkdtemp: ") + std::strerror(errno);
    return false;
  }
  dir_ = tmpl;
  port_ = FreePort();
  const std::string log = dir_ + "/redis.log";
  std::vector<std::string> args = {binary,   "--port",       std::to_string(port_),
                                   "--bind", "127.0.0.1",    "--save",
                                   "",       "--appendonly", "no",
                                   "--dir",  dir_,           "--daemonize",
                                   "no",     "--logfile",    log};
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid_ == 0) {
    // Dies with the test process, however that ends.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  Register(pid_, log, dir_);

  // Bounded: 5 s in 10 ms steps.
  for (int i = 0; i < 500; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      Unregister(pid_);
      pid_ = -1;
      *error = "redis-server exited at once; its log:\n" + ReadLog(log);
      std::filesystem::remove_all(dir_);
      return false;
    }
    std::string ignored;
    auto c = cli::RedisConnection::Connect("127.0.0.1", port_, 200, &ignored);
    if (c) {
      auto pong = c->Command({"PING"}, &ignored);
      if (pong && pong->text == "PONG") return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *error = "redis-server did not answer PING within 5 s; its log:\n" + ReadLog(log);
  Stop();
  return false;
}

void RedisServer::Stop() {
  if (pid_ > 0) {
    Unregister(pid_);
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

std::unique_ptr<cli::RedisConnection> RedisServer::Connect() const {
  std::string error;
  auto c = cli::RedisConnection::Connect("127.0.0.1", port_, 5000, &error);
  if (!c) throw std::runtime_error("cannot connect to redis-server at " + address() + ": " + error);
  return c;
}

}  // namespace lockstep::testing
