// The ranks of a distributed search and the ways they talk. Collectives
// (Exchange, Sum): every rank calls each together, in the same order, as
// MPI calls it. Point to point (Send, Receive): a rank sends to another
// whenever it likes and takes what arrived whenever it looks; messages
// from one rank to another arrive in the order sent. Open MPI provides
// both across machines (sim/mpi/); an in-process group provides them
// between threads, for a search of one rank and for tests of many.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::explore {

class Communicator {
 public:
  struct Message {
    int from = 0;
    std::string bytes;
  };

  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sends outgoing[r] to rank r (its own buffer included) and returns, per
  // rank r, what r sent to this one. REQUIRES: outgoing.size() == size()
  virtual std::vector<std::string> Exchange(std::vector<std::string> outgoing) = 0;
  // The element-wise sums of every rank's `values` (all of one length).
  virtual std::vector<uint64_t> Sum(const std::vector<uint64_t>& values) = 0;

  // Sends `bytes` to rank `to` (not this one) without waiting for it to be
  // received. REQUIRES: to != rank()
  virtual void Send(int to, std::string bytes) = 0;
  // A message sent to this rank, if one arrives within `wait` (zero: only
  // one already here).
  virtual std::optional<Message> Receive(std::chrono::microseconds wait) = 0;
  // Returns once every message this rank sent has left it. REQUIRES: each
  // has been or is being received (a message not yet matched may keep a
  // sender waiting).
  virtual void FinishSends() = 0;
};

// `ranks` communicators joined in memory: rank i is the i-th, and each is
// used by its own thread.
std::vector<std::unique_ptr<Communicator>> InProcessGroup(int ranks);

}  // namespace lockstep::explore
