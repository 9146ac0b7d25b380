// What a process client sees and who may speak for it: only the program's
// own connections are served (another local process reaching its port
// changes nothing), its HOME is the same in every run, a static binary is
// named at once, and out-of-range lockstep: arguments are refused.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

// A one-client scenario in `dir` whose client runs `command`.
std::string IsolationScenario(const TempDir& dir, const std::vector<std::string>& command,
                              const std::string& script = "") {
  dir.Write("lockstep_client.py",
            testing::ReadText(testing::SourceDir() + "/examples/real-clients/lockstep_client.py"));
  if (!script.empty()) dir.Write("client.py", script);
  const nlohmann::json scenario = {
      {"name", "isolation"},
      {"clients",
       {{{"name", "C1"},
         {"may_never_enter", true},
         {"algorithm", {{"process", {{"command", command}, {"timeout_seconds", 60}}}}}}}},
      {"lock", {{"key", "k"}, {"ttl", 2}}},
      {"clock", {{"start", 0}, {"horizon", 2}}},
      {"properties", {"mutual_exclusion"}},
      {"expect", "safe"}};
  return dir.Write("scenario.json", scenario.dump(2));
}

constexpr const char* kIsolationConnect =
    "import os, redis, lockstep_client as l\n"
    "r = redis.Redis.from_url(l.redis_url())\n";

TEST_CASE("a connection another process makes to a client's port is not served", "[process]") {
  TempDir dir;
  // The first run says its port and waits (where the shim cannot see) until
  // the test has sent a SET on a connection of its own.
  const std::string s = IsolationScenario(
      dir, {"/usr/bin/python3", "client.py"},
      std::string(kIsolationConnect) +
          "r.ping()\n"
          "try:\n"
          "    os.close(os.open('claim', os.O_WRONLY | os.O_CREAT | os.O_EXCL))\n"
          "    with open('port.tmp', 'w') as f: f.write(os.environ['LOCKSTEP_REDIS_PORTS'])\n"
          "    os.rename('port.tmp', 'port')\n"
          "    while not os.path.exists('injected'): os.sched_yield()\n"
          "except FileExistsError:\n"
          "    pass\n"
          "assert r.get('k') is None, 'planted'\n");
  const pid_t lockstep = testing::SpawnProgram({LOCKSTEP_BINARY, "explore", "--allow-programs", s},
                                               dir.File("stdout"), dir.File("stderr"));
  for (int i = 0; i < 600 && !std::ifstream(dir.File("port")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  int port = 0;
  std::ifstream(dir.File("port")) >> port;
  REQUIRE(port > 0);
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const std::string planted = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$7\r\nplanted\r\n";
  REQUIRE(send(fd, planted.data(), planted.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(planted.size()));
  // In lockstep's kernel before the client goes on.
  int unacked = 1;
  for (int i = 0; i < 10000 && ioctl(fd, SIOCOUTQ, &unacked) == 0 && unacked > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  dir.Write("injected", "");
  const int code = testing::Wait(lockstep);
  INFO(testing::ReadText(dir.File("stdout")) << testing::ReadText(dir.File("stderr")));
  CHECK(code == 0);
  // Never answered: closed with the session.
  char reply[256];
  pollfd in{fd, POLLIN, 0};
  std::string got;
  while (poll(&in, 1, 0) == 1) {
    const ssize_t n = recv(fd, reply, sizeof reply, MSG_DONTWAIT);
    if (n <= 0) break;
    got.append(reply, static_cast<size_t>(n));
  }
  close(fd);
  CHECK(got.empty());
}

TEST_CASE("a process's HOME is the same in every run", "[process]") {
  TempDir dir;
  const std::string s =
      IsolationScenario(dir, {"/usr/bin/python3", "client.py"},
                        std::string(kIsolationConnect) + "r.set('k', os.environ['HOME'])\n");
  const auto a =
      RunLockstep({"run", "--allow-programs", s, "--seed", "1", "--trace-out", dir.File("a.json")});
  const auto b =
      RunLockstep({"run", "--allow-programs", s, "--seed", "1", "--trace-out", dir.File("b.json")});
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(testing::ReadText(dir.File("a.json")) == testing::ReadText(dir.File("b.json")));
}

TEST_CASE("a statically linked program is named at once, a script's interpreter too", "[process]") {
  // glibc's ldconfig is statically linked.
  if (!std::filesystem::exists("/sbin/ldconfig")) return;
  TempDir dir;
  const std::string s = IsolationScenario(dir, {"/sbin/ldconfig", "-p"});
  const auto r = RunLockstep({"explore", "--allow-programs", s});
  CHECK(r.exit_code == 2);
  CHECK(Has(r.err,
            "/sbin/ldconfig is statically linked, so liblockstep_client.so cannot be "
            "loaded into it"));
  const std::string script = dir.Write("script", "#!/sbin/ldconfig -p\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const auto via = RunLockstep({"explore", "--allow-programs", IsolationScenario(dir, {script})});
  CHECK(via.exit_code == 2);
  CHECK(Has(via.err, "/sbin/ldconfig is statically linked"));
}

TEST_CASE("a lockstep: argument out of the clock's range is refused", "[process]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"r.set('k', 'lockstep:clock+9223372036854775807')\n",
       "lockstep:clock+9223372036854775807: the offset from the clock must lie within"},
      {"r.set('k', '1')\nr.echo('lockstep:enter 9223372036854775807')\n",
       "ECHO lockstep:enter with an integer from -1000000000000 to 1000000000000"},
      {"r.set('k', '1')\nr.echo('lockstep:renew -9223372036854775808')\n",
       "ECHO lockstep:renew with an integer from"},
      {"r.set('k', '1')\nr.echo('lockstep:write 9223372036854775807')\n",
       "ECHO lockstep:write with an integer from -9007199254740992 to 9007199254740992"},
  };
  for (const auto& [script, message] : cases) {
    TempDir dir;
    const std::string s = IsolationScenario(dir, {"/usr/bin/python3", "client.py"},
                                            std::string(kIsolationConnect) + script);
    const auto r = RunLockstep({"explore", "--allow-programs", s});
    INFO(script << r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(Has(r.err, message));
  }
}

}  // namespace
}  // namespace lockstep
