// Exhaustive depth-first search with state caching, symmetry and sleep sets,
// on one thread or several.
//
// Sleep sets (Godefroid, "Partial-Order Methods for the Verification of
// Concurrent Systems", 1996) prune transitions, never states: after exploring
// t from s, an independent transition u that was already explored from s
// need not be explored again after t. With state caching, each visited state
// keeps the sleep set it was explored with; a later visit with a smaller
// sleep set explores exactly the transitions that were asleep before.
//
// With several jobs, one thread explores the first levels and leaves the
// states at the split depth in a frontier; then every thread (each with its
// own model, since fibers belong to their thread) takes frontier states in
// turn and explores below them, sharing the visited-state table.
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "sim/base/limits.h"
#include "sim/base/signal_stack.h"
#include "sim/explore/dependence.h"
#include "sim/explore/dfs_shared.h"
#include "sim/explore/packed_state.h"
#include "sim/explore/search.h"
#include "sim/explore/sleep_set.h"
#include "sim/explore/state_space.h"
#include "sim/explore/state_store.h"

namespace lockstep::explore {
namespace {

using dfs::Clock;
using dfs::FrontierItem;
using dfs::Shared;
using world::Action;

class Dfs {
 public:
  Dfs(const world::WorldConfig& config, const Properties& properties, Shared& shared)
      : sh_(shared),
        o_(shared.o),
        // Without caching every history is kept: a plain enumeration.
        space_(config, properties,
               {.forget_history = o_.reductions.cache && o_.reductions.forget_history,
                .abstract_identity = o_.reductions.forget_history,
                .symmetry = o_.reductions.symmetry,
                .max_steps = o_.bounds.max_steps}),
        dependence_(space_.model(), space_.ghost()) {}

  // Explores from the initial state. With split_depth, states at that depth
  // are left in *frontier instead.
  void Root(std::optional<int> split_depth, std::vector<FrontierItem>* frontier) {
    split_depth_ = split_depth;
    frontier_ = frontier;
    world::WorldState s;
    if (auto v = space_.Initial(&s)) {
      Found(*v);
      return;
    }
    Child root;
    Identify(s, 0, -1, root);
    if (Visit(s, root, 0, 0, 0, -1) == Next::kExpand) Expand(s, 0, 0, 0, -1);
    Flush();
  }

  // Explores one frontier item.
  void Item(const FrontierItem& item) {
    split_depth_.reset();
    // The item's state, rebuilt: its path was searched, so nothing on it
    // violates a property.
    world::WorldState s = space_.model().Initial();
    for (const Action& a : item.path) space_.model().Apply(s, a, nullptr);
    path_ = item.path;
    const int depth = static_cast<int>(item.path.size());
    At(depth).enabled.clear();
    At(depth).todo = item.todo;
    Expand(s, item.sleep, depth, item.preempted, item.last);
    Flush();
  }

  size_t plain_states() const { return seen_.size(); }
  const world::Model& model() const { return space_.model(); }
  const std::vector<std::vector<int>>& symmetry_classes() const {
    return space_.symmetry_classes();
  }
  std::vector<Fingerprint> plain_state_list() const { return {seen_.begin(), seen_.end()}; }

 private:
  // One state on the path being explored: its transitions are
  // At(depth).todo, of which `next` is the next to take.
  struct Frame {
    const world::WorldState* s;
    int depth;
    uint32_t sleep;
    int preempted;
    int last;
    size_t next = 0;
    uint32_t done = 0;  // sleep bits of the transitions explored from here
    bool explored_any = false;
  };

  void Found(const check::Violation& v) {
    std::lock_guard<std::mutex> lock(sh_.mu);
    if (!sh_.violation) {
      sh_.violation = v;
      sh_.counterexample = path_;
    }
    sh_.stop.store(true);
  }

  void Flush() {
    sh_.transitions += transitions_;
    sh_.executions += executions_;
    transitions_ = executions_ = 0;
    SearchStats now;
    now.waiting = stack_.size();
    SetAutomata(space_.model(), &now);
    // Each gauge moves by this thread's change (unsigned: a fall wraps
    // around and adds back down).
    auto move = [](std::atomic<uint64_t>& total, uint64_t& mine, uint64_t value) {
      total += value - mine;
      mine = value;
    };
    move(sh_.waiting, published_.waiting, now.waiting);
    move(sh_.automata_bytes, published_.automata_bytes, now.automata_bytes);
    move(sh_.automata_states, published_.automata_states, now.automata_states);
    move(sh_.automata_transitions, published_.automata_transitions, now.automata_transitions);
    move(sh_.automata_forgets, published_.automata_forgets, now.automata_forgets);
  }

  // What follows a visit: stop the search, go back up, or explore the
  // transitions Visit left in At(depth).todo.
  enum class Next { kStop, kBack, kExpand };

  // A successor of the state being expanded, made before any is visited
  // (Generate), so that their table slots are fetched together.
  struct Child {
    world::WorldState state;
    Fingerprint f;
    std::vector<int> canon;                     // its clients' canonical numbers
    PackedState packed;                         // its bytes, for exact storage
    std::optional<check::Violation> violation;  // what it shows
    int preempted = 0;
    int last = -1;               // the client that moved last on the way to it
    bool over_bound = false;     // past the preemption bound: not made
    std::exception_ptr failure;  // making it threw: rethrown when it is visited
  };

  // Per-depth scratch space, so that the search allocates nothing once warm.
  struct Buffers {
    std::vector<Action> enabled, todo;
    std::vector<Child> children;  // children[k] follows todo[k]
  };

  // Fingerprints `s` (reached with `preempted` switches, `last` moving
  // last) into `c`, and starts fetching its table slot.
  void Identify(const world::WorldState& s, int preempted, int last, Child& c) {
    const Fingerprinter::PathState path{preempted, last};
    c.f = space_.Identity(s, o_.bounds.preemptions ? &path : nullptr, &c.canon,
                          sh_.visited.keeps_states() ? &c.packed : nullptr);
    if (o_.reductions.cache) sh_.visited.Prefetch(c.f);
  }

  Next Visit(const world::WorldState& s, const Child& child, uint32_t sleep, int depth,
             int preempted, int last) {
    if (depth > max_depth_) {
      max_depth_ = depth;
      int seen = sh_.max_depth.load();
      while (depth > seen && !sh_.max_depth.compare_exchange_weak(seen, depth)) {
      }
    }
    if (s.now > clock_reached_) [[unlikely]] {
      clock_reached_ = s.now;
      world::Millis seen = sh_.clock_reached.load();
      while (s.now > seen && !sh_.clock_reached.compare_exchange_weak(seen, s.now)) {
      }
    }
    const Fingerprint& f = child.f;
    const std::vector<int>& canon = child.canon;

    // Most visits find a state already explored with nothing left to do:
    // the enabled actions are computed only after the table says otherwise.
    bool all = true;     // explore every enabled action not asleep...
    uint32_t awake = 0;  // ...or only these: asleep before and awake now
    if (o_.reductions.cache) {
      bool again = false;
      bool fresh = sh_.visited.InsertOrUpdate(
          f, child.packed.bytes(), {Renumber(sleep, canon, true), static_cast<uint32_t>(depth)},
          [&](VisitedEntry& e) {
            if (o_.bounds.max_steps && static_cast<uint32_t>(depth) < e.depth) {
              again = true;  // reached sooner: its subtree was cut deeper before
              e.depth = static_cast<uint32_t>(depth);
              e.sleep = Renumber(sleep, canon, true);
              return;
            }
            uint32_t before = Renumber(e.sleep, canon, false);
            awake = before & ~sleep;
            e.sleep = Renumber(before & sleep, canon, true);
          });
      if (fresh && o_.collect_states) {
        std::lock_guard<std::mutex> lock(sh_.mu);
        sh_.all_states.insert(f);
      }
      if (fresh && o_.bounds.max_states && sh_.fresh.fetch_add(1) >= *o_.bounds.max_states) {
        sh_.StopIncomplete(StateBudgetText(*o_.bounds.max_states));
        return Next::kStop;
      }
      all = fresh || again;
      if (!all && awake == 0) {
        ++executions_;
        return Next::kBack;
      }
    } else {
      seen_.insert(f);
    }

    Buffers& b = At(depth);
    std::vector<Action>& enabled = b.enabled;
    std::optional<check::Violation> end;
    switch (space_.Offers(s, depth, &enabled, &end)) {
      case Offer::kEnd:
        ++executions_;
        if (end) {
          Found(*end);
          return Next::kStop;
        }
        return Next::kBack;
      case Offer::kStepBound:
        ++executions_;
        sh_.NoteBound("max-steps " + std::to_string(*o_.bounds.max_steps));
        return Next::kBack;
      case Offer::kActions:
        break;
    }
    std::vector<Action>& todo = b.todo;
    todo.clear();
    for (const Action& a : enabled) {
      auto bit = SleepBit(a);
      const bool take = !o_.reductions.cache ? true
                        : all                ? !o_.reductions.por || !bit || !(sleep & *bit)
                                             : bit && (awake & *bit);
      if (take) todo.push_back(a);
    }
    // `enabled` is needed below only for sleep sets, which Expand recomputes.

    if (o_.bounds.runaway_steps && depth >= *o_.bounds.runaway_steps) {
      ++executions_;
      sh_.StopIncomplete(RunawayText(*o_.bounds.runaway_steps));
      return Next::kStop;
    }
    if (split_depth_ && depth >= *split_depth_) {
      frontier_->push_back({path_, todo, sleep, preempted, last});
      return Next::kBack;
    }
    return Next::kExpand;
  }

  // Explores below `s` (at `depth`, its transitions in At(depth).todo)
  // depth first. The path is kept on an explicit stack, not the thread's:
  // without state caching an execution can be as long as --max-steps.
  // Returns true iff the search must stop.
  bool Expand(const world::WorldState& s, uint32_t sleep, int depth, int preempted, int last) {
    stack_.clear();
    stack_.push_back({&s, depth, sleep, preempted, last});
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      Buffers& b = At(f.depth);
      if (f.next == 0) {
        if (o_.reductions.por && b.enabled.empty()) space_.model().EnabledActions(*f.s, &b.enabled);
        Generate(f, b);
      }
      if (f.next == b.todo.size()) {
        if (!f.explored_any) ++executions_;
        stack_.pop_back();
        if (!stack_.empty()) Back(stack_.back());
        continue;
      }
      Child& child = b.children[f.next];
      const Action& a = b.todo[f.next++];
      if (child.over_bound) {
        sh_.NoteBound("preemptions " + std::to_string(*o_.bounds.preemptions));
        continue;
      }
      if (child.failure) std::rethrow_exception(child.failure);
      const int now_preempted = child.preempted;
      world::WorldState& next = child.state;
      ++transitions_;
      if (o_.bounds.max_transitions && ++applied_ > *o_.bounds.max_transitions) {
        sh_.StopIncomplete(TransitionBudgetText(*o_.bounds.max_transitions));
        return true;
      }
      f.explored_any = true;
      path_.push_back(a);
      if (child.violation) {
        ++executions_;
        Found(*child.violation);
        return true;
      }
      if (PollDue() && Poll()) return true;
      uint32_t child_sleep = 0;
      if (o_.reductions.por) {
        uint32_t candidates = f.sleep | f.done;
        for (const Action& u : b.enabled) {
          auto bit = SleepBit(u);
          if (bit && (candidates & *bit) && dependence_.Independent(*f.s, a, next, u)) {
            child_sleep |= *bit;
          }
        }
      }
      const int now_last = child.last;
      const int child_depth = f.depth + 1;
      switch (Visit(next, child, child_sleep, child_depth, now_preempted, now_last)) {
        case Next::kStop:
          return true;
        case Next::kBack:
          Back(f);
          break;
        case Next::kExpand:
          stack_.push_back(
              {&next, child_depth, child_sleep, now_preempted, now_last});  // f dangles
          break;
      }
    }
    return false;
  }

  // Makes and fingerprints every successor of frame `f` (its transitions
  // are b.todo) before the first is visited: their table lookups, each a
  // likely cache miss, are then fetched at once rather than one by one.
  // What a successor's visit checks, and its order, stay as they were.
  void Generate(const Frame& f, Buffers& b) {
    if (b.children.size() < b.todo.size()) b.children.resize(b.todo.size());
    for (size_t k = 0; k < b.todo.size(); ++k) {
      const Action& a = b.todo[k];
      Child& c = b.children[k];
      c.failure = nullptr;
      c.over_bound = false;
      c.preempted = f.preempted;
      c.last = a.kind == Action::Kind::kStep ? a.client : f.last;
      if (o_.bounds.preemptions && a.kind == Action::Kind::kStep && f.last >= 0 &&
          a.client != f.last && f.s->clients[f.last].status == world::ClientStatus::kReady) {
        if (++c.preempted > *o_.bounds.preemptions) {
          c.over_bound = true;
          continue;
        }
      }
      try {
        c.state = *f.s;
        c.violation = space_.Step(c.state, a, f.depth + 1);
        Identify(c.state, c.preempted, c.last, c);
      } catch (...) {
        c.failure = std::current_exception();
      }
    }
  }

  // Back at frame `f` from its last transition.
  void Back(Frame& f) {
    path_.pop_back();
    if (auto bit = SleepBit(At(f.depth).todo[f.next - 1])) f.done |= *bit;
  }

  // A stop is heeded at the next transition, and the counts and progress
  // come every 100 ms, however long a transition takes: the clock is read
  // every 64 transitions, a flag every one.
  bool PollDue() {
    if (o_.interrupted && o_.interrupted->load(std::memory_order_relaxed)) return true;
    if ((transitions_ & 63) != 0) return false;
    const Clock::time_point now = Clock::now();
    if (now - last_poll_ < std::chrono::milliseconds(100)) return false;
    last_poll_ = now;
    return true;
  }

  bool Poll() {
    Flush();
    if (sh_.stop.load()) return true;
    if (o_.interrupted && o_.interrupted->load()) {
      std::lock_guard<std::mutex> lock(sh_.mu);
      sh_.incomplete = "interrupted";
      sh_.stop.store(true);
      return true;
    }
    if (o_.progress) {
      std::unique_lock<std::mutex> lock(sh_.mu, std::try_to_lock);
      auto now = Clock::now();
      if (lock.owns_lock() && now - sh_.last_report > std::chrono::milliseconds(250)) {
        sh_.last_report = now;
        SearchStats st;
        st.executions = sh_.executions;
        st.transitions = sh_.transitions;
        st.max_depth = sh_.max_depth;
        st.states = o_.reductions.cache ? sh_.visited.size() : seen_.size();
        st.elapsed_s = sh_.Elapsed();
        sh_.Gauges(&st);
        o_.progress(st);
      }
    }
    return false;
  }

  Buffers& At(int depth) {
    const auto d = static_cast<size_t>(depth);
    if (d < buffers_.size()) [[likely]]
      return *buffers_[d];
    return Grow(d);
  }
  // Out of line, so that At inlines into the search's loop.
  [[gnu::noinline]] Buffers& Grow(size_t depth) {
    while (buffers_.size() <= depth) buffers_.push_back(std::make_unique<Buffers>());
    return *buffers_[depth];
  }

  std::vector<std::unique_ptr<Buffers>> buffers_;
  Clock::time_point last_poll_ = Clock::now();
  Shared& sh_;
  const SearchOptions& o_;
  StateSpace space_;
  Dependence dependence_;
  std::unordered_set<Fingerprint, FingerprintHash> seen_;  // without caching
  std::vector<Action> path_;
  std::vector<Frame> stack_;
  std::optional<int> split_depth_;
  std::vector<FrontierItem>* frontier_ = nullptr;
  uint64_t transitions_ = 0, executions_ = 0;
  uint64_t applied_ = 0;  // this thread's transitions, for Bounds::max_transitions
  int max_depth_ = 0;
  world::Millis clock_reached_ = std::numeric_limits<world::Millis>::min();
  SearchStats published_;  // this thread's share of the shared gauges
};

}  // namespace

SearchResult DepthFirstSearch(const world::WorldConfig& config, const Properties& properties,
                              const SearchOptions& options) {
  Shared shared(options);
  SearchResult result;
  // Several jobs need the shared table: without caching the search is one thread.
  const int jobs = options.reductions.cache ? std::max(1, options.jobs) : 1;
  Dfs first(config, properties, shared);
  if (jobs == 1) {
    first.Root(std::nullopt, nullptr);
  } else {
    std::vector<FrontierItem> frontier;
    first.Root(/*split_depth=*/8, &frontier);
    std::atomic<size_t> next{0};
    std::exception_ptr failure;  // an algorithm that threw, on any thread
    auto work = [&] {
      base::SignalStack signal_stack;  // a stop signal may land on a fiber
      try {
        Dfs dfs(config, properties, shared);
        for (size_t i; !shared.stop.load() && (i = next++) < frontier.size();)
          dfs.Item(frontier[i]);
        shared.NoteGrowth(dfs.model());
      } catch (...) {
        std::lock_guard<std::mutex> lock(shared.mu);
        if (!failure) failure = std::current_exception();
        shared.stop.store(true);
      }
    };
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
  }
  shared.NoteGrowth(first.model());
  result.warnings = shared.warnings;
  result.symmetry_classes = first.symmetry_classes();
  SearchStats& st = result.stats;
  st.executions = shared.executions;
  st.transitions = shared.transitions;
  st.max_depth = shared.max_depth;
  shared.Gauges(&st);
  st.states = options.reductions.cache ? shared.visited.size() : first.plain_states();
  st.memory_bytes = options.reductions.cache ? shared.visited.bytes() : 0;
  st.expected_omissions = options.reductions.cache ? shared.visited.ExpectedOmissions() : 0;
  st.elapsed_s = shared.Elapsed();
  if (options.collect_states) {
    result.states = options.reductions.cache ? std::vector<Fingerprint>(shared.all_states.begin(),
                                                                        shared.all_states.end())
                                             : first.plain_state_list();
  }
  if (shared.violation) {
    result.verdict = Verdict::kViolation;
    result.violation = shared.violation;
    result.counterexample = shared.counterexample;
  } else if (!shared.incomplete.empty()) {
    result.verdict = Verdict::kIncomplete;
    result.incomplete = shared.incomplete;
  }
  return result;
}

}  // namespace lockstep::explore
