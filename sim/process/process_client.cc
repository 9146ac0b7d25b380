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
#include "sim/process/process_program.h"
#include "sim/process/process_session.h"
#include "sim/process/resp.h"
#include "sim/world/fiber_stack.h"

namespace lockstep::process {
namespace {

namespace fs = std::filesystem;
using world::Client;

constexpr std::string_view kMarker = "lockstep:";

// The process is resumed: its clock is this step's.
void Stepped(Client& c, ProcessSession& s) {
  s.SetClock(c.Now());
  s.set_stepped();
}

// A sleep of `nanos`, in whole ticks (milliseconds), rounded up.
void SleepFor(Client& c, ProcessSession& s, int64_t nanos, const std::string& label) {
  const int64_t ticks = nanos <= 0 ? 0 : (nanos + 999'999) / 1'000'000;
  if (ticks == 0) return;
  c.At(label);
  c.Sleep(ticks);
  Stepped(c, s);
}

int64_t MarkerInt(const ProcessSession& s, const std::string& verb, const std::string& arg) {
  int64_t v = 0;
  if (!kv::ParseInt64(arg, &v)) {
    throw world::RuleBroken(s.Describe() + " sent ECHO lockstep:" + verb +
                            " with an argument that is not an integer: \"" + arg + "\"");
  }
  return v;
}

// ECHO "lockstep:VERB [ARG]": the critical section, as the helpers in
// examples/real-clients/ say it. Returns the reply.
kv::Reply RunMarker(Client& c, ProcessSession& s, const std::string& text,
                    const std::string& label) {
  const std::string call = text.substr(kMarker.size());
  const size_t space = call.find(' ');
  const std::string verb = call.substr(0, space);
  const std::string arg = space == std::string::npos ? "" : call.substr(space + 1);
  c.At(label);
  if (verb == "enter") {
    c.EnterCriticalSection(MarkerInt(s, verb, arg));
  } else if (verb == "renew") {
    c.Renew(MarkerInt(s, verb, arg));
  } else if (verb == "leave") {
    c.LeaveCriticalSection();
    Stepped(c, s);
  } else if (verb == "released") {
    c.ForgetLock();
  } else if (verb == "write") {
    const bool accepted = c.WriteResource(MarkerInt(s, verb, arg));
    Stepped(c, s);
    return kv::Reply::Bulk(accepted ? "1" : "0");
  } else if (verb == "because") {
    c.Because(arg);
  } else {
    throw world::RuleBroken(s.Describe() + " sent ECHO lockstep:" + verb +
                            ", which is none of lockstep:enter, renew, leave, released, write "
                            "and because");
  }
  return kv::Reply::Bulk(text);
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
    if (argv.size() == 2 && Upper(argv[0]) == "ECHO" && argv[1].starts_with(kMarker)) {
      reply = RunMarker(c, s, argv[1], label);
    } else if (std::optional<std::string> local =
                   AnswerLocally(argv, conn, s.scripts(cmd->instance))) {
      s.Write(cmd->connection, *local, conn.quit);
      continue;
    } else {
      c.At(label);
      reply = c.CallOn(cmd->instance, std::vector<world::Value>(argv.begin(), argv.end()));
      Stepped(c, s);
    }
    std::string out;
    EncodeReply(reply, conn.resp3, out);
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
  s.SetClock(c.Now());
  s.Start();
  for (;;) {
    const ProcessSession::Event e = s.Next();
    if (e.kind == ProcessSession::Event::Kind::kEnded) {
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
    const bool ran = RunCommands(c, s, program.label);
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
  // same in every run of the client.
  const uint64_t seed = c.Random();
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
