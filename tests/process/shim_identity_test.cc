// What would make two runs of a process client differ besides its clock is
// the same in every run: its process id, the bytes it reads from
// /dev/urandom and those getrandom gives. The search runs the client more
// than once from its start (a tick before or after its first command), and
// the automaton's determinism check holds every run to the first.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

TEST_CASE("a process's pid and random bytes are the same in every run of it", "[process]") {
  TempDir dir;
  dir.Write("lockstep_client.py",
            testing::ReadText(testing::SourceDir() + "/examples/real-clients/lockstep_client.py"));
  dir.Write("client.py",
            "import os, redis, lockstep_client as l\n"
            "r = redis.Redis.from_url(l.redis_url())\n"
            "with open('/dev/urandom', 'rb', buffering=0) as f:\n"
            "    device = f.read(8).hex()\n"
            "r.set('k', '%d %s %s' % (os.getpid(), device, os.urandom(4).hex()))\n"
            "r.get('k')\n");
  const nlohmann::json scenario = {
      {"name", "identity"},
      {"clients",
       {{{"name", "C1"},
         {"algorithm", {{"process", {{"command", {"/usr/bin/python3", "client.py"}}}}}},
         {"may_never_enter", true}}}},
      {"lock", {{"key", "k"}}},
      {"clock", {{"start", 0}, {"horizon", 2}}},
      {"expect", "safe"}};
  const std::string path = dir.Write("scenario.json", scenario.dump());
  const auto explored = RunLockstep({"explore", "--allow-programs", path});
  INFO(explored.err);
  CHECK(explored.exit_code == 0);
  CHECK(Has(explored.out, "SAFE"));
  // The virtual pid; the bytes differ between the device and getrandom.
  const auto run =
      RunLockstep({"run", "--allow-programs", path, "--seed", "1", "--compact", "--width", "0"});
  CHECK(Has(run.out, "C1 SET k 4194304 "));
}

}  // namespace
}  // namespace lockstep
