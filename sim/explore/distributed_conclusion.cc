// How the ranks of the distributed search conclude together: they take
// every message still on its way, sum their counts, agree on the shortest
// violation found and judge it again, and report progress on the way.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "sim/base/check.h"
#include "sim/explore/distributed_rank.h"
#include "sim/explore/path_codec.h"
#include "sim/explore/replay_strategy.h"

namespace lockstep::explore::distributed {

void Rank::Report() {
  const std::array<uint64_t, 3> mine = {visited_.size(), transitions_, stack_.size()};
  if (me_ != 0) {
    std::string m(1, kProgress);
    for (uint64_t v : mine) PutU64(m, v);
    Send(0, std::move(m));
  }
  if (!o_.progress) return;
  progress_of_[static_cast<size_t>(me_)] = mine;
  stats_.states = stats_.transitions = stats_.waiting = 0;
  for (const auto& p : progress_of_) {
    stats_.states += p[0];
    stats_.transitions += p[1];
    stats_.waiting += p[2];
  }
  stats_.max_depth = max_depth_;
  stats_.elapsed_s = Elapsed();
  stats_.memory_bytes = visited_.bytes();
  SetAutomata(space_.model(), &stats_);
  o_.progress(stats_);
}

void Rank::Drain() {
  const auto k = static_cast<size_t>(k_);
  std::vector<uint64_t> sent(k * k, 0);
  for (size_t to = 0; to < k; ++to) sent[static_cast<size_t>(me_) * k + to] = messages_to_[to];
  sent = ranks_.Sum(sent);
  for (size_t from = 0; from < k; ++from) {
    while (messages_from_[from] < sent[from * k + static_cast<size_t>(me_)]) {
      if (auto m = ranks_.Receive(kIdleWait)) ++messages_from_[static_cast<size_t>(m->from)];
    }
  }
  ranks_.FinishSends();
}

SearchResult& Rank::Conclude(SearchResult& result) {
  const std::vector<uint64_t> sums = ranks_.Sum(Mine());
  if (sums[kFailed] > 0) Fail();
  if (std::optional<int> winner = Winner(sums)) {
    result.verdict = Verdict::kViolation;
    result.counterexample = Broadcast(*winner);
    result.violation = Judge(result.counterexample);
  } else if (sums[kInterrupted] > 0) {
    result.verdict = Verdict::kIncomplete;
    result.incomplete = "interrupted";
  } else if (sums[kRunaway] > 0) {
    result.verdict = Verdict::kIncomplete;
    result.incomplete = RunawayText(*o_.bounds.runaway_steps);
  } else if (sums[kCutOff] > 0) {
    result.verdict = Verdict::kIncomplete;
    result.incomplete = "stopped at max-steps " + std::to_string(*o_.bounds.max_steps);
  }
  return Finish(result);
}

std::vector<uint64_t> Rank::Mine() const {
  std::vector<uint64_t> v(kFields + 2 * static_cast<size_t>(k_), 0);
  v[kInterrupted] = o_.interrupted && o_.interrupted->load() ? 1 : 0;
  v[kFailed] = failure_.empty() ? 0 : 1;
  v[kCutOff] = cut_off_ ? 1 : 0;
  v[kRunaway] = runaway_ ? 1 : 0;
  v[kStates] = visited_.size();
  v[kTransitions] = transitions_;
  v[kEnds] = ends_;
  v[kBytes] = visited_.bytes();
  v[kSent] = sent_;
  v[kSentBytes] = sent_bytes_;
  // This rank's violation (its length + 1, 0 for none) and its table's
  // expected omissions.
  v[kFields + static_cast<size_t>(me_)] = found_ ? found_->size() + 1 : 0;
  v[kFields + static_cast<size_t>(k_ + me_)] =
      std::bit_cast<uint64_t>(visited_.ExpectedOmissions());
  return v;
}

std::optional<int> Rank::Winner(const std::vector<uint64_t>& sums) const {
  std::optional<int> winner;
  for (int r = 0; r < k_; ++r) {
    uint64_t length = sums[kFields + static_cast<size_t>(r)];
    if (length > 0 && (!winner || length < sums[kFields + static_cast<size_t>(*winner)])) {
      winner = r;
    }
  }
  return winner;
}

std::vector<Action> Rank::Broadcast(int winner) {
  std::vector<std::string> out(static_cast<size_t>(k_));
  if (winner == me_) {
    for (std::string& to : out) PutPath(to, *found_);
  }
  std::vector<std::string> in = ranks_.Exchange(std::move(out));
  Reader r(in[static_cast<size_t>(winner)]);
  return r.Path();
}

check::Violation Rank::Judge(const std::vector<Action>& path) {
  ReplayStrategy replay(path);
  const ExecutionResult run = RunExecution(space_, replay);
  LOCKSTEP_CHECK(run.violation.has_value() && run.schedule.size() == path.size(),
                 "the path a rank found ends in a violation, where it first happens");
  return *run.violation;
}

void Rank::Fail() {
  std::vector<std::string> out(static_cast<size_t>(k_), failure_);
  for (const std::string& error : ranks_.Exchange(std::move(out))) {
    if (!error.empty()) throw std::runtime_error(error);
  }
  throw std::runtime_error("a rank of the distributed search failed");
}

void Rank::Count(const std::vector<uint64_t>& sums) {
  stats_.states = sums[kStates];
  stats_.transitions = sums[kTransitions];
  stats_.executions = sums[kEnds];
  stats_.memory_bytes = sums[kBytes];
  stats_.states_sent = sums[kSent];
  stats_.bytes_sent = sums[kSentBytes];
  stats_.expected_omissions = 0;
  for (int r = 0; r < k_; ++r) {
    stats_.expected_omissions += std::bit_cast<double>(sums[kFields + static_cast<size_t>(k_ + r)]);
  }
}

SearchResult& Rank::Finish(SearchResult& result) {
  const std::vector<uint64_t> sums = ranks_.Sum(Mine());
  Count(sums);
  stats_.max_depth = result.verdict == Verdict::kViolation
                         ? static_cast<int>(result.counterexample.size())
                         : DeepestOfAll();
  stats_.elapsed_s = Elapsed();
  stats_.waiting = stack_.size();
  SetAutomata(space_.model(), &stats_);
  result.stats = stats_;
  AddGrowthWarnings(space_.model(), &result.warnings);
  result.symmetry_classes = space_.symmetry_classes();
  if (o_.collect_states) {
    // Every rank learns every state: each sends its own to all.
    std::string mine;
    for (const Fingerprint& f : states_) PutFingerprint(mine, f);
    std::vector<std::string> out(static_cast<size_t>(k_), mine);
    for (const std::string& buffer : ranks_.Exchange(std::move(out))) {
      for (Reader r(buffer); !r.done();) result.states.push_back(r.Print());
    }
  }
  return result;
}

int Rank::DeepestOfAll() {
  std::vector<uint64_t> depths(static_cast<size_t>(k_), 0);
  depths[static_cast<size_t>(me_)] = static_cast<uint64_t>(max_depth_);
  depths = ranks_.Sum(depths);
  return static_cast<int>(*std::max_element(depths.begin(), depths.end()));
}

}  // namespace lockstep::explore::distributed
