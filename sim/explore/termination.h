// When an asynchronous distributed search is over: Safra's algorithm
// (Dijkstra, "Shmuel Safra's version of termination detection", EWD998).
// Each rank counts the batches of states it sent less those it received,
// and turns black when it receives one. A token goes round the ring from
// rank 0, passed on only by a rank with no work left, adding each rank's
// count and blackening if the rank is black (which whitens it). The search
// is over when the token comes back to an idle, white rank 0 white, with
// the counts summing to zero: every rank was idle as the token passed and
// no batch is still on its way. No round waits for every rank.
#pragma once

#include <cstdint>
#include <optional>

namespace lockstep::explore {

struct Token {
  int64_t count = 0;  // batches sent less batches received, of the ranks passed
  bool black = false;
  bool done = false;  // rank 0's verdict: the search is over everywhere
};

class Termination {
 public:
  Termination(int rank, int ranks) : rank_(rank), ranks_(ranks) {}

  void Sent() { ++count_; }
  void Received() {
    --count_;
    black_ = true;
  }
  // The token arrived at this rank.
  void Take(const Token& t) { held_ = t; }
  // The rank the token goes to next.
  int Next() const { return (rank_ + 1) % ranks_; }

  // Called when this rank has no work and has sent every batch: the token
  // to send to Next(), if this rank has one to send, or a done token, if
  // the search is over.
  std::optional<Token> Passive() {
    if (ranks_ == 1) return Token{.done = true};
    if (rank_ != 0) {
      if (!held_) return std::nullopt;
      Token t{.count = held_->count + count_, .black = held_->black || black_};
      held_.reset();
      black_ = false;
      return t;
    }
    if (started_ && !held_) return std::nullopt;  // the token is on its way
    if (held_) {
      const bool over = !held_->black && !black_ && held_->count + count_ == 0;
      held_.reset();
      if (over) return Token{.done = true};
    }
    started_ = true;  // a new wave
    black_ = false;
    return Token{};
  }

 private:
  const int rank_, ranks_;
  int64_t count_ = 0;
  bool black_ = false;
  bool started_ = false;       // rank 0: a token is out
  std::optional<Token> held_;  // the token, while this rank holds it
};

}  // namespace lockstep::explore
