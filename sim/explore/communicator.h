// The ranks of a distributed search and the two ways they talk: every rank
// calls each operation together, in the same order (a collective, as MPI
// calls it). Open MPI provides them across machines (sim/mpi/); an
// in-process group provides them between threads, for a search of one rank
// and for tests of many.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::explore {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sends outgoing[r] to rank r (its own buffer included) and returns, per
  // rank r, what r sent to this one. REQUIRES: outgoing.size() == size()
  virtual std::vector<std::string> Exchange(std::vector<std::string> outgoing) = 0;
  // The element-wise sums of every rank's `values` (all of one length).
  virtual std::vector<uint64_t> Sum(const std::vector<uint64_t>& values) = 0;
};

// `ranks` communicators joined in memory: rank i is the i-th, and each is
// used by its own thread.
std::vector<std::unique_ptr<Communicator>> InProcessGroup(int ranks);

}  // namespace lockstep::explore
