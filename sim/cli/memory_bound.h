// --max-memory: a bound on the memory a command uses.
//
// A watcher thread reads the process's resident size from /proc/self/statm
// every 10 ms, and adds that of the programs clients run and all they
// started (every 100 ms, while there are any: process::ProgramsResident
// reads /proc), and sets StopRequested() (stop_signals.h) once the sum
// passes the bound; the programs are killed then (process::StopAllPrograms:
// their clients sleep), and the search, run or trace recording stops
// between two steps and reports what it has (exit 3). Sampling the resident size counts every
// byte (visited states, the breadth-first queue, a trace's steps) without
// touching the search's inner loop; a sample every 10 ms costs nothing
// measurable, and the overshoot is what the work allocates in 10 ms.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

namespace lockstep::cli {

// "512M", "4G", "1500K", "1T" or a number of bytes (powers of 1024).
// Throws base::InputError, saying what was expected, for anything else or
// zero; the caller names the option.
uint64_t ParseSize(const std::string& text);
// "512 MiB", "4 GiB" or "1234567 bytes".
std::string SizeText(uint64_t bytes);

// The default bound: half of the machine's physical memory.
uint64_t DefaultMaxMemory();

// The resident size of this process, in bytes (0 if unknown).
uint64_t ResidentBytes();

class MemoryWatch {
 public:
  explicit MemoryWatch(uint64_t limit);
  ~MemoryWatch();
  MemoryWatch(const MemoryWatch&) = delete;
  MemoryWatch& operator=(const MemoryWatch&) = delete;
  // True iff the bound was passed.
  bool exceeded() const { return exceeded_.load(); }
  // The most the programs clients ran held at once, with what they started.
  uint64_t programs_peak() const { return programs_peak_.load(); }
  uint64_t limit() const { return limit_; }

 private:
  uint64_t limit_;
  std::atomic<bool> exceeded_{false};
  std::atomic<uint64_t> programs_peak_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace lockstep::cli
