// One client's behaviour as a transition system, learned from its fiber.
//
// A deterministic client is a function of what it has observed. So its
// state can be named by a hash of its observations (a LocalState), and its
// behaviour is a table: (state, input) -> (ghost events, next state), with
// the request it makes in each state. The automaton fills this table lazily
// by running the client's real fiber, and memoises it, so that exploring
// millions of interleavings runs the algorithm's code only once per distinct
// (state, input).
//
// To run a transition it has not seen, it needs a fiber parked in that
// state: it keeps the fibers it has advanced, and otherwise starts a new
// fiber and feeds it the inputs of the first path that reached the state.
//
// With `use_forget_history`, states are named by what was observed since
// the algorithm's last ForgetHistory (see client.h); without it, by
// everything observed since the start (always sound).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/base/hash.h"
#include "sim/world/client.h"
#include "sim/world/interned.h"
#include "sim/world/request.h"

namespace lockstep::world {

using LocalState = uint64_t;

// The lists a transition points at are kept once by its automaton (they
// recur across transitions), and never null.
struct Transition {
  LocalState next = 0;
  const Request* next_request = nullptr;  // RequestAt(next), looked up once
  const std::vector<GhostEvent>* ghost = nullptr;
  const std::vector<Reason>* reasons = nullptr;  // what the local code said of its decisions
  bool read_clock = false;                       // the client's local code read its clock
};

class ClientAutomaton {
 public:
  ClientAutomaton(std::string name, int index, uint64_t seed, std::function<void(Client&)> body,
                  bool use_forget_history, RandomRules rules = {}, size_t max_parked = kMaxParked,
                  uint64_t max_memo_bytes = kMaxMemoBytes);
  ~ClientAutomaton();
  ClientAutomaton(const ClientAutomaton&) = delete;
  ClientAutomaton& operator=(const ClientAutomaton&) = delete;

  // The state in which the client makes its first request; `initial` is
  // what it sees before it (its clock at the start).
  LocalState Start(const Input& initial);
  // The request the client makes in `s`. REQUIRES: s was returned by Start
  // or Resume.
  const Request& RequestAt(LocalState s) const;
  // The client in `s`, given `input`. Throws std::runtime_error if the
  // algorithm threw, or turned out not to be deterministic.
  const Transition& Resume(LocalState s, const Input& input);

  // What a search reads of a state's history (Client::abstract_history,
  // shape, times and time_ages), found in one lookup; empty for 0.
  struct History {
    LocalState abstract = 0;  // the name by what was observed since the last ForgetHistory
    uint64_t shape = 0;       // the abstract history with its times apart
    std::vector<Millis> times;
    // For each of `times`, the age past which it is alike
    // (Client::NowAsStart, kUnboundedAge for none); empty when none has one.
    std::vector<Millis> time_ages;
  };
  const History& HistoryOf(LocalState s) const {
    static const History kNone;
    return s == 0 ? kNone : nodes_.at(s).history;
  }

  // The state's name by what was observed since the last ForgetHistory
  // (itself when the automaton already names states so); 0 stays 0.
  LocalState AbstractOf(LocalState s) const {
    return s == 0 || use_forget_history_ ? s : nodes_.at(s).history.abstract;
  }
  // Some state has ages (time_ages not empty): where none has, a search
  // need not look its states up for them.
  bool any_time_ages() const { return any_time_ages_; }

  // How many transitions were learned by running the fiber (again after
  // they were forgotten).
  uint64_t learned() const { return learned_; }
  size_t states() const { return nodes_.size(); }
  // The transitions it holds now, and how often it forgot all it held.
  size_t transitions() const { return memos_.size(); }
  uint64_t forgets() const { return forgets_; }
  // The memory its table holds, counted as it grows: each state's node and
  // each transition's memo with what they own on the heap, the indexes,
  // and the fibers kept parked (not the pages their stacks touched). An
  // estimate (the allocator's own overhead is not known), for the search's
  // report.
  uint64_t bytes() const;

  // Runs kept parked in their states, by default.
  static constexpr size_t kMaxParked = 64;
  // The memory its transitions may hold before it forgets them all, by
  // default. A forgotten transition is learned again when a search takes
  // it (from a parked run, or by replaying the state's first path), so
  // this bounds memory at long horizons, where a client's transitions grow
  // with the square of the clock's range (each state meets every time),
  // and costs only time. Its states are kept: the search's states name
  // them.
  static constexpr uint64_t kMaxMemoBytes = uint64_t{256} << 20;

  // Requests a client may make without a ForgetHistory before it is taken
  // for a loop that remembers everything it saw: its every pass is a new
  // state, and the space never ends.
  static constexpr uint64_t kRememberedRequests = 1'000;
  // A warning naming the client and the line of its first request past
  // kRememberedRequests, or "" if none is.
  std::string GrowthWarning() const;

 private:
  struct Live;  // a fiber parked in some state
  struct Node {
    Request request;
    LocalState parent = 0;
    History history;
    Input via;  // the input that led from parent here (first time)
    bool is_start = false;
  };
  struct Key {
    LocalState state;
    uint64_t input_hash;
    friend bool operator==(const Key&, const Key&) = default;
  };
  // An input as a memo keeps it: its reply kept once by the automaton.
  struct StoredInput {
    const kv::Reply* reply = nullptr;
    Millis clock = 0;
    Millis sent_timestamp = 0;
    bool sent_clock = false;
    bool reply_is_time = false;
    bool Matches(const Input& in) const {
      return clock == in.clock && sent_timestamp == in.sent_timestamp &&
             sent_clock == in.sent_clock && reply_is_time == in.reply_is_time && *reply == in.reply;
    }
  };
  struct Memo {
    Key key;
    StoredInput input;
    Transition transition;
    Memo* next = nullptr;  // the next memo with the same key
  };

  static size_t MemoSlot(const Key& key, const std::vector<Memo*>& index);
  std::unique_ptr<Live> Spawn();
  std::unique_ptr<Live> LiveAt(LocalState s);
  LocalState Id(const Client& c) const;
  void Record(LocalState s, const Client& c, LocalState parent, const Input& via, bool start);
  void Keep(LocalState s, std::unique_ptr<Live> live);
  // Its steps from the start to `s`.
  size_t Depth(LocalState s) const;
  // Forgets every memo and the values they keep.
  void ForgetMemos();
  // Ends the search for the rule `r`'s error broke (a runtime_error, or a
  // world::TokenReadBack).
  [[noreturn]] void Throw(const Request& r) const;

  std::string name_;
  int index_;
  uint64_t seed_;
  std::function<void(Client&)> body_;
  bool use_forget_history_;
  RandomRules rules_;
  size_t max_parked_;
  uint64_t max_memo_bytes_;
  std::unordered_map<LocalState, Node> nodes_;
  // The memo: every transition learned, in a deque so that the ones
  // returned stay where they are, and an open-addressing index of pointers
  // into it by key (null for an empty slot), memos with the same key
  // chained. A node-based map cost a cache miss or two a step; indices
  // into the deque, its arithmetic at every probe.
  std::deque<Memo> memos_;
  std::vector<Memo*> memo_index_ = std::vector<Memo*>(64, nullptr);
  size_t memo_keys_ = 0;
  std::unordered_map<LocalState, std::unique_ptr<Live>> parked_;
  std::vector<LocalState> parked_order_;
  int finished_ = 0;     // fibers ended since their stacks were last released
  std::string growing_;  // where a request first reached kRememberedRequests
  LocalState start_ = 0;
  Input start_input_;
  bool started_ = false;
  uint64_t learned_ = 0;
  uint64_t node_bytes_ = 0;  // nodes, as Record adds them
  uint64_t memo_bytes_ = 0;  // memos and the values they keep, as Resume adds them
  uint64_t forgets_ = 0;
  bool any_time_ages_ = false;
  struct HashReply {
    uint64_t operator()(const kv::Reply& r) const;
  };
  struct HashReasons {
    uint64_t operator()(const std::vector<Reason>& reasons) const;
  };
  struct HashGhost {
    uint64_t operator()(const std::vector<GhostEvent>& ghost) const;
  };
  Interned<kv::Reply, HashReply> replies_;
  Interned<std::vector<Reason>, HashReasons> reasons_;
  Interned<std::vector<GhostEvent>, HashGhost> ghosts_;
};

// A stable hash of an input, for memo keys.
uint64_t HashInput(const Input& in);

}  // namespace lockstep::world
