// A client that becomes another program by execve keeps the shim: a
// scenario whose command is `sh -c 'exec python3 client.py'`, or a
// `#!/usr/bin/env python3` script, is searched as `python3 client.py` is.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using nlohmann::json;
using testing::TempDir;

// The client: SET, a sleep, GET, over a plain socket.
constexpr const char* kClient =
    "import os, re, socket, time\n"
    "host, port = re.match(r'redis://([^:/]+):(\\d+)', os.environ['LOCKSTEP_REDIS_URL']).groups()\n"
    "s = socket.create_connection((host, int(port)))\n"
    "def call(*args):\n"
    "    s.sendall(b'*%d\\r\\n' % len(args) + b''.join(b'$%d\\r\\n%s\\r\\n' % (len(a), a) "
    "for a in args))\n"
    "    return s.recv(100)\n"
    "call(b'SET', b'k', b'%d' % int(time.time() * 1000))\n"
    "time.sleep(0.002)\n"
    "call(b'GET', b'k')\n";

json Explore(const TempDir& dir, const std::vector<std::string>& command) {
  const json scenario = {
      {"name", "exec"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm", {{"process", {{"command", command}, {"timeout_seconds", 5}}}}},
         {"may_never_enter", true}},
        {{"name", "C2"},
         {"algorithm", {{"process", {{"command", command}, {"timeout_seconds", 5}}}}},
         {"may_never_enter", true}}}},
      {"lock", {{"key", "k"}}},
      {"clock", {{"start", 0}, {"horizon", 4}}},
      {"expect", "safe"}};
  const std::string path = dir.Write("scenario.json", scenario.dump(2));
  const testing::ProcessResult r =
      testing::RunLockstep({"explore", "--allow-programs", path, "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

TEST_CASE("a client that execs another program keeps the shim", "[process]") {
  TempDir dir;
  dir.Write("client.py", kClient);
  const std::string script = dir.Write("client", std::string("#!/usr/bin/env python3\n") + kClient);
  chmod(script.c_str(), 0755);
  const json direct = Explore(dir, {"/usr/bin/python3", "client.py"});
  CHECK(direct["states"].get<int>() > 2);
  const json shell = Explore(dir, {"/bin/sh", "-c", "exec /usr/bin/python3 client.py"});
  CHECK(shell["states"] == direct["states"]);
  CHECK(shell["transitions"] == direct["transitions"]);
  const json env = Explore(dir, {"./client"});
  CHECK(env["states"] == direct["states"]);
  CHECK(env["transitions"] == direct["transitions"]);
}

}  // namespace
}  // namespace lockstep
