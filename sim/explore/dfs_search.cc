// Exhaustive depth-first search with state caching, symmetry and sleep sets.
//
// Sleep sets (Godefroid, "Partial-Order Methods for the Verification of
// Concurrent Systems", 1996) prune transitions, never states: after exploring
// t from s, an independent transition u that was already explored from s
// need not be explored again after t. With state caching, each visited state
// keeps the sleep set it was explored with; a later visit with a smaller
// sleep set explores exactly the transitions that were asleep before.
#include <chrono>
#include <unordered_set>

#include "sim/explore/dependence.h"
#include "sim/explore/search.h"
#include "sim/explore/visited_table.h"

namespace lockstep::explore {
namespace {

using world::Action;
using Clock = std::chrono::steady_clock;

// A sleep set holds client steps (client < 8, age < 4) as bits; anything
// else is never put to sleep, which is always sound.
constexpr int kAgeBits = 4;
std::optional<uint32_t> SleepBit(const Action& a, const std::vector<int>& numbering) {
  if (a.kind != Action::Kind::kStep || a.age >= kAgeBits) return std::nullopt;
  int c = numbering.empty() ? a.client : numbering[a.client];
  if (c >= 8) return std::nullopt;
  return uint32_t{1} << (c * kAgeBits + a.age);
}

// Re-numbers a sleep set: from[i] is client i's number in the source.
uint32_t Renumber(uint32_t mask, const std::vector<int>& to_canonical, bool to) {
  if (to_canonical.empty() || mask == 0) return mask;
  uint32_t out = 0;
  const int n = static_cast<int>(to_canonical.size());
  for (int i = 0; i < n && i < 8; ++i) {
    int canon = to_canonical[i];
    if (canon >= 8) continue;
    int src = to ? i : canon, dst = to ? canon : i;
    uint32_t bits = (mask >> (src * kAgeBits)) & ((1u << kAgeBits) - 1);
    out |= bits << (dst * kAgeBits);
  }
  return out;
}

class Dfs {
 public:
  Dfs(const world::WorldConfig& config, const Properties& properties, const SearchOptions& o)
      : o_(o),
        model_(config, o.reductions.cache && o.reductions.forget_history),
        fingerprinter_(model_, o.reductions.symmetry, o.reductions.forget_history),
        properties_(properties),
        start_(Clock::now()),
        last_report_(start_) {}

  SearchResult Run() {
    world::WorldState s = model_.Initial();
    if (auto v = check::CheckAll(properties_, model_, s, 0)) {
      result_.verdict = Verdict::kViolation;
      result_.violation = v;
    } else {
      Visit(s, 0, 0, 0, -1);
    }
    result_.stats.states = o_.reductions.cache ? visited_.size() : seen_.size();
    result_.stats.memory_bytes = o_.reductions.cache ? visited_.bytes() : 0;
    result_.stats.elapsed_s = Elapsed();
    if (o_.collect_states) {
      if (o_.reductions.cache) {
        result_.states.assign(all_states_.begin(), all_states_.end());
      } else {
        result_.states.assign(seen_.begin(), seen_.end());
      }
    }
    if (result_.verdict == Verdict::kSafe && !incomplete_.empty()) {
      result_.verdict = Verdict::kIncomplete;
      result_.incomplete = incomplete_;
    }
    return std::move(result_);
  }

 private:
  double Elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

  // Returns true iff the search must stop (violation or interruption).
  bool Visit(const world::WorldState& s, uint32_t sleep, int depth, int preempted, int last) {
    SearchStats& st = result_.stats;
    if (depth > st.max_depth) st.max_depth = depth;
    std::vector<uint64_t> extra;
    if (o_.bounds.preemptions) extra = {static_cast<uint64_t>(preempted), static_cast<uint64_t>(last + 1)};
    std::vector<int> canon;
    Fingerprint f = fingerprinter_.Of(s, extra, &canon);

    std::vector<Action> enabled;
    model_.EnabledActions(s, &enabled);
    std::vector<Action> todo;
    if (o_.reductions.cache) {
      uint32_t awake = 0;  // transitions asleep before and awake now
      bool again = false;
      bool fresh = visited_.InsertOrUpdate(
          f, {Renumber(sleep, canon, true), static_cast<uint32_t>(depth)}, [&](VisitedEntry& e) {
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
      if (fresh && o_.collect_states) all_states_.insert(f);
      if (!fresh && !again) {
        if (awake == 0) {
          ++st.executions;
          return false;
        }
        for (const Action& a : enabled) {
          auto bit = SleepBit(a, {});
          if (bit && (awake & *bit)) todo.push_back(a);
        }
      }
      if (fresh || again) {
        for (const Action& a : enabled) {
          auto bit = SleepBit(a, {});
          if (!o_.reductions.por || !bit || !(sleep & *bit)) todo.push_back(a);
        }
      }
    } else {
      seen_.insert(f);
      todo = enabled;
    }

    if (enabled.empty()) {
      ++st.executions;
      return false;
    }
    if (o_.bounds.max_steps && depth >= *o_.bounds.max_steps) {
      ++st.executions;
      NoteBound("max-steps " + std::to_string(*o_.bounds.max_steps));
      return false;
    }

    uint32_t done = 0;
    bool explored_any = false;
    world::WorldState next;
    for (const Action& a : todo) {
      int now_preempted = preempted;
      if (o_.bounds.preemptions && a.kind == Action::Kind::kStep && last >= 0 && a.client != last &&
          s.clients[last].status == world::ClientStatus::kReady) {
        if (++now_preempted > *o_.bounds.preemptions) {
          NoteBound("preemptions " + std::to_string(*o_.bounds.preemptions));
          continue;
        }
      }
      next = s;
      model_.Apply(next, a, nullptr);
      ++st.transitions;
      explored_any = true;
      path_.push_back(a);
      if (auto v = check::CheckAll(properties_, model_, next, depth + 1)) {
        result_.verdict = Verdict::kViolation;
        result_.violation = v;
        result_.counterexample = path_;
        ++st.executions;
        return true;
      }
      if ((st.transitions & 4095) == 0 && Poll()) return true;
      uint32_t child_sleep = 0;
      if (o_.reductions.por) {
        uint32_t candidates = sleep | done;
        for (const Action& u : enabled) {
          auto bit = SleepBit(u, {});
          if (bit && (candidates & *bit) && Independent(model_, s, a, u)) child_sleep |= *bit;
        }
      }
      int now_last = a.kind == Action::Kind::kStep ? a.client : last;
      if (Visit(next, child_sleep, depth + 1, now_preempted, now_last)) return true;
      path_.pop_back();
      if (auto bit = SleepBit(a, {})) done |= *bit;
    }
    if (!explored_any) ++st.executions;
    return false;
  }

  void NoteBound(const std::string& what) {
    if (incomplete_.empty()) incomplete_ = "stopped at " + what;
  }

  bool Poll() {
    if (o_.interrupted && o_.interrupted->load()) {
      incomplete_ = "interrupted";
      result_.verdict = Verdict::kIncomplete;
      result_.incomplete = incomplete_;
      return true;
    }
    auto now = Clock::now();
    if (o_.progress && now - last_report_ > std::chrono::milliseconds(250)) {
      last_report_ = now;
      result_.stats.states = o_.reductions.cache ? visited_.size() : seen_.size();
      result_.stats.elapsed_s = Elapsed();
      o_.progress(result_.stats);
    }
    return false;
  }

  const SearchOptions& o_;
  world::Model model_;
  Fingerprinter fingerprinter_;
  const Properties& properties_;
  VisitedTable visited_;
  std::unordered_set<Fingerprint, FingerprintHash> seen_;        // without caching
  std::unordered_set<Fingerprint, FingerprintHash> all_states_;  // collect_states
  std::vector<Action> path_;
  std::string incomplete_;
  SearchResult result_;
  Clock::time_point start_, last_report_;
};

}  // namespace

const char* VerdictText(Verdict v) {
  switch (v) {
    case Verdict::kSafe: return "safe";
    case Verdict::kViolation: return "violation";
    case Verdict::kIncomplete: return "incomplete";
  }
  return "?";
}

SearchResult DepthFirstSearch(const world::WorldConfig& config, const Properties& properties,
                              const SearchOptions& options) {
  return Dfs(config, properties, options).Run();
}

}  // namespace lockstep::explore
