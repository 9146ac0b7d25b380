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
#include <stdexcept>

#include "sim/base/check.h"
#include "sim/base/hash.h"
#include "sim/explore/distributed_rank.h"
#include "sim/explore/path_codec.h"

namespace lockstep::explore {
namespace distributed {

Rank::Rank(const world::WorldConfig& config, const Properties& properties,
           const SearchOptions& options, Communicator& ranks)
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

SearchResult Rank::Run() {
  SearchResult result;
  world::WorldState s0;
  if (auto v = space_.Initial(&s0)) {
    result.verdict = Verdict::kViolation;
    result.violation = v;
    return Finish(result);
  }
  const Fingerprint f0 = space_.Identity(s0, nullptr, nullptr, PackedIfKept());
  if (Owner(f0) == me_) Keep(f0, packed_.bytes(), {}, 0);
  Search();
  Drain();
  return Conclude(result);
}

void Rank::Search() {
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

bool Rank::Stopping() const {
  return found_ || !failure_.empty() || runaway_ ||
         (o_.interrupted && o_.interrupted->load(std::memory_order_relaxed));
}

void Rank::Expand(const Waiting& w) {
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
    const Fingerprint f = space_.Identity(next, nullptr, nullptr, PackedIfKept());
    const int owner = Owner(f);
    child_ = w.steps;
    PutAction(child_, a);
    if (owner == me_) {
      Keep(f, packed_.bytes(), child_, w.depth + 1);
      continue;
    }
    std::string& to = out_[static_cast<size_t>(owner)];
    if (to.empty()) to.push_back(kBatchOfStates);
    const size_t before = to.size();
    PutFingerprint(to, f);
    if (visited_.keeps_states()) {
      PutVarint(to, packed_.bytes().size());
      to += packed_.bytes();
    }
    PutVarint(to, static_cast<uint64_t>(w.depth + 1));
    PutVarint(to, child_.size());
    to += child_;
    ++sent_;
    sent_bytes_ += to.size() - before;
    if (++in_batch_[static_cast<size_t>(owner)] >= kBatch) Flush(owner);
  }
}

int Rank::Owner(const Fingerprint& f) const {
  return static_cast<int>(base::Mix64(f.b ^ base::Mix64(f.a)) % static_cast<uint64_t>(k_));
}

void Rank::Keep(const Fingerprint& f, std::string_view packed, const std::string& steps,
                int depth) {
  bool again = false;
  const bool fresh =
      visited_.InsertOrUpdate(f, packed, {0, static_cast<uint32_t>(depth)}, [&](VisitedEntry& e) {
        if (o_.bounds.max_steps && static_cast<uint32_t>(depth) < e.depth) {
          again = true;
          e.depth = static_cast<uint32_t>(depth);
        }
      });
  if (!fresh && !again) return;
  if (fresh && o_.collect_states) states_.push_back(f);
  stack_.push_back({steps, depth});
}

void Rank::Send(int to, std::string bytes) {
  ++messages_to_[static_cast<size_t>(to)];
  ranks_.Send(to, std::move(bytes));
}

void Rank::Flush(int to) {
  std::string& out = out_[static_cast<size_t>(to)];
  if (out.empty()) return;
  termination_.Sent();
  Send(to, std::move(out));
  out.clear();
  in_batch_[static_cast<size_t>(to)] = 0;
}

void Rank::Handle(const Communicator::Message& m) {
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
        const std::string packed = visited_.keeps_states() ? r.Bytes(r.Varint()) : "";
        const int depth = static_cast<int>(r.Varint());
        Keep(f, packed, r.Bytes(r.Varint()), depth);
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

const world::WorldState& Rank::Rebuild(const std::vector<Action>& path) {
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

}  // namespace distributed

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
  return distributed::Rank(config, properties, options, ranks).Run();
}

}  // namespace lockstep::explore
