#include "sim/cli/memory_bound.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "sim/base/input_error.h"
#include "sim/process/child_process.h"
#include "sim/run/stop_signals.h"

namespace lockstep::cli {

uint64_t ParseSize(const std::string& text) {
  uint64_t n = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (n > (UINT64_MAX - 9) / 10) break;
    n = n * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  int shift = 0;
  if (i + 1 == text.size()) {
    switch (text[i]) {
      case 'K':
      case 'k':
        shift = 10;
        break;
      case 'M':
      case 'm':
        shift = 20;
        break;
      case 'G':
      case 'g':
        shift = 30;
        break;
      case 'T':
      case 't':
        shift = 40;
        break;
      default:
        shift = -1;
    }
    if (shift > 0) ++i;
  }
  if (i == 0 || i != text.size() || n == 0 || (shift > 0 && n > (UINT64_MAX >> shift))) {
    throw base::InputError(
        "", "", "expected a size such as 512M, 4G or a number of bytes, got \"" + text + "\"");
  }
  return n << shift;
}

std::string SizeText(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + " " + units[u];
}

uint64_t DefaultMaxMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{4} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}

uint64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (got != 2) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

MemoryWatch::MemoryWatch(uint64_t limit) : limit_(limit) {
  thread_ = std::thread([this] {
    run::BlockStopSignals blocked;  // they belong to the thread doing the work
    uint64_t programs = 0;
    for (int sample = 0; !done_.load(); ++sample) {
      if (!process::AnyProgram()) {
        programs = 0;
      } else if (sample % 10 == 0) {
        programs = process::ProgramsResident().bytes;
        if (programs > programs_peak_.load()) programs_peak_.store(programs);
      }
      if (ResidentBytes() + programs > limit_) {
        exceeded_.store(true);
        run::StopRequested().store(true);
        process::StopAllPrograms();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

MemoryWatch::~MemoryWatch() {
  done_.store(true);
  thread_.join();
}

}  // namespace lockstep::cli
