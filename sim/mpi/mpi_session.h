// Open MPI for `lockstep explore --distributed`: the ranks mpirun started,
// as the distributed search's Communicator.
#pragma once

#include <memory>

#include "sim/explore/communicator.h"

namespace lockstep::mpi {

// MPI from construction (MPI_Init) to destruction (MPI_Finalize), at most
// one in a process. Without mpirun it is a world of one rank.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Every rank of MPI_COMM_WORLD.
  explore::Communicator& world() { return *world_; }

 private:
  std::unique_ptr<explore::Communicator> world_;
};

}  // namespace lockstep::mpi
