// One run of a process client: the servers it connects to (a loopback port
// per instance), the control channel and clock page of its shim, and the
// process itself. Everything is released, the whole process tree killed (by
// its keeper, process_keeper.h), when the session goes away, which a run's
// end or an abandoned fiber brings.
//
// The session only reads and writes; what a command means is
// process_client.cc's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/process/child_process.h"
#include "sim/process/connection_commands.h"
#include "sim/process/connections.h"
#include "sim/process/process_program.h"
#include "sim/process/shim_protocol.h"

namespace lockstep::process {

class ProcessSession {
 public:
  // Listens on a loopback port per instance. Throws std::runtime_error.
  ProcessSession(const ProcessProgram& program, const nlohmann::json& settings,
                 const std::string& client, uint64_t random_seed);
  ~ProcessSession();
  ProcessSession(const ProcessSession&) = delete;
  ProcessSession& operator=(const ProcessSession&) = delete;

  // The clock every read of the process gives from now on, in milliseconds.
  void SetClock(int64_t millis);
  // Starts the process and waits until its shim says it is loaded. Throws
  // world::RuleBroken if it ends first or says nothing in time.
  void Start();

  struct Event {
    enum class Kind { kSleep, kWait, kClock, kEnded } kind;
    int64_t nanos = 0;  // kSleep, kWait (-1: for ever)
    int status = 0;     // kEnded: waitpid's
  };
  // Waits until the process sleeps, waits for input, reads its clock or
  // ends, reading what it sends meanwhile. Throws world::RuleBroken if it does none in time.
  Event Next();

  using Command = Connections::Command;
  // The next whole command the process has sent, the earliest connection
  // first (connections are numbered as the process opened them), after
  // reading everything it has sent so far.
  std::optional<Command> TakeCommand() { return connections_->TakeCommand(); }
  ConnectionState& connection(int c) { return connections_->state(c); }
  ScriptCache& scripts(int instance) { return scripts_[instance]; }
  // Writes `bytes` to connection `c` (closing it after a QUIT or a protocol
  // error); what the kernel does not take yet goes on at the next wait.
  void Write(int c, const std::string& bytes, bool close_after = false) {
    connections_->Write(c, bytes, close_after);
  }
  // Whether the process closed a connection since this was last asked
  // (lockstep has closed its end too, as Redis would).
  bool TakeClosed() { return connections_->TakeClosed(); }
  // Lets the process go on from a sleep or a wait, once what was written
  // has reached it.
  void Answer(char answer);

  // "C1's process (python3 lock_demo.py)".
  std::string Describe() const;
  // The end of what it wrote to stdout and stderr, for messages: as a
  // clause ("; the end of its stdout and stderr: ..."), or as it is.
  std::string Output(size_t max_bytes) const;
  std::string Tail(size_t max_bytes) const;
  // It ended with `status` before its first step: the scenario is wrong.
  [[noreturn]] void EndedEarly(int status) const;
  bool stepped() const { return stepped_; }
  void set_stepped() { stepped_ = true; }
  // The client's clock has been observed since its last step.
  bool clock_observed() const { return clock_observed_; }
  void set_clock_observed(bool observed) { clock_observed_ = observed; }

 private:
  [[noreturn]] void Silent() const;
  // A message on the control channel (or nothing: the process is ending).
  std::optional<ShimMessage> ReadMessage();

  const ProcessProgram& program_;
  std::string client_;
  std::string dir_;
  std::unique_ptr<Connections> connections_;
  std::map<int, ScriptCache> scripts_;
  int control_ = -1;        // lockstep's end
  int control_child_ = -1;  // the process's end, until it is started
  int clock_fd_ = -1;
  ClockPage* clock_ = nullptr;
  std::vector<std::string> env_;
  std::unique_ptr<ChildProcess> child_;
  bool stepped_ = false;
  bool clock_observed_ = false;
};

}  // namespace lockstep::process
