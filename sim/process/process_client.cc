// The body of a process client: serves the process as Redis would, each
// command it sends one step of its client (a command to the model, or a
// critical-section call it marks with ECHO lockstep:...), each sleep and
// each wait with a timeout a sleep of the client. The client's clock is
// observed after every step, and the process reads that clock until the
// next one.
#include <cmath>
#include <exception>
#include <filesystem>
#include <stdexcept>

#include <sys/wait.h>

#include "sim/kv/int_parse.h"
#include "sim/process/lockstep_calls.h"
#include "sim/process/process_program.h"
#include "sim/process/process_session.h"
#include "sim/process/resp.h"
#include "sim/world/fiber_stack.h"

namespace lockstep::process {
namespace {

namespace fs = std::filesystem;
using world::Client;

// The process is resumed after a step: the clock it reads from now on is
// this step's (observed only when it reads it: ShimCall::kClock).
void Stepped(Client& c, ProcessSession& s) {
  s.SetClock(world::UnobservedClock::Of(c));
  s.set_stepped();
  s.set_clock_observed(false);
}

// The program read its clock: observed once between two steps (and again
// after a forgetting), however many times it was resumed meanwhile by
// answers that were no step (how often a runtime like Node goes round its
// loop between two steps is its threads' business).
void ClockRead(Client& c, ProcessSession& s) {
  if (s.clock_observed()) return;
  c.Now();
  s.set_clock_observed(true);
}

// A sleep of `nanos`, in whole ticks (milliseconds), rounded up.
void SleepFor(Client& c, ProcessSession& s, int64_t nanos, const std::string& label) {
  const int64_t ticks = nanos <= 0 ? 0 : (nanos + 999'999) / 1'000'000;
  if (ticks == 0) return;
  c.At(label);
  c.Sleep(ticks);
  Stepped(c, s);
}

// Runs every whole command the process has sent. Returns whether there was one.
bool RunCommands(Client& c, ProcessSession& s, const std::string& label) {
  bool any = false;
  while (std::optional<ProcessSession::Command> cmd = s.TakeCommand()) {
    any = true;
    if (!cmd->protocol_error.empty()) {
      std::string out;
      EncodeReply(kv::Reply::Error(cmd->protocol_error), false, out);
      s.Write(cmd->connection, out, /*close_after=*/true);
      continue;
    }
    ConnectionState& conn = s.connection(cmd->connection);
    std::vector<std::string>& argv = cmd->argv;
    kv::Reply reply;
    if (IsLockstepCall(argv)) {
      c.At(label);
      CallEffects effects;
      reply = RunLockstepCall(c, argv[1], s.Describe(), &effects);
      if (effects.stepped) Stepped(c, s);
      if (effects.forgot) s.set_clock_observed(false);
    } else if (std::optional<std::string> local =
                   AnswerLocally(argv, conn, s.scripts(cmd->instance))) {
      s.Write(cmd->connection, *local, conn.quit);
      continue;
    } else {
      c.At(label);
      reply = c.CallOn(cmd->instance, RequestArguments(argv, s.Describe()));
      Stepped(c, s);
    }
    std::string out;
    EncodeCommandReply(argv, reply, conn.resp3, out);
    s.Write(cmd->connection, out);
  }
  return any;
}

// The last line of text that is not empty.
std::string LastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const size_t nl = text.find_last_of('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

void Serve(Client& c, ProcessSession& s, const ProcessProgram& program, const std::string& client) {
  s.SetClock(world::UnobservedClock::Of(c));
  s.Start();
  for (;;) {
    const ProcessSession::Event e = s.Next();
    if (e.kind == ProcessSession::Event::Kind::kClock) {
      ClockRead(c, s);
      s.Answer(kWoke);
      continue;
    }
    if (e.kind == ProcessSession::Event::Kind::kEnded) {
      // Killed at the memory bound: the work stops before the next step
      // (run::StopRequested), the client asleep meanwhile, no finding.
      while (ProgramsStopped()) SleepFor(c, s, int64_t{1} << 50, program.label);
      if (WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0) return;
      // Before its first step, the scenario is wrong (with the end of
      // what it wrote); after it, a finding (client_error), named by the
      // last line it wrote, which says why in most languages (an
      // exception's type and message).
      if (!s.stepped()) s.EndedEarly(e.status);
      const std::string why = LastLine(s.Tail(4096));
      throw std::runtime_error(client + "'s process " + ExitText(e.status) +
                               (why.empty() ? "" : ": " + why));
    }
    // A connection it closed was closed here too: something to read. Both
    // are taken, whatever the first gives.
    const bool ran_commands = RunCommands(c, s, program.label);
    const bool closed = s.TakeClosed();
    const bool ran = ran_commands || closed;
    if (e.kind == ProcessSession::Event::Kind::kSleep || (!ran && e.nanos >= 0)) {
      SleepFor(c, s, e.nanos, program.label);
      s.Answer(kWoke);
    } else if (ran) {
      s.Answer(kData);
    } else {
      throw world::RuleBroken(s.Describe() +
                              " waits for a reply with no timeout, but has sent no command "
                              "that lockstep has not answered" +
                              s.Output(2048));
    }
  }
}

void RunProcess(Client& c, const ProcessProgram& program, const nlohmann::json& settings,
                const std::string& client) {
  // The process's randomness: a stream from the client's first draw, the
  // same in every run of the client; one stream for every client of a
  // program that declares it draws no numbers of its own.
  const uint64_t seed = program.draws_numbers ? c.Random() : kSharedRandomSeed;
  std::exception_ptr error;
  {
    ProcessSession s(program, settings, client, seed);
    try {
      Serve(c, s, program, client);
      return;
    } catch (...) {
      // The session's destructor runs on frames the exception unwound on
      // this fiber's stack, which ASan must be told are dead
      // (world/fiber_stack.h); the end of a run (ClientStopped) included.
      world::ForgetUnwoundFrames();
      error = std::current_exception();
    }
  }
  std::rethrow_exception(error);
}

}  // namespace

std::function<void(world::Client&)> MakeProcessBody(std::shared_ptr<const ProcessProgram> program,
                                                    nlohmann::json settings, std::string client) {
  return [program = std::move(program), settings = std::move(settings), client = std::move(client)](
             world::Client& c) { RunProcess(c, *program, settings, client); };
}

std::string FindClientShim() {
  const char* named = std::getenv("LOCKSTEP_CLIENT_SHIM");
  // Absolute: the process runs in another folder.
  if (named != nullptr && *named != '\0')
    return fs::exists(named) ? fs::absolute(named).string() : "";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path bin = exe.parent_path();
  std::vector<fs::path> candidates = {
      bin / "liblockstep_client.so", bin.parent_path() / "liblockstep_client.so",
      bin.parent_path() / "lib" / "lockstep" / "liblockstep_client.so"};
  for (const auto& e : fs::directory_iterator(bin.parent_path() / "lib", ec)) {
    candidates.push_back(e.path() / "lockstep" / "liblockstep_client.so");
  }
  for (const fs::path& p : candidates) {
    if (fs::exists(p, ec)) return fs::absolute(p).string();
  }
  return "";
}

}  // namespace lockstep::process
