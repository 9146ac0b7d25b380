#include "sim/process/process_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sim/process/resp.h"
#include "sim/world/client.h"

namespace lockstep::process {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void SystemError(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

int Listen(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) SystemError("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    close(fd);
    errno = e;
    SystemError("cannot listen on loopback");
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

std::string EnvName(const std::string& setting) {
  std::string name = "LOCKSTEP_";
  for (char ch : setting)
    name += ch == '.' || ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
  return name;
}

}  // namespace

ProcessSession::ProcessSession(const ProcessProgram& program, const nlohmann::json& settings,
                               const std::string& client, uint64_t random_seed)
    : program_(program), client_(client) {
  std::string tmpl = (fs::temp_directory_path() / "lockstep-client-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) SystemError("mkdtemp");
  dir_ = tmpl;
  int instances = settings.value("instances", 1);
  if (settings.contains("token_instance")) {
    instances = std::max(instances, settings["token_instance"].get<int>());
  }
  std::string urls, ports;
  for (int i = 0; i < instances; ++i) {
    int port = 0;
    listeners_.push_back(Listen(&port));
    ports_.push_back(port);
    const std::string url = "redis://127.0.0.1:" + std::to_string(port) + "/0";
    urls += (i ? " " : "") + url;
    ports += (i ? " " : "") + std::to_string(port);
  }
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) SystemError("socketpair");
  control_ = pair[0];
  control_child_ = pair[1];
  clock_fd_ = memfd_create("lockstep-clock", MFD_CLOEXEC);
  if (clock_fd_ < 0 || ftruncate(clock_fd_, 4096) != 0) SystemError("memfd_create");
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, clock_fd_, 0);
  if (page == MAP_FAILED) SystemError("mmap");
  clock_ = static_cast<ClockPage*>(page);

  // A clean environment: what the scenario says, and what lockstep gives.
  const std::string shim = FindClientShim();
  if (shim.empty()) {
    throw world::RuleBroken(
        "liblockstep_client.so was not found beside lockstep (or in $LOCKSTEP_CLIENT_SHIM)");
  }
  const char* path = std::getenv("PATH");
  std::map<std::string, std::string> env = {{"PATH", path ? path : "/usr/local/bin:/usr/bin:/bin"},
                                            {"LANG", "C.UTF-8"},
                                            {"HOME", dir_},
                                            {"LOCKSTEP_REDIS_URL", urls.substr(0, urls.find(' '))},
                                            {"LOCKSTEP_REDIS_URLS", urls},
                                            {"LOCKSTEP_REDIS_PORTS", ports},
                                            {"LOCKSTEP_SETTINGS", settings.dump()}};
  // Its name only for a program that may act on it: clients of one that
  // declares it draws no numbers are interchangeable.
  if (program.draws_numbers) env["LOCKSTEP_CLIENT"] = client;
  for (const auto& [key, value] : settings.items()) {
    if (value.is_string()) env[EnvName(key)] = value.get<std::string>();
    if (value.is_number_integer()) env[EnvName(key)] = std::to_string(value.get<int64_t>());
    if (value.is_boolean()) env[EnvName(key)] = value.get<bool>() ? "1" : "0";
  }
  for (const auto& [key, value] : program.env) env[key] = value;
  env["LD_PRELOAD"] = shim;
  env[kShimEnv] = std::to_string(kControlFd) + " " + std::to_string(kClockFd) + " " +
                  std::to_string(random_seed);
  for (const auto& [key, value] : env) env_.push_back(key + "=" + value);
}

ProcessSession::~ProcessSession() {
  child_.reset();  // killed and reaped first: nothing writes to what is closed next
  for (const Connection& c : connections_) {
    if (c.fd >= 0) close(c.fd);
  }
  for (int fd : listeners_) close(fd);
  for (int fd : {control_, control_child_, clock_fd_}) {
    if (fd >= 0) close(fd);
  }
  if (clock_ != nullptr) munmap(clock_, 4096);
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

void ProcessSession::SetClock(int64_t millis) {
  __atomic_store_n(&clock_->nanos, millis * 1'000'000, __ATOMIC_RELEASE);
}

std::string ProcessSession::Describe() const {
  std::string text = client_ + "'s process (";
  for (size_t i = 0; i < program_.command.size(); ++i) {
    text += (i ? " " : "") + program_.command[i];
  }
  return text + ")";
}

std::string ProcessSession::Tail(size_t max_bytes) const {
  return process::Tail(dir_ + "/output", max_bytes);
}

std::string ProcessSession::Output(size_t max_bytes) const {
  const std::string tail = Tail(max_bytes);
  return tail.empty() ? " (it wrote nothing to stdout or stderr)"
                      : "; the end of its stdout and stderr:\n" + tail;
}

void ProcessSession::EndedEarly(int status) const {
  throw world::RuleBroken(Describe() + " " + ExitText(status) + " before it made a request" +
                          Output(2048));
}

void ProcessSession::Silent() const {
  throw world::RuleBroken(
      Describe() + " did nothing lockstep could see for " +
      std::to_string(program_.timeout_seconds) +
      " s: it sent no command, did not sleep and did not end (does it connect to "
      "$LOCKSTEP_REDIS_URL? is it a static binary, or started by another program, which "
      "liblockstep_client.so does not reach?)" +
      Output(2048));
}

void ProcessSession::Start() {
  // Loading refused it already (scenario/program_trust.h): reaching here is a bug.
  if (!program_.allowed) throw std::logic_error(Describe() + " may not start: nobody allowed it");
  ChildSpec spec;
  spec.argv = program_.command;
  spec.argv[0] = program_.program;
  spec.env = env_;
  spec.cwd = program_.cwd;
  spec.fds = {{control_child_, kControlFd}, {clock_fd_, kClockFd}};
  spec.output = dir_ + "/output";
  child_ = std::make_unique<ChildProcess>(spec);
  close(control_child_);
  control_child_ = -1;
  ShimMessage hello{};
  size_t got = 0;
  const int timeout_ms = program_.timeout_seconds * 1000;
  while (got < sizeof hello) {
    pollfd fds[2] = {{control_, POLLIN, 0}, {child_->exit_fd(), POLLIN, 0}};
    const int r = poll(fds, 2, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) Silent();
    if (fds[0].revents != 0) {
      const ssize_t n = read(control_, reinterpret_cast<char*>(&hello) + got, sizeof hello - got);
      if (n > 0) {
        got += static_cast<size_t>(n);
        continue;
      }
    }
    int status = 0;
    while (!child_->Ended(&status)) {
      poll(fds + 1, 1, timeout_ms);
    }
    EndedEarly(status);
  }
  if (hello.call != static_cast<uint32_t>(ShimCall::kHello)) {
    throw world::RuleBroken(Describe() + " spoke to lockstep before its shim said it was loaded");
  }
}

void ProcessSession::Accept() {
  for (size_t i = 0; i < listeners_.size(); ++i) {
    for (;;) {
      const int fd = accept4(listeners_[i], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) break;
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
      Connection c;
      c.fd = fd;
      c.instance = static_cast<int>(i);
      c.state.id = static_cast<int64_t>(connections_.size()) + 1;
      connections_.push_back(std::move(c));
    }
  }
}

bool ProcessSession::ReadOne(Connection& c) {
  char buffer[65536];
  // What the process sends next is acknowledged at once, so that its shim's
  // check that it arrived (shim_protocol.h) returns at once.
  const int one = 1;
  setsockopt(c.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
  for (;;) {
    const ssize_t n = recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n > 0) {
      c.in.append(buffer, static_cast<size_t>(n));
      if (c.in.size() > kMaxPendingBytes) {
        throw world::RuleBroken(Describe() + " sent more than " +
                                std::to_string(kMaxPendingBytes >> 20) +
                                " MiB that is not a whole command");
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    // Closed by the process (or broken): closed here too, as Redis does,
    // the end delivered before the process is answered again.
    shutdown(c.fd, SHUT_WR);
    Delivered(c.fd);
    close(c.fd);
    c.fd = -1;
    closed_ = true;
    return false;
  }
}

void ProcessSession::ReadAll() {
  Accept();
  for (Connection& c : connections_) {
    if (c.fd >= 0) ReadOne(c);
  }
}

ProcessSession::Event ProcessSession::Next() {
  const int timeout_ms = program_.timeout_seconds * 1000;
  for (;;) {
    std::vector<pollfd> fds = {{control_, POLLIN, 0}, {child_->exit_fd(), POLLIN, 0}};
    for (int fd : listeners_) fds.push_back({fd, POLLIN, 0});
    for (const Connection& c : connections_) {
      if (c.fd >= 0) fds.push_back({c.fd, POLLIN, 0});
    }
    const int r = poll(fds.data(), fds.size(), timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) SystemError("poll");
    if (r == 0) Silent();
    ReadAll();
    if (fds[0].revents != 0) {
      ShimMessage m{};
      size_t got = 0;
      while (got < sizeof m) {
        const ssize_t n = read(control_, reinterpret_cast<char*>(&m) + got, sizeof m - got);
        if (n > 0) {
          got += static_cast<size_t>(n);
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else {
          break;  // the process is ending: its exit says how
        }
      }
      if (got == sizeof m) {
        if (m.call == static_cast<uint32_t>(ShimCall::kSleep)) {
          return {Event::Kind::kSleep, m.nanos, 0};
        }
        if (m.call == static_cast<uint32_t>(ShimCall::kWait)) {
          return {Event::Kind::kWait, m.nanos, 0};
        }
        if (m.call == static_cast<uint32_t>(ShimCall::kClock)) return {Event::Kind::kClock, 0, 0};
        throw world::RuleBroken(Describe() +
                                " sent lockstep a message its shim never sends (call " +
                                std::to_string(m.call) + ")");
      }
      int status = 0;
      while (!child_->Ended(&status)) {
        pollfd exit{child_->exit_fd(), POLLIN, 0};
        if (poll(&exit, 1, timeout_ms) == 0) Silent();
      }
      return {Event::Kind::kEnded, 0, status};
    }
    int status = 0;
    if (fds[1].revents != 0 && child_->Ended(&status)) return {Event::Kind::kEnded, 0, status};
  }
}

std::optional<ProcessSession::Command> ProcessSession::TakeCommand() {
  ReadAll();
  for (size_t i = 0; i < connections_.size(); ++i) {
    Connection& c = connections_[i];
    while (std::optional<ParsedCommand> parsed = process::TakeCommand(c.in)) {
      if (parsed->argv.empty() && parsed->error.empty()) continue;  // an empty line
      return Command{static_cast<int>(i), c.instance, std::move(parsed->argv),
                     std::move(parsed->error)};
    }
  }
  return std::nullopt;
}

void ProcessSession::Write(int index, const std::string& bytes, bool close_after) {
  Connection& c = connections_[index];
  size_t sent = 0;
  while (c.fd >= 0 && sent < bytes.size()) {
    const ssize_t n = send(c.fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd out{c.fd, POLLOUT, 0};
      if (poll(&out, 1, program_.timeout_seconds * 1000) == 0) Silent();
    } else if (!(n < 0 && errno == EINTR)) {
      break;  // the process closed it: it reads no more replies there
    }
  }
  if (c.fd >= 0) Delivered(c.fd);
  if (close_after && c.fd >= 0) {
    close(c.fd);
    c.fd = -1;
  }
}

void ProcessSession::Delivered(int fd) const {
  // A loopback send is acknowledged once the process has it: then its next
  // read finds what was sent, whatever the machine's load.
  int unacked = 0;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(program_.timeout_seconds);
  while (ioctl(fd, SIOCOUTQ, &unacked) == 0 && unacked > 0) {
    if (std::chrono::steady_clock::now() > deadline) Silent();
    sched_yield();
  }
}

bool ProcessSession::TakeClosed() {
  ReadAll();
  return std::exchange(closed_, false);
}

void ProcessSession::Answer(char answer) {
  // A process that has ended reads nothing: its end is the next event.
  while (send(control_, &answer, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

}  // namespace lockstep::process
