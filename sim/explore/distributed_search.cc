// Breadth-first search over states partitioned among ranks, as distributed
// Murphi (Stern and Dill) and PReach partition them: a state belongs to the
// rank its fingerprint hashes to, that rank alone keeps it in its visited
// table and explores its successors, and successors that belong elsewhere
// are sent to their owner in batches.
//
// The search goes level by level (every state at depth d before any at
// d + 1), so the first violation found is a shortest one, as with bfs, and
// a bound on steps cuts exactly the states beyond it. Each round, every
// rank expands a batch of its level, the ranks exchange the successors they
// found for each other, and one sum tells every rank how much of the level
// is left, whether anyone found a violation, failed or was interrupted:
// termination is that sum reaching zero, which every rank sees at once.
//
// A state travels, and waits in its level, as its fingerprint and the path
// that reaches it (two bytes a step), not as its value: a client's
// automaton state is a number in the process that learned it, and a path
// is far smaller than a state. A state is rebuilt when it is expanded, by
// replaying its path from the longest prefix it shares with the state
// expanded before; a level's states lie in the order their parents were
// expanded, so siblings share all but their last step.
//
// No sleep sets: they prune transitions, never states, so the states
// visited are the ones a depth-first search visits.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "sim/base/check.h"
#include "sim/base/hash.h"
#include "sim/explore/communicator.h"
#include "sim/explore/replay_strategy.h"
#include "sim/explore/search.h"
#include "sim/explore/state_space.h"
#include "sim/explore/state_store.h"

namespace lockstep::explore {
namespace {

using world::Action;
using Clock = std::chrono::steady_clock;

// States a rank expands between two exchanges.
constexpr size_t kBatch = 1024;

// The wire form: a state is its fingerprint, the length of its path, then
// each action in two bytes (its kind with flags, its client), followed by
// whichever of its argument age, jump and server are not zero, as varints:
// most steps take two bytes.
enum ActionFlags : uint8_t { kHasAge = 1 << 4, kHasJump = 1 << 5, kHasServer = 1 << 6 };
static_assert(static_cast<int>(Action::Kind::kFailover) < 16, "a kind fits in four bits");

void PutU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

void PutVarint(std::string& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
}

// Signed values as varints: 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

void PutAction(std::string& out, const Action& a) {
  uint8_t head = static_cast<uint8_t>(a.kind);
  if (a.arg_age != 0) head |= kHasAge;
  if (a.jump_by != 0) head |= kHasJump;
  if (a.server != 0) head |= kHasServer;
  out.push_back(static_cast<char>(head));
  out.push_back(static_cast<char>(a.client + 1));  // -1 (none) to 0
  if (a.arg_age != 0) PutVarint(out, ZigZag(a.arg_age));
  if (a.jump_by != 0) PutVarint(out, ZigZag(a.jump_by));
  if (a.server != 0) PutVarint(out, ZigZag(a.server));
}

void PutPath(std::string& out, const std::vector<Action>& path) {
  PutVarint(out, path.size());
  for (const Action& a : path) PutAction(out, a);
}

void PutFingerprint(std::string& out, const Fingerprint& f) {
  PutU64(out, f.a);
  PutU64(out, f.b);
}

// A state sent to its owner: its fingerprint, then its encoded steps.
void PutState(std::string& out, const Fingerprint& f, const std::string& steps) {
  PutFingerprint(out, f);
  PutVarint(out, steps.size());
  out += steps;
}

// Reads what PutFingerprint, PutPath and PutState wrote.
class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  bool done() const { return at_ == s_.size(); }
  Fingerprint Print() {
    Fingerprint f;
    Take(&f.a, sizeof f.a);
    Take(&f.b, sizeof f.b);
    return f;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      LOCKSTEP_CHECK(shift < 64, "a distributed search's message holds a bad number");
      const uint8_t byte = Byte();
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
  }
  Action Step() {
    Action a;
    const uint8_t head = Byte();
    a.kind = static_cast<Action::Kind>(head & 0x0f);
    a.client = static_cast<int>(Byte()) - 1;
    a.arg_age = head & kHasAge ? UnZigZag(Varint()) : 0;
    a.jump_by = head & kHasJump ? UnZigZag(Varint()) : 0;
    a.server = head & kHasServer ? static_cast<int>(UnZigZag(Varint())) : 0;
    return a;
  }
  std::vector<Action> Path() {
    std::vector<Action> path(Varint());
    for (Action& a : path) a = Step();
    return path;
  }
  // A state's steps as PutState wrote them, still encoded.
  std::string Steps() {
    const uint64_t n = Varint();
    LOCKSTEP_CHECK(at_ + n <= s_.size(), "a distributed search's message ends early");
    std::string steps = s_.substr(at_, n);
    at_ += n;
    return steps;
  }

 private:
  uint8_t Byte() {
    uint8_t b;
    Take(&b, 1);
    return b;
  }
  void Take(void* to, size_t n) {
    LOCKSTEP_CHECK(at_ + n <= s_.size(), "a distributed search's message ends early");
    std::memcpy(to, s_.data() + at_, n);
    at_ += n;
  }
  const std::string& s_;
  size_t at_ = 0;
};

// The actions PutAction encoded in `steps`, into *path.
void Decode(const std::string& steps, std::vector<Action>* path) {
  path->clear();
  for (Reader r(steps); !r.done();) path->push_back(r.Step());
}

// What every rank adds up after each round: fixed fields, then one slot per
// rank for what cannot be summed (a violation's length, a double).
enum Field : size_t {
  kLeft,         // states of this level not yet expanded
  kNext,         // states of the next level
  kInterrupted,  // ranks told to stop
  kFailed,       // ranks whose algorithm threw
  kCutOff,       // ranks that left a state unexpanded at the step bound
  kStates,
  kTransitions,
  kEnds,  // states with nothing enabled, and states cut off
  kBytes,
  kSent,       // states sent to their owner
  kSentBytes,  // the bytes they took
  kFields
};

class Rank {
 public:
  Rank(const world::WorldConfig& config, const Properties& properties, const SearchOptions& options,
       Communicator& ranks)
      : o_(options),
        ranks_(ranks),
        k_(ranks.size()),
        me_(ranks.rank()),
        space_(config, properties,
               {.forget_history = options.reductions.forget_history,
                .abstract_identity = options.reductions.forget_history,
                .symmetry = options.reductions.symmetry,
                .max_steps = options.bounds.max_steps}),
        visited_(options.storage, /*sleep_sets=*/false, /*depths=*/false, /*threads=*/false) {}

  SearchResult Run() {
    SearchResult result;
    world::WorldState s0;
    if (auto v = space_.Initial(&s0)) {
      result.verdict = Verdict::kViolation;
      result.violation = v;
      return Finish(result);
    }
    const Fingerprint f0 = space_.Identity(s0);
    if (Owner(f0) == me_) Keep(f0, {});
    level_.swap(next_);
    auto last_report = Clock::now();
    for (;;) {
      std::vector<std::string> out(static_cast<size_t>(k_));
      try {
        ExpandBatch(out);
      } catch (const std::exception& e) {
        failure_ = e.what();
      }
      Receive(ranks_.Exchange(std::move(out)));
      const std::vector<uint64_t> sums = ranks_.Sum(Mine());
      Count(sums);
      if (sums[kFailed] > 0) Fail();
      if (std::optional<int> winner = Winner(sums)) {
        result.verdict = Verdict::kViolation;
        result.counterexample = Broadcast(*winner);
        result.violation = Judge(result.counterexample);
        break;
      }
      if (sums[kInterrupted] > 0) {
        result.verdict = Verdict::kIncomplete;
        result.incomplete = "interrupted";
        break;
      }
      if (sums[kLeft] == 0) {
        if (sums[kNext] == 0) {
          if (sums[kCutOff] > 0) {
            result.verdict = Verdict::kIncomplete;
            result.incomplete = "stopped at max-steps " + std::to_string(*o_.bounds.max_steps);
          }
          break;
        }
        level_.swap(next_);
        next_.clear();
        at_ = 0;
        ++depth_;
        // Every rank is at the same level: all stop together.
        if (!o_.bounds.max_steps && o_.bounds.runaway_steps && depth_ >= *o_.bounds.runaway_steps) {
          result.verdict = Verdict::kIncomplete;
          result.incomplete = RunawayText(*o_.bounds.runaway_steps);
          break;
        }
      }
      if (o_.progress && Clock::now() - last_report > std::chrono::milliseconds(250)) {
        last_report = Clock::now();
        stats_.max_depth = depth_;
        stats_.elapsed_s = Elapsed();
        Gauges();
        o_.progress(stats_);
      }
    }
    return Finish(result);
  }

 private:
  void ExpandBatch(std::vector<std::string>& out) {
    for (size_t n = 0; n < kBatch && at_ < level_.size() && !found_; ++n, ++at_) {
      // A stop ends the batch at once; the round's sum tells every rank.
      if (o_.interrupted && o_.interrupted->load(std::memory_order_relaxed)) break;
      std::string& steps = level_[at_];
      Decode(steps, &path_);
      const world::WorldState& s = Rebuild(path_);
      std::optional<check::Violation> end;
      const Offer offer = space_.Offers(s, depth_, &enabled_, &end);
      if (offer != Offer::kActions) {
        ++ends_;
        if (end) found_ = path_;
        if (offer == Offer::kStepBound) cut_off_ = true;
        continue;
      }
      for (const Action& a : enabled_) {
        world::WorldState next = s;
        const bool violates = space_.Step(next, a, depth_ + 1).has_value();
        ++transitions_;
        if (violates) {
          found_ = path_;
          found_->push_back(a);
          break;
        }
        const Fingerprint f = space_.Identity(next);
        const int owner = Owner(f);
        child_ = steps;
        PutAction(child_, a);
        if (owner == me_) {
          Keep(f, child_);
        } else {
          std::string& to = out[static_cast<size_t>(owner)];
          const size_t before = to.size();
          PutState(to, f, child_);
          ++sent_;
          sent_bytes_ += to.size() - before;
        }
      }
      std::string().swap(steps);  // expanded: not needed again
    }
  }

  // The rank that keeps `f`: a hash independent of the bits the visited
  // table indexes by.
  int Owner(const Fingerprint& f) const {
    return static_cast<int>(base::Mix64(f.b ^ base::Mix64(f.a)) % static_cast<uint64_t>(k_));
  }

  // Adds a state this rank owns to the next level, if it is new.
  void Keep(const Fingerprint& f, const std::string& steps) {
    if (!visited_.InsertOrUpdate(f, {0, 0}, [](VisitedEntry&) {})) return;
    if (o_.collect_states) states_.push_back(f);
    next_.push_back(steps);
  }

  void Receive(const std::vector<std::string>& in) {
    for (const std::string& buffer : in) {
      for (Reader r(buffer); !r.done();) {
        const Fingerprint f = r.Print();
        Keep(f, r.Steps());
      }
    }
  }

  // The state `path` reaches, replayed from the longest prefix it shares
  // with the path replayed before: a level's states lie in the order their
  // parents were expanded, so siblings share all but their last step and
  // cousins most of their path.
  const world::WorldState& Rebuild(const std::vector<Action>& path) {
    if (replayed_.empty()) replayed_.push_back(space_.model().Initial());
    size_t common = 0;
    while (common < path.size() && common < replayed_path_.size() &&
           path[common] == replayed_path_[common]) {
      ++common;
    }
    replayed_path_.resize(common);
    replayed_.resize(common + 1);
    for (size_t i = common; i < path.size(); ++i) {
      world::WorldState next = replayed_.back();
      space_.model().Apply(next, path[i], nullptr);  // a path searched: no violation on it
      replayed_.push_back(std::move(next));
      replayed_path_.push_back(path[i]);
    }
    return replayed_.back();
  }

  std::vector<uint64_t> Mine() const {
    std::vector<uint64_t> v(kFields + 2 * static_cast<size_t>(k_), 0);
    v[kLeft] = level_.size() - at_;
    v[kNext] = next_.size();
    v[kInterrupted] = o_.interrupted && o_.interrupted->load() ? 1 : 0;
    v[kFailed] = failure_.empty() ? 0 : 1;
    v[kCutOff] = cut_off_ ? 1 : 0;
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

  // The rank whose violation is shortest (the lowest such rank), if any.
  std::optional<int> Winner(const std::vector<uint64_t>& sums) const {
    std::optional<int> winner;
    for (int r = 0; r < k_; ++r) {
      uint64_t length = sums[kFields + static_cast<size_t>(r)];
      if (length > 0 && (!winner || length < sums[kFields + static_cast<size_t>(*winner)])) {
        winner = r;
      }
    }
    return winner;
  }

  // Every rank learns the winner's violating path.
  std::vector<Action> Broadcast(int winner) {
    std::vector<std::string> out(static_cast<size_t>(k_));
    if (winner == me_) {
      for (std::string& to : out) PutPath(to, *found_);
    }
    std::vector<std::string> in = ranks_.Exchange(std::move(out));
    Reader r(in[static_cast<size_t>(winner)]);
    return r.Path();
  }

  // The violation `path` ends in, judged again here as it was where found.
  check::Violation Judge(const std::vector<Action>& path) {
    ReplayStrategy replay(path);
    const ExecutionResult run = RunExecution(space_, replay);
    LOCKSTEP_CHECK(run.violation.has_value() && run.schedule.size() == path.size(),
                   "the path a rank found ends in a violation, where it first happens");
    return *run.violation;
  }

  // Some rank's algorithm threw: every rank throws the lowest rank's error.
  [[noreturn]] void Fail() {
    std::vector<std::string> out(static_cast<size_t>(k_), failure_);
    for (const std::string& error : ranks_.Exchange(std::move(out))) {
      if (!error.empty()) throw std::runtime_error(error);
    }
    throw std::runtime_error("a rank of the distributed search failed");
  }

  // Every rank's counts, from a round's sums.
  void Count(const std::vector<uint64_t>& sums) {
    stats_.states = sums[kStates];
    stats_.transitions = sums[kTransitions];
    stats_.executions = sums[kEnds];
    stats_.memory_bytes = sums[kBytes];
    stats_.states_sent = sums[kSent];
    stats_.bytes_sent = sums[kSentBytes];
    stats_.expected_omissions = 0;
    for (int r = 0; r < k_; ++r) {
      stats_.expected_omissions +=
          std::bit_cast<double>(sums[kFields + static_cast<size_t>(k_ + r)]);
    }
  }

  // This rank's gauges: what it has left of its level and the next, its
  // automata.
  void Gauges() {
    stats_.waiting = level_.size() - at_ + next_.size();
    SetAutomata(space_.model(), &stats_);
  }

  SearchResult& Finish(SearchResult& result) {
    Count(ranks_.Sum(Mine()));
    stats_.max_depth = result.verdict == Verdict::kViolation
                           ? static_cast<int>(result.counterexample.size())
                           : depth_;
    stats_.elapsed_s = Elapsed();
    Gauges();
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

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  const SearchOptions& o_;
  Communicator& ranks_;
  const int k_, me_;
  StateSpace space_;
  StateStore visited_;
  const Clock::time_point start_ = Clock::now();
  // The states of this level and the next, as their encoded steps: a state
  // is rebuilt when it is expanded, from the prefix it shares with the one
  // before (siblings are next to each other).
  std::vector<std::string> level_, next_;
  std::vector<Action> path_;  // the path of the state being expanded
  std::string child_;         // the steps of its successor
  size_t at_ = 0;
  int depth_ = 0;
  std::vector<Action> enabled_;
  uint64_t transitions_ = 0, ends_ = 0, sent_ = 0, sent_bytes_ = 0;
  bool cut_off_ = false;
  std::optional<std::vector<Action>> found_;
  std::string failure_;
  std::vector<Fingerprint> states_;  // collect_states
  // Rebuild's last path, and the state after each of its steps (the
  // initial state first).
  std::vector<Action> replayed_path_;
  std::vector<world::WorldState> replayed_;
  SearchStats stats_;
};

}  // namespace

SearchResult DistributedSearch(const world::WorldConfig& config, const Properties& properties,
                               const SearchOptions& options, Communicator& ranks) {
  if (!options.reductions.cache) {
    throw std::invalid_argument(
        "the distributed search partitions the visited states among its ranks: it needs them "
        "kept (no --no-cache)");
  }
  if (options.bounds.preemptions) {
    throw std::invalid_argument(
        "the distributed search cannot bound preemptions (--preemptions): it would need each "
        "path's switches in every state's identity");
  }
  return Rank(config, properties, options, ranks).Run();
}

}  // namespace lockstep::explore
