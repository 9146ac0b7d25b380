// What a client's program uses is bounded: its memory, and what it started,
// counts in --max-memory, and its output file keeps only the tail of what
// it wrote, whose last line is still reported.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::Has;
using testing::RunLockstep;
using testing::TempDir;

std::string OneProgram(const TempDir& dir, const std::string& script, int timeout_seconds) {
  dir.Write("client.py", script);
  const nlohmann::json scenario = {{"name", "bounds"},
                                   {"clients",
                                    {{{"name", "C1"},
                                      {"algorithm",
                                       {{"process",
                                         {{"command", {"/usr/bin/python3", "client.py"}},
                                          {"timeout_seconds", timeout_seconds}}}}}}}},
                                   {"lock", {{"key", "k"}}},
                                   {"clock", {{"start", 0}, {"horizon", 2}}},
                                   {"expect", "safe"}};
  return dir.Write("scenario.json", scenario.dump(2));
}

TEST_CASE("what a client's program holds counts in --max-memory", "[process]") {
  TempDir dir;
  // A child of the client holds 1 GiB, the client waits for ever.
  const std::string s = OneProgram(dir,
                                   "import os, subprocess\n"
                                   "subprocess.Popen(['/usr/bin/python3', '-c', "
                                   "'import os\\ndata = b\"x\" * (1 << 30)\\nos.read(0, 1)'], "
                                   "stdin=subprocess.PIPE)\n"
                                   "r, w = os.pipe()\n"
                                   "os.read(r, 1)\n",
                                   10);
  const auto r = RunLockstep({"explore", "--allow-programs", s, "--max-memory", "200M"});
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(Has(r.err, "search stopped by the memory bound (--max-memory 200 MiB)"));
}

TEST_CASE("a program's output file keeps the tail, whose last line is reported", "[process]") {
  TempDir dir;
  // 50 MiB on stderr, then the size of the output file (in the session's
  // folder, under the TMPDIR lockstep is given).
  const std::string tmp = dir.File("tmp");
  std::filesystem::create_directory(tmp);
  const std::string s = OneProgram(dir,
                                   "import glob, os, sys\n"
                                   "chunk = b'y' * 65535 + b'\\n'\n"
                                   "for _ in range(800): os.write(2, chunk)\n"
                                   "size = os.path.getsize(glob.glob('" +
                                       tmp +
                                       "/lockstep-client-*/output')[0])\n"
                                       "os.write(2, b'the output file holds %d bytes\\n' % size)\n"
                                       "sys.exit(3)\n",
                                   120);
  const auto r = testing::RunProgram({"/usr/bin/env", "TMPDIR=" + tmp, testing::LockstepBinary(),
                                      "explore", "--allow-programs", s});
  CHECK(r.exit_code == 2);
  const std::string said = "the end of its stdout and stderr:\nthe output file holds ";
  REQUIRE(Has(r.err, said));
  const long size = std::atol(r.err.c_str() + r.err.find(said) + said.size());
  CHECK(size <= 128 * 1024);
}

}  // namespace
}  // namespace lockstep
