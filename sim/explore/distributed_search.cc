// A search over states partitioned among ranks, as distributed Murphi
// (Stern and Dill) and PReach partition them: a state belongs to the rank
// its fingerprint hashes to, that rank alone keeps it in its visited table
// and explores its successors, and successors that belong elsewhere are
// sent to their owner in batches.
//
// Asynchronous, as PReach is: each rank expands its own states without
// waiting for the others, sends a batch to an owner once it holds kBatch
// states (or once the rank runs out of work), and takes what arrived
// whenever it looks. Locally the order is last in, first out: the state
// expanded next is most often a child of the one just expanded, so it is
// rebuilt by one step. Termination is Safra's token (termination.h): no
// round waits for every rank. A rank that finds a violation, fails or is
// interrupted tells every other to stop.
//
// Without levels, the first violation found may not be a shortest one: the
// search reports the shortest of those its ranks found, and the command
// shrinks it by breadth-first search as it shrinks a depth-first one. A
// state carries its depth, and under a step bound the table keeps each
// state's least depth, meeting a state again sooner explores it again (as
// the depth-first search does), so the bound cuts exactly the states
// beyond it.
//
// A state travels, and waits, as its fingerprint and the path that reaches
// it (path_codec.h). It is rebuilt when it is expanded, by replaying its
// path from the longest prefix it shares with the state expanded before; a
// batch received is expanded in the order of its paths, so neighbours
// share most of theirs.
//
// No sleep sets: they prune transitions, never states, so the states
// visited are the ones a depth-first search visits.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "sim/base/check.h"
#include "sim/base/hash.h"
#include "sim/explore/communicator.h"
#include "sim/explore/path_codec.h"
#include "sim/explore/replay_strategy.h"
#include "sim/explore/search.h"
#include "sim/explore/state_space.h"
#include "sim/explore/state_store.h"
#include "sim/explore/termination.h"

namespace lockstep::explore {
namespace {

using world::Action;
using Clock = std::chrono::steady_clock;

// States in a batch sent to their owner.
constexpr size_t kBatch = 1024;
// States expanded between two looks at what arrived.
constexpr int kChunk = 64;
// How long an idle rank waits for a message before looking at its stop flag.
constexpr std::chrono::microseconds kIdleWait{2000};

// A message's first byte.
enum Kind : char { kBatchOfStates, kToken, kStop, kDone, kProgress };

// What every rank adds up at the end: fixed fields, then one slot per rank
// for what cannot be summed (a violation's length, a double).
enum Field : size_t {
  kInterrupted,  // ranks told to stop
  kFailed,       // ranks whose algorithm threw
  kCutOff,       // ranks that left a state unexpanded at the step bound
  kRunaway,      // ranks that met an execution of runaway_steps
  kStates,
  kTransitions,
  kEnds,  // states with nothing enabled, and states cut off
  kBytes,
  kSent,       // states sent to their owner
  kSentBytes,  // the bytes they took
  kFields
};

// A state waiting to be expanded: its encoded steps and their number.
struct Waiting {
  std::string steps;
  int depth = 0;
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
        visited_(options.storage, /*sleep_sets=*/false,
                 /*depths=*/options.bounds.max_steps.has_value(), /*threads=*/false),
        out_(static_cast<size_t>(k_)),
        in_batch_(static_cast<size_t>(k_), 0),
        messages_to_(static_cast<size_t>(k_), 0),
        messages_from_(static_cast<size_t>(k_), 0),
        progress_of_(static_cast<size_t>(k_)),
        termination_(ranks.rank(), ranks.size()) {}

  SearchResult Run() {
    SearchResult result;
    world::WorldState s0;
    if (auto v = space_.Initial(&s0)) {
      result.verdict = Verdict::kViolation;
      result.violation = v;
      return Finish(result);
    }
    const Fingerprint f0 = space_.Identity(s0);
    if (Owner(f0) == me_) Keep(f0, {}, 0);
    Search();
    Drain();
    return Conclude(result);
  }

 private:
  // Expands, sends and receives until the search is over everywhere or
  // some rank stops it.
  void Search() {
    auto last_report = Clock::now();
    while (!over_) {
      for (int n = 0; n < kChunk && !stack_.empty() && !Stopping(); ++n) {
        Waiting w = std::move(stack_.back());
        stack_.pop_back();
        try {
          Expand(w);
        } catch (const std::exception& e) {
          failure_ = e.what();
        }
      }
      if (Stopping()) {
        for (int r = 0; r < k_; ++r) {
          if (r != me_) Send(r, std::string(1, kStop));
        }
        return;
      }
      if (stack_.empty()) {
        for (int r = 0; r < k_; ++r) Flush(r);
        // Idle: the token may move on, or say the search is over.
        if (std::optional<Token> t = termination_.Passive()) {
          if (t->done) {
            for (int r = 1; r < k_; ++r) Send(r, std::string(1, kDone));
            return;
          }
          std::string token(1, kToken);
          PutU64(token, static_cast<uint64_t>(t->count));
          token.push_back(t->black ? 1 : 0);
          Send(termination_.Next(), std::move(token));
        }
      }
      const auto wait = stack_.empty() ? kIdleWait : std::chrono::microseconds(0);
      for (auto m = ranks_.Receive(wait); m; m = ranks_.Receive(std::chrono::microseconds(0))) {
        Handle(*m);
      }
      if (Clock::now() - last_report > std::chrono::milliseconds(250)) {
        last_report = Clock::now();
        Report();
      }
    }
  }

  bool Stopping() const {
    return found_ || !failure_.empty() || runaway_ ||
           (o_.interrupted && o_.interrupted->load(std::memory_order_relaxed));
  }

  void Expand(const Waiting& w) {
    Decode(w.steps, &path_);
    max_depth_ = std::max(max_depth_, w.depth);
    const world::WorldState& s = Rebuild(path_);
    std::optional<check::Violation> end;
    const Offer offer = space_.Offers(s, w.depth, &enabled_, &end);
    if (offer != Offer::kActions) {
      ++ends_;
      if (end) found_ = path_;
      if (offer == Offer::kStepBound) cut_off_ = true;
      return;
    }
    if (!o_.bounds.max_steps && o_.bounds.runaway_steps && w.depth >= *o_.bounds.runaway_steps) {
      runaway_ = true;
      return;
    }
    for (const Action& a : enabled_) {
      world::WorldState next = s;
      const bool violates = space_.Step(next, a, w.depth + 1).has_value();
      ++transitions_;
      if (violates) {
        found_ = path_;
        found_->push_back(a);
        return;
      }
      const Fingerprint f = space_.Identity(next);
      const int owner = Owner(f);
      child_ = w.steps;
      PutAction(child_, a);
      if (owner == me_) {
        Keep(f, child_, w.depth + 1);
        continue;
      }
      std::string& to = out_[static_cast<size_t>(owner)];
      if (to.empty()) to.push_back(kBatchOfStates);
      const size_t before = to.size();
      PutFingerprint(to, f);
      PutVarint(to, static_cast<uint64_t>(w.depth + 1));
      PutVarint(to, child_.size());
      to += child_;
      ++sent_;
      sent_bytes_ += to.size() - before;
      if (++in_batch_[static_cast<size_t>(owner)] >= kBatch) Flush(owner);
    }
  }

  // The rank that keeps `f`: a hash independent of the bits the visited
  // table indexes by.
  int Owner(const Fingerprint& f) const {
    return static_cast<int>(base::Mix64(f.b ^ base::Mix64(f.a)) % static_cast<uint64_t>(k_));
  }

  // Adds a state this rank owns to its work, if it is new or, under a step
  // bound, reached in fewer steps than before (its subtree was cut deeper).
  void Keep(const Fingerprint& f, const std::string& steps, int depth) {
    bool again = false;
    const bool fresh =
        visited_.InsertOrUpdate(f, {0, static_cast<uint32_t>(depth)}, [&](VisitedEntry& e) {
          if (o_.bounds.max_steps && static_cast<uint32_t>(depth) < e.depth) {
            again = true;
            e.depth = static_cast<uint32_t>(depth);
          }
        });
    if (!fresh && !again) return;
    if (fresh && o_.collect_states) states_.push_back(f);
    stack_.push_back({steps, depth});
  }

  void Send(int to, std::string bytes) {
    ++messages_to_[static_cast<size_t>(to)];
    ranks_.Send(to, std::move(bytes));
  }

  void Flush(int to) {
    std::string& out = out_[static_cast<size_t>(to)];
    if (out.empty()) return;
    termination_.Sent();
    Send(to, std::move(out));
    out.clear();
    in_batch_[static_cast<size_t>(to)] = 0;
  }

  void Handle(const Communicator::Message& m) {
    ++messages_from_[static_cast<size_t>(m.from)];
    LOCKSTEP_CHECK(!m.bytes.empty(), "a distributed search's message is not empty");
    switch (m.bytes[0]) {
      case kBatchOfStates: {
        termination_.Received();
        // Expanded in the order of their paths (the stack's top last), so
        // that each shares most of its path with the one before.
        const size_t first = stack_.size();
        for (Reader r(m.bytes, 1); !r.done();) {
          const Fingerprint f = r.Print();
          const int depth = static_cast<int>(r.Varint());
          Keep(f, r.Bytes(r.Varint()), depth);
        }
        std::sort(stack_.begin() + static_cast<std::ptrdiff_t>(first), stack_.end(),
                  [](const Waiting& x, const Waiting& y) { return x.steps > y.steps; });
        break;
      }
      case kToken: {
        Reader r(m.bytes, 1);
        Token t;
        t.count = static_cast<int64_t>(r.U64());
        t.black = r.Byte() != 0;
        termination_.Take(t);
        break;
      }
      case kStop:
      case kDone:
        over_ = true;
        break;
      case kProgress: {
        Reader r(m.bytes, 1);
        for (uint64_t& v : progress_of_[static_cast<size_t>(m.from)]) v = r.U64();
        break;
      }
      default:
        LOCKSTEP_CHECK(false, "a distributed search's message is of a known kind");
    }
  }

  // Every rank but 0 tells rank 0 its counts; every rank with a progress
  // callback calls it with the counts it knows.
  void Report() {
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

  // Takes every message still addressed to this rank (each rank learns how
  // many each other sent it), so that none is left unmatched.
  void Drain() {
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

  // The state `path` reaches, replayed from the longest prefix it shares
  // with the path replayed before.
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

  SearchResult& Conclude(SearchResult& result) {
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

  std::vector<uint64_t> Mine() const {
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

  // Every rank's counts, summed.
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

  SearchResult& Finish(SearchResult& result) {
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

  // The greatest depth any rank expanded.
  int DeepestOfAll() {
    std::vector<uint64_t> depths(static_cast<size_t>(k_), 0);
    depths[static_cast<size_t>(me_)] = static_cast<uint64_t>(max_depth_);
    depths = ranks_.Sum(depths);
    return static_cast<int>(*std::max_element(depths.begin(), depths.end()));
  }

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  const SearchOptions& o_;
  Communicator& ranks_;
  const int k_, me_;
  StateSpace space_;
  StateStore visited_;
  const Clock::time_point start_ = Clock::now();
  std::vector<Waiting> stack_;  // this rank's states not yet expanded
  // Per rank: the batch being filled for it, and its states.
  std::vector<std::string> out_;
  std::vector<size_t> in_batch_;
  // Messages of every kind sent to and taken from each rank (Drain).
  std::vector<uint64_t> messages_to_, messages_from_;
  // The latest counts each rank reported: states, transitions, waiting.
  std::vector<std::array<uint64_t, 3>> progress_of_;
  Termination termination_;
  bool over_ = false;         // a rank said stop, or the search is over
  std::vector<Action> path_;  // the path of the state being expanded
  std::string child_;         // the steps of its successor
  int max_depth_ = 0;
  std::vector<Action> enabled_;
  uint64_t transitions_ = 0, ends_ = 0, sent_ = 0, sent_bytes_ = 0;
  bool cut_off_ = false, runaway_ = false;
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
