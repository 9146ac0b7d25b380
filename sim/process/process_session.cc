#include "sim/process/process_session.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sim/base/printable.h"
#include "sim/process/resp.h"
#include "sim/process/session_wait.h"
#include "sim/process/static_program.h"
#include "sim/process/system_error.h"
#include "sim/world/client.h"

namespace lockstep::process {
namespace {

namespace fs = std::filesystem;

// The process's HOME: the same path in every run (a program may send it),
// and one nobody can create, so that every run finds it alike: missing. A
// folder of its own would differ between runs, and one path shared by
// every run would let runs at the same time (parked processes, --jobs,
// another lockstep) see each other's files.
constexpr const char* kHome = "/nonexistent/lockstep-home";

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
  connections_ = std::make_unique<Connections>(instances, Describe(), [this] { Silent(); });
  std::string urls, ports;
  for (int i = 0; i < instances; ++i) {
    const int port = connections_->ports()[static_cast<size_t>(i)];
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
                                            {"HOME", kHome},
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
  connections_.reset();
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
      (connections_ && connections_->held() > 0
           ? "; a connection its shim did not name (a connect without libc's connect?) was "
             "not served"
           : "") +
      Output(2048));
}

void ProcessSession::Start() {
  // Loading refused it already (scenario/program_trust.h): reaching here is a bug.
  if (!program_.allowed) throw std::logic_error(Describe() + " may not start: nobody allowed it");
  // Without the shim, the program would be silent until its time is up.
  std::string path;
  for (const std::string& e : env_) {
    if (e.starts_with("PATH=")) path = e.substr(5);
  }
  if (const std::string why = WhyNotPreloadable(program_.program, path, program_.cwd);
      !why.empty()) {
    throw world::RuleBroken(Describe() + ": " + base::Printable(why) +
                            ", so liblockstep_client.so cannot be loaded into it and lockstep "
                            "would see nothing it does");
  }
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
  const Deadline deadline(program_.timeout_seconds);
  while (got < sizeof hello) {
    pollfd fds[2] = {{control_, POLLIN, 0}, {child_->exit_fd(), POLLIN, 0}};
    if (PollUntil(fds, 2, deadline) == 0) Silent();
    if (fds[0].revents != 0) {
      const ssize_t n = read(control_, reinterpret_cast<char*>(&hello) + got, sizeof hello - got);
      if (n > 0) {
        got += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
    }
    int status = 0;
    while (!child_->Ended(&status)) {
      if (PollUntil(fds + 1, 1, deadline) == 0) Silent();
    }
    EndedEarly(status);
  }
  if (hello.call != static_cast<uint32_t>(ShimCall::kHello)) {
    throw world::RuleBroken(Describe() + " spoke to lockstep before its shim said it was loaded");
  }
}

std::optional<ShimMessage> ProcessSession::ReadMessage() {
  ShimMessage m{};
  size_t got = 0;
  while (got < sizeof m) {
    const ssize_t n = read(control_, reinterpret_cast<char*>(&m) + got, sizeof m - got);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return std::nullopt;  // the process is ending: its exit says how
    }
  }
  return m;
}

ProcessSession::Event ProcessSession::Next() {
  std::optional<Deadline> deadline(program_.timeout_seconds);
  for (;;) {
    // On the heap, not the fiber's stack, as every buffer a system call
    // fills here: AddressSanitizer's view of a fiber's stack can be stale.
    std::vector<pollfd> fds = {
        {control_, POLLIN, 0}, {child_->exit_fd(), POLLIN, 0}, {connections_->fd(), POLLIN, 0}};
    if (PollUntil(fds.data(), fds.size(), *deadline) == 0) Silent();
    connections_->ReadAll();
    if (fds[0].revents != 0) {
      const std::optional<ShimMessage> m = ReadMessage();
      if (m && m->call == static_cast<uint32_t>(ShimCall::kConnect)) {
        connections_->Named(static_cast<uint64_t>(m->nanos));
        continue;
      }
      if (m && m->call == static_cast<uint32_t>(ShimCall::kWait)) {
        // Waiting for the rest of a reply: let go to read it, no step.
        if (!connections_->HasCommand() && !connections_->closed() &&
            connections_->Progressed(*deadline)) {
          Answer(kData);
          deadline.emplace(program_.timeout_seconds);
          continue;
        }
        return {Event::Kind::kWait, m->nanos, 0};
      }
      if (m && m->call == static_cast<uint32_t>(ShimCall::kSleep)) {
        return {Event::Kind::kSleep, m->nanos, 0};
      }
      if (m && m->call == static_cast<uint32_t>(ShimCall::kClock)) {
        return {Event::Kind::kClock, 0, 0};
      }
      if (m) {
        throw world::RuleBroken(Describe() +
                                " sent lockstep a message its shim never sends (call " +
                                std::to_string(m->call) + ")");
      }
      int status = 0;
      while (!child_->Ended(&status)) {
        pollfd exit{child_->exit_fd(), POLLIN, 0};
        if (PollUntil(&exit, 1, *deadline) == 0) Silent();
      }
      return {Event::Kind::kEnded, 0, status};
    }
    int status = 0;
    if (fds[1].revents != 0 && child_->Ended(&status)) return {Event::Kind::kEnded, 0, status};
  }
}

void ProcessSession::Answer(char answer) {
  connections_->Settle(Deadline(program_.timeout_seconds));
  // A process that has ended reads nothing: its end is the next event.
  while (send(control_, &answer, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

}  // namespace lockstep::process
