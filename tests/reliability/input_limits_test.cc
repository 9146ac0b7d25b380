// Input limits hold while reading, for any kind of file: a device or a FIFO
// has no size to check beforehand, and must still stop at 16 MiB.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include "tests/test_util.h"

namespace lockstep {
namespace {

using testing::RunLockstep;
using testing::TempDir;

const char* const kTooMuch = ": more than 16 MiB to read; expected at most 16 MiB\n";

TEST_CASE("a device without end is read up to the 16 MiB limit, then refused", "[input]") {
  // 1 GiB of address space: the limit must stop the reading long before.
  TempDir tmp;
  for (const char* command : {"replay", "render"}) {
    INFO(command);
    std::vector<std::string> args = {command, "/dev/zero"};
    if (std::string(command) == "render") args.insert(args.end(), {"--svg", tmp.File("out.svg")});
    auto r = testing::RunLockstepWithin(args, size_t{1} << 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err == std::string("lockstep: /dev/zero") + kTooMuch);
  }
  auto r = testing::RunLockstepWithin({"run", "/dev/zero", "--seed", "1"}, size_t{1} << 30);
  CHECK(r.exit_code == 2);
  CHECK(r.err == std::string("lockstep: /dev/zero") + kTooMuch);
}

// Writes `content` into the FIFO `path` from a thread, as another process
// would; a reader that stops early ends the writing.
class FifoWriter {
 public:
  FifoWriter(std::string path, std::string content)
      : thread_([path = std::move(path), content = std::move(content)] {
          const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
          if (fd < 0) return;
          size_t done = 0;
          while (done < content.size()) {
            const ssize_t n = write(fd, content.data() + done, content.size() - done);
            if (n <= 0) break;  // EPIPE: the reader has gone
            done += static_cast<size_t>(n);
          }
          close(fd);
        }) {}
  ~FifoWriter() { thread_.join(); }

 private:
  std::thread thread_;
};

TEST_CASE("a FIFO is read up to the 16 MiB limit, and a small one is read whole", "[input]") {
  // A reader that stops early must give the writer EPIPE, not SIGPIPE.
  struct IgnoreSigpipe {
    IgnoreSigpipe() : previous(std::signal(SIGPIPE, SIG_IGN)) {}
    ~IgnoreSigpipe() { std::signal(SIGPIPE, previous); }
    void (*previous)(int);
  } ignore;
  TempDir tmp;
  const std::string fifo = tmp.File("scenario.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  {
    FifoWriter writer(fifo, std::string((size_t{17} << 20), ' '));
    auto r = RunLockstep({"replay", fifo});
    CHECK(r.exit_code == 2);
    CHECK(r.err == "lockstep: " + fifo + kTooMuch);
  }
  {
    FifoWriter writer(fifo, testing::ReadText(testing::ScenarioPath("setnx-docs-race.json")));
    auto r = RunLockstep({"replay", fifo});
    CHECK(r.exit_code == 1);  // the documented race, read whole from the FIFO
    CHECK(r.err.empty());
  }
}

TEST_CASE("a directory as input is named as one", "[input]") {
  TempDir tmp;
  for (const char* command : {"replay", "run", "explore"}) {
    INFO(command);
    std::vector<std::string> args = {command, tmp.path().string()};
    if (std::string(command) == "run") args.insert(args.end(), {"--seed", "1"});
    auto r = RunLockstep(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "lockstep: " + tmp.path().string() + ": is a directory; expected a file\n");
  }
}

}  // namespace
}  // namespace lockstep
