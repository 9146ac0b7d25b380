#include "sim/explore/communicator.h"

#include <barrier>

namespace lockstep::explore {
namespace {

// What the ranks of one group share: a mailbox per pair of ranks, a slot
// per rank for sums, and the barrier each operation passes twice (once
// when every rank has written, once when every rank has read).
struct Mailboxes {
  explicit Mailboxes(int ranks)
      : boxes(static_cast<size_t>(ranks), std::vector<std::string>(static_cast<size_t>(ranks))),
        sums(static_cast<size_t>(ranks)),
        barrier(ranks) {}
  std::vector<std::vector<std::string>> boxes;  // boxes[to][from]
  std::vector<std::vector<uint64_t>> sums;
  std::barrier<> barrier;
};

class InProcess final : public Communicator {
 public:
  InProcess(std::shared_ptr<Mailboxes> m, int rank, int size)
      : m_(std::move(m)), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> Exchange(std::vector<std::string> outgoing) override {
    for (int to = 0; to < size_; ++to) {
      m_->boxes[static_cast<size_t>(to)][static_cast<size_t>(rank_)] =
          std::move(outgoing[static_cast<size_t>(to)]);
    }
    m_->barrier.arrive_and_wait();
    std::vector<std::string> incoming = std::move(m_->boxes[static_cast<size_t>(rank_)]);
    m_->boxes[static_cast<size_t>(rank_)].assign(static_cast<size_t>(size_), {});
    m_->barrier.arrive_and_wait();
    return incoming;
  }

  std::vector<uint64_t> Sum(const std::vector<uint64_t>& values) override {
    m_->sums[static_cast<size_t>(rank_)] = values;
    m_->barrier.arrive_and_wait();
    std::vector<uint64_t> total(values.size(), 0);
    for (const auto& v : m_->sums) {
      for (size_t i = 0; i < total.size(); ++i) total[i] += v[i];
    }
    m_->barrier.arrive_and_wait();
    return total;
  }

 private:
  std::shared_ptr<Mailboxes> m_;
  int rank_, size_;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> InProcessGroup(int ranks) {
  auto mailboxes = std::make_shared<Mailboxes>(ranks);
  std::vector<std::unique_ptr<Communicator>> group;
  for (int r = 0; r < ranks; ++r) group.push_back(std::make_unique<InProcess>(mailboxes, r, ranks));
  return group;
}

}  // namespace lockstep::explore
