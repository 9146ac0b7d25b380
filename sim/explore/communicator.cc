#include "sim/explore/communicator.h"

#include <barrier>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace lockstep::explore {
namespace {

// A rank's queue of point-to-point messages, filled by the others.
struct Inbox {
  std::mutex mu;
  std::condition_variable arrived;
  std::deque<Communicator::Message> messages;
};

// What the ranks of one group share: a mailbox per pair of ranks, a slot
// per rank for sums, and the barrier each collective passes twice (once
// when every rank has written, once when every rank has read); an inbox
// per rank.
struct Mailboxes {
  explicit Mailboxes(int ranks)
      : boxes(static_cast<size_t>(ranks), std::vector<std::string>(static_cast<size_t>(ranks))),
        sums(static_cast<size_t>(ranks)),
        barrier(ranks),
        inboxes(static_cast<size_t>(ranks)) {}
  std::vector<std::vector<std::string>> boxes;  // boxes[to][from]
  std::vector<std::vector<uint64_t>> sums;
  std::barrier<> barrier;
  std::deque<Inbox> inboxes;
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

  void Send(int to, std::string bytes) override {
    Inbox& inbox = m_->inboxes[static_cast<size_t>(to)];
    {
      std::lock_guard<std::mutex> lock(inbox.mu);
      inbox.messages.push_back({rank_, std::move(bytes)});
    }
    inbox.arrived.notify_one();
  }

  std::optional<Message> Receive(std::chrono::microseconds wait) override {
    Inbox& inbox = m_->inboxes[static_cast<size_t>(rank_)];
    std::unique_lock<std::mutex> lock(inbox.mu);
    if (inbox.messages.empty() && wait.count() > 0) {
      inbox.arrived.wait_for(lock, wait, [&] { return !inbox.messages.empty(); });
    }
    if (inbox.messages.empty()) return std::nullopt;
    Message m = std::move(inbox.messages.front());
    inbox.messages.pop_front();
    return m;
  }

  void FinishSends() override {}  // delivered when sent

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
