#include "sim/mpi/mpi_session.h"

#include <mpi.h>

#include <chrono>
#include <climits>
#include <list>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace lockstep::mpi {
namespace {

void Check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " +
                           std::string(text, static_cast<size_t>(length)));
}

// The tag of point-to-point messages (collectives never match them).
constexpr int kTag = 1;

int Count(size_t n) {
  if (n > static_cast<size_t>(INT_MAX)) {
    throw std::runtime_error("a distributed search's message is over 2 GiB");
  }
  return static_cast<int>(n);
}

class World final : public explore::Communicator {
 public:
  World() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  // The sizes first (MPI_Alltoall), then the bytes (MPI_Alltoallv).
  std::vector<std::string> Exchange(std::vector<std::string> outgoing) override {
    const auto k = static_cast<size_t>(size_);
    std::vector<int> send_counts(k), send_at(k), receive_counts(k), receive_at(k);
    std::string send;
    for (size_t r = 0; r < k; ++r) {
      send_at[r] = Count(send.size());
      send_counts[r] = Count(outgoing[r].size());
      send += outgoing[r];
    }
    Check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT,
                       MPI_COMM_WORLD),
          "MPI_Alltoall");
    size_t total = 0;
    for (size_t r = 0; r < k; ++r) {
      receive_at[r] = Count(total);
      total += static_cast<size_t>(receive_counts[r]);
    }
    Count(total);
    std::string received(total, '\0');
    Check(MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, received.data(),
                        receive_counts.data(), receive_at.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv");
    std::vector<std::string> incoming(k);
    for (size_t r = 0; r < k; ++r) {
      incoming[r] = received.substr(static_cast<size_t>(receive_at[r]),
                                    static_cast<size_t>(receive_counts[r]));
    }
    return incoming;
  }

  std::vector<uint64_t> Sum(const std::vector<uint64_t>& values) override {
    std::vector<uint64_t> total(values.size());
    Check(MPI_Allreduce(values.data(), total.data(), Count(values.size()), MPI_UINT64_T, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
    return total;
  }

  // MPI_Isend; the bytes stay here until the send completes.
  void Send(int to, std::string bytes) override {
    Reap();
    Pending& p = pending_.emplace_back();
    p.bytes = std::move(bytes);
    Check(MPI_Isend(p.bytes.data(), Count(p.bytes.size()), MPI_BYTE, to, kTag, MPI_COMM_WORLD,
                    &p.request),
          "MPI_Isend");
  }

  // MPI_Iprobe until a message is there or `wait` has passed, sleeping
  // between probes: an idle rank leaves the core to the others.
  std::optional<Message> Receive(std::chrono::microseconds wait) override {
    Reap();
    const auto until = std::chrono::steady_clock::now() + wait;
    for (;;) {
      int there = 0;
      MPI_Status status;
      Check(MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &there, &status), "MPI_Iprobe");
      if (there) {
        int length = 0;
        Check(MPI_Get_count(&status, MPI_BYTE, &length), "MPI_Get_count");
        Message m;
        m.from = status.MPI_SOURCE;
        m.bytes.resize(static_cast<size_t>(length));
        Check(MPI_Recv(m.bytes.data(), length, MPI_BYTE, status.MPI_SOURCE, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
        return m;
      }
      if (std::chrono::steady_clock::now() >= until) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void FinishSends() override {
    for (Pending& p : pending_) Check(MPI_Wait(&p.request, MPI_STATUS_IGNORE), "MPI_Wait");
    pending_.clear();
  }

 private:
  struct Pending {
    std::string bytes;
    MPI_Request request = MPI_REQUEST_NULL;
  };

  // Frees the sends that have completed, oldest first.
  void Reap() {
    while (!pending_.empty()) {
      int done = 0;
      Check(MPI_Test(&pending_.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) return;
      pending_.pop_front();
    }
  }

  int rank_ = 0, size_ = 1;
  std::list<Pending> pending_;
};

}  // namespace

Session::Session() {
  Check(MPI_Init(nullptr, nullptr), "MPI_Init");
  // Errors come back as codes (Check throws), not as an abort of the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  world_ = std::make_unique<World>();
}

Session::~Session() { MPI_Finalize(); }

}  // namespace lockstep::mpi
