// The Redis connections of one process client: accepted on its listeners
// (a loopback port per instance), read, written and closed as a server
// would, in time linear in what happens on them.
//
// Only the program's own connections are served: its shim names each one
// it opens (ShimCall::kConnect, before connect returns), and an accepted
// connection nobody named is held unread (another local process can reach
// the port, but not make the client run a command). Connections are
// numbered as the program named them, the same in every run.
//
// Replies are written as far as the kernel takes them; what is left goes
// on at the program's next wait (it reads once let go), so a reply of any
// size arrives, and a batch of them is settled once, before the program is
// let go: then every byte sent has reached its kernel, or the rest waits
// for room that its reading makes.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sys/epoll.h>

#include "sim/process/connection_commands.h"
#include "sim/process/resp.h"
#include "sim/process/session_wait.h"

namespace lockstep::process {

class Connections {
 public:
  // Listens on a loopback port per instance. `who` names the process in
  // messages; `silent` throws, when the program did nothing in time.
  // Throws std::runtime_error.
  Connections(int instances, std::string who, std::function<void()> silent);
  ~Connections();
  Connections(const Connections&) = delete;
  Connections& operator=(const Connections&) = delete;

  // Readable when a listener or a connection has something.
  int fd() const { return epoll_; }
  const std::vector<int>& ports() const { return ports_; }

  // The program opened a connection from `endpoint` (loopback.h).
  void Named(uint64_t endpoint);
  // Accepts what waits and reads every connection that has input. Throws
  // world::RuleBroken when no descriptor is left to accept one.
  void ReadAll();

  struct Command {
    int connection = 0;
    int instance = 0;
    std::vector<std::string> argv;
    std::string protocol_error;  // then argv is empty: answer it and close
  };
  // The next whole command, the earliest connection first.
  std::optional<Command> TakeCommand();
  bool HasCommand();
  ConnectionState& state(int c) { return connections_[static_cast<size_t>(c)].state; }
  // Writes `bytes` to connection `c`, then closes it after a QUIT or a
  // protocol error: nothing it sent after is run.
  void Write(int c, const std::string& bytes, bool close_after);
  // Whether the program closed a connection since this was last asked.
  bool TakeClosed();
  bool closed() const { return closed_; }
  // Accepted connections nobody named, held unread.
  size_t held() const { return held_.size(); }

  // Before the program is let go: writes on, and waits until what was sent
  // has reached the program (or waits for room it makes by reading).
  void Settle(const Deadline& deadline) { Settled(deadline, true); }
  // At a wait of the program: whether more of a reply has reached it since
  // it was last let go, or will as it has read all it had (it should read
  // on: the wait was no wait).
  bool Progressed(const Deadline& deadline);

 private:
  struct Connection {
    int fd = -1;  // -1 before it is accepted and once closed
    int instance = 0;
    std::string in;                    // not yet a whole command
    std::deque<ParsedCommand> parsed;  // whole commands not yet taken
    std::string out;                   // replies the kernel has not taken
    size_t out_at = 0;                 // of which written already
    int64_t sent = 0;                  // bytes handed to the kernel
    int64_t reached_at_resume = 0;     // of which reached the program then
    bool done = false;                 // QUIT or a protocol error: nothing more runs
    bool closing = false;              // closed by lockstep once delivered
    bool shut = false;                 // its end sent (shutdown)
    ConnectionState state;
  };
  // Settles; returns whether a reply went on since the last mark.
  bool Settled(const Deadline& deadline, bool mark);
  void Accept(size_t listener);
  void Admit(size_t index, int fd, int instance);
  void Read(size_t index);
  void Push(size_t index);
  void Close(size_t index);
  void Unwatch(int fd);
  // Bytes of connection `c` that have reached the program's kernel.
  int64_t Reached(const Connection& c) const;

  std::string who_;
  std::function<void()> silent_;
  int epoll_ = -1;
  // Kept open, and closed when accept finds no descriptor left, so that
  // reporting that still has one (the program's output read for the
  // message, a sanitizer's log).
  int spare_ = -1;
  std::vector<int> listeners_;
  std::vector<int> ports_;
  std::vector<Connection> connections_;
  std::map<uint64_t, size_t> named_;  // named, not yet accepted: its index
  struct Held {
    int fd;
    int instance;
  };
  std::map<uint64_t, Held> held_;  // accepted, not (yet) named
  std::deque<uint64_t> held_order_;
  std::set<size_t> ready_;    // connections with parsed commands
  std::set<size_t> writing_;  // connections with output not yet settled
  bool closed_ = false;
  std::vector<epoll_event> events_ = std::vector<epoll_event>(256);
};

}  // namespace lockstep::process
