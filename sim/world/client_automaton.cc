#include "sim/world/client_automaton.h"

#include <stdexcept>

#include <boost/fiber/fiber.hpp>

#include "sim/base/check.h"
#include "sim/base/hash.h"
#include "sim/kv/command_table.h"
#include "sim/world/fiber_scheduler.h"
#include "sim/world/fiber_stack.h"

namespace lockstep::world {
namespace {

// A fiber's stack is two mappings (the stack and its guard page) until the
// dispatcher releases it; a process may hold 65,530 (vm.max_map_count).
constexpr int kReleaseEvery = 64;

// For memo keys only, which live in this process: a kept text's hash.
uint64_t HashReplyValue(uint64_t h, const kv::Reply& r) {
  h = base::Mum(h ^ (static_cast<uint64_t>(r.type) + 1),
                static_cast<uint64_t>(r.integer) ^ base::kGoldenGamma);
  h = base::HashCombine(h, r.text.hash());
  for (const auto& e : r.elements) h = HashReplyValue(h, e);
  return h;
}

}  // namespace

uint64_t ClientAutomaton::HashReply::operator()(const kv::Reply& r) const {
  return HashReplyValue(0x7265706c79ULL, r);
}

uint64_t ClientAutomaton::HashReasons::operator()(const std::vector<Reason>& reasons) const {
  uint64_t h = reasons.size();
  for (const Reason& r : reasons) h = base::HashText(base::HashText(h, r.text), r.source);
  return h;
}

uint64_t ClientAutomaton::HashGhost::operator()(const std::vector<GhostEvent>& ghost) const {
  uint64_t h = ghost.size();
  for (const GhostEvent& g : ghost) {
    h = base::Mum(h ^ (static_cast<uint64_t>(g.kind) + 1),
                  static_cast<uint64_t>(g.valid_until) ^ base::kGoldenGamma);
  }
  return h;
}

uint64_t HashInput(const Input& in) {
  uint64_t h = HashReplyValue(0x696e707574ULL, in.reply);
  h = base::Mum(h ^ static_cast<uint64_t>(in.clock),
                static_cast<uint64_t>(in.sent_timestamp) ^ base::kGoldenGamma);
  return base::HashCombine(h, uint64_t{in.reply_is_time} | uint64_t{in.sent_clock} << 1);
}

// A client fiber and the Client object it runs against.
struct ClientAutomaton::Live {
  Live(int index, uint64_t seed, const std::function<void(Client&)>& body, const Input& initial,
       const RandomRules& rules)
      : client(index, seed, &ThisThreadFiberScheduler(), boost::fibers::context::active()) {
    client.Prime(initial);
    client.set_rules(rules);
    // launch::dispatch runs the fiber at once, up to its first request.
    fiber = boost::fibers::fiber(boost::fibers::launch::dispatch, std::allocator_arg,
                                 FiberStack(&stack_bottom), [this, &body] {
                                   client.set_fiber(boost::fibers::context::active(), stack_bottom);
                                   std::string error;
                                   bool stopped = false;
                                   bool finding = true;
                                   bool read_token = false;
                                   try {
                                     body(client);
                                   } catch (const ClientStopped&) {
                                     stopped = true;  // abandoned: unwind quietly
                                   } catch (const TokenReadBack& e) {
                                     error = e.what();
                                     finding = false;
                                     read_token = true;
                                   } catch (const LockMisuse& e) {
                                     error = e.place + ": " + e.what();
                                     finding = false;
                                   } catch (const std::logic_error& e) {
                                     error = e.what();
                                     finding = false;
                                   } catch (const std::exception& e) {
                                     error = e.what();
                                   } catch (...) {
                                     error = "an exception that is not a std::exception";
                                   }
                                   ForgetUnwoundFrames();
                                   if (!stopped) {
                                     client.Finish(std::move(error), finding, read_token);
                                   }
                                 });
  }
  ~Live() {
    if (client.request().kind != Request::Kind::kDone) {
      client.Stop();
      client.Resume(Input{});
    }
    if (fiber.joinable()) fiber.join();
  }
  Client client;
  char* stack_bottom = nullptr;  // of the fiber's stack
  boost::fibers::fiber fiber;
};

ClientAutomaton::ClientAutomaton(std::string name, int index, uint64_t seed,
                                 std::function<void(Client&)> body, bool use_forget_history,
                                 RandomRules rules, size_t max_parked, uint64_t max_memo_bytes)
    : name_(std::move(name)),
      index_(index),
      seed_(seed),
      body_(std::move(body)),
      use_forget_history_(use_forget_history),
      rules_(rules),
      max_parked_(max_parked),
      max_memo_bytes_(max_memo_bytes) {}

ClientAutomaton::~ClientAutomaton() {
  parked_.clear();
  ThisThreadFiberScheduler().ReleaseFinishedFibers();
}

LocalState ClientAutomaton::Id(const Client& c) const {
  return use_forget_history_ ? c.abstract_history() : c.concrete_history();
}

std::unique_ptr<ClientAutomaton::Live> ClientAutomaton::Spawn() {
  return std::make_unique<Live>(index_, seed_, body_, start_input_, rules_);
}

namespace {

// A request as text, for the error above.
std::string Describe(const Request& r) {
  switch (r.kind) {
    case Request::Kind::kCommand: {
      std::string s = "command";
      if (r.instance != 0) s += " to instance " + std::to_string(r.instance);
      for (const Value& v : r.argv) {
        s += " " + (v.is_clock() ? "<clock+" + std::to_string(v.offset()) + ">" : v.literal());
      }
      return s;
    }
    case Request::Kind::kLeave:
      return "leave the critical section";
    case Request::Kind::kSleep:
      return "sleep " + std::to_string(r.sleep_ticks) +
             (r.sleep_most != r.sleep_ticks ? " to " + std::to_string(r.sleep_most) : "");
    case Request::Kind::kResource:
      return "write the resource with token " + std::to_string(r.token);
    case Request::Kind::kDraw:
      return "draw " + std::to_string(r.draw_least) + " to " + std::to_string(r.draw_most);
    case Request::Kind::kDone:
      return "finish";
  }
  return "?";
}

bool SameRequest(const Request& a, const Request& b) {
  bool same = a.kind == b.kind && a.argv.size() == b.argv.size() &&
              a.sleep_ticks == b.sleep_ticks && a.sleep_most == b.sleep_most &&
              a.token == b.token && a.instance == b.instance && bool(a.make) == bool(b.make) &&
              a.draw_least == b.draw_least && a.draw_most == b.draw_most;
  for (size_t i = 0; same && i < a.argv.size(); ++i) {
    same = a.argv[i].literal() == b.argv[i].literal() &&
           a.argv[i].is_clock() == b.argv[i].is_clock() && a.argv[i].offset() == b.argv[i].offset();
  }
  return same;
}

// What a value owns on the heap beyond its own size (a string within the
// small-string buffer owns nothing).
uint64_t HeapBytes(const std::string& s) {
  return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}
// A reply's text is kept once for the process (kv::Text), not by the reply.
uint64_t HeapBytes(const kv::Reply& r) {
  uint64_t bytes = r.elements.capacity() * sizeof(kv::Reply);
  for (const kv::Reply& e : r.elements) bytes += HeapBytes(e);
  return bytes;
}
// An argument's literal is kept once for the process (kv::Text), as a
// reply's text is: the texts' own report counts it.
uint64_t HeapBytes(const Request& r) {
  return r.argv.capacity() * sizeof(Value) + HeapBytes(r.error) + HeapBytes(r.source);
}
uint64_t HeapBytes(const std::vector<Reason>& reasons) {
  uint64_t bytes = reasons.capacity() * sizeof(Reason);
  for (const Reason& r : reasons) bytes += HeapBytes(r.text) + HeapBytes(r.source);
  return bytes;
}
uint64_t HeapBytes(const std::vector<GhostEvent>& ghost) {
  return ghost.capacity() * sizeof(GhostEvent);
}
// A node of a std::unordered_map (or set) beyond its value: the next
// pointer and the cached hash.
constexpr uint64_t kMapNodeOverhead = 2 * sizeof(void*);

// What keeping `v` in an Interned set costs, if it was kept just now.
template <typename T>
uint64_t KeptBytes(const std::pair<const T*, bool>& kept) {
  return kept.second ? sizeof(T) + kMapNodeOverhead + HeapBytes(*kept.first) : 0;
}

}  // namespace

uint64_t ClientAutomaton::bytes() const {
  return node_bytes_ + memo_bytes_ +
         (nodes_.bucket_count() + replies_.bucket_count() + reasons_.bucket_count() +
          ghosts_.bucket_count()) *
             sizeof(void*) +
         memo_index_.capacity() * sizeof(Memo*) +
         parked_.size() * (sizeof(Live) + kMapNodeOverhead);
}

size_t ClientAutomaton::Depth(LocalState s) const {
  size_t depth = 0;
  for (LocalState at = s; !nodes_.at(at).is_start; at = nodes_.at(at).parent) ++depth;
  return depth;
}

void ClientAutomaton::Record(LocalState s, const Client& c, LocalState parent, const Input& via,
                             bool start) {
  auto [it, fresh] = nodes_.try_emplace(s);
  if (!fresh) {
    // Same state reached again: the request must be the same.
    const Request& a = it->second.request;
    const Request& b = c.request();
    const bool same = SameRequest(a, b);
    if (!same) {
      throw std::runtime_error(
          "the algorithm of " + name_ +
          " makes different requests in what it declared to be "
          "the same state, at its step " +
          std::to_string(Depth(s)) +
          ": it is not deterministic, or a ForgetHistory call forgets something that matters (" +
          Describe(a) + " and then " + Describe(b) + ")");
    }
    return;
  }
  Request& kept = it->second.request;
  kept = c.request();
  // A command's name is a literal (a clock argument there names none).
  kept.command =
      kept.kind == Request::Kind::kCommand && !kept.argv.empty() && !kept.argv[0].is_clock()
          ? kv::FindRunnable(kept.argv[0].literal(), kept.argv.size())
          : nullptr;
  if (growing_.empty() && c.requests_since_forget() >= kRememberedRequests) {
    growing_ = c.request().source;
  }
  History& h = it->second.history;
  h.abstract = c.abstract_history();
  h.shape = c.shape();
  h.times = c.times();
  h.time_ages = c.time_ages();
  any_time_ages_ |= !h.time_ages.empty();
  it->second.parent = parent;
  it->second.via = via;
  it->second.is_start = start;
  node_bytes_ += sizeof(std::pair<const LocalState, Node>) + kMapNodeOverhead +
                 HeapBytes(it->second.request) +
                 (h.times.capacity() + h.time_ages.capacity()) * sizeof(Millis) +
                 HeapBytes(it->second.via.reply);
}

std::string ClientAutomaton::GrowthWarning() const {
  if (growing_.empty()) return "";
  return name_ + "'s algorithm made " + std::to_string(kRememberedRequests) +
         " requests without forgetting its history, the last at " + growing_ +
         ": a loop that remembers every reply it saw is in a new state on every pass, and the "
         "search never ends. If what the loop does next depends on a few values only, say so "
         "at its head (lock.forget_history, Client::ForgetHistory)";
}

LocalState ClientAutomaton::Start(const Input& initial) {
  LOCKSTEP_CHECK(!started_ || initial == start_input_,
                 "client automaton: it serves one initial input");
  if (!started_) {
    start_input_ = initial;
    std::unique_ptr<Live> live = Spawn();
    start_ = Id(live->client);
    Record(start_, live->client, 0, Input{}, true);
    if (!live->client.request().error.empty()) Throw(live->client.request());
    Keep(start_, std::move(live));
    started_ = true;
  }
  return start_;
}

void ClientAutomaton::Throw(const Request& r) const {
  const std::string message = "the algorithm of " + name_ + " threw: " + r.error;
  if (r.error_read_token) throw TokenReadBack(message, name_);  // run::Explore may search again
  throw std::runtime_error(message);
}

const Request& ClientAutomaton::RequestAt(LocalState s) const { return nodes_.at(s).request; }

void ClientAutomaton::Keep(LocalState s, std::unique_ptr<Live> live) {
  if (live->client.request().kind == Request::Kind::kDone) {
    live.reset();  // nothing left to learn
    ++finished_;
  } else {
    auto [it, fresh] = parked_.try_emplace(s);
    finished_ += !fresh;
    it->second = std::move(live);
    if (fresh) parked_order_.push_back(s);
    while (parked_.size() > max_parked_) {
      parked_.erase(parked_order_.front());
      parked_order_.erase(parked_order_.begin());
      ++finished_;
    }
  }
  // An ended fiber keeps its stack until Boost's dispatcher runs: without
  // this, a long search that keeps learning ran out of mappings.
  if (finished_ >= kReleaseEvery) {
    ThisThreadFiberScheduler().ReleaseFinishedFibers();
    finished_ = 0;
  }
}

std::unique_ptr<ClientAutomaton::Live> ClientAutomaton::LiveAt(LocalState s) {
  if (auto it = parked_.find(s); it != parked_.end()) {
    std::unique_ptr<Live> live = std::move(it->second);
    parked_.erase(it);
    parked_order_.erase(std::find(parked_order_.begin(), parked_order_.end(), s));
    return live;
  }
  // Replay the first path that reached s on a new fiber, each request
  // held to the one made there before: a client that is not deterministic
  // is named with the step where it diverged.
  std::vector<LocalState> path;  // s, its parent, ..., the start
  for (LocalState at = s;; at = nodes_.at(at).parent) {
    path.push_back(at);
    if (nodes_.at(at).is_start) break;
  }
  std::unique_ptr<Live> live = Spawn();
  for (size_t step = 0; step < path.size(); ++step) {
    const LocalState expected = path[path.size() - 1 - step];
    if (step > 0) live->client.Resume(nodes_.at(expected).via);
    const Request& before = nodes_.at(expected).request;
    const Request& now = live->client.request();
    if (Id(live->client) != expected || !SameRequest(before, now)) {
      throw std::runtime_error(
          "the algorithm of " + name_ + " is not deterministic: run again from its start with " +
          "the same inputs, it diverged at its step " + std::to_string(step) + " (it made " +
          Describe(before) + " before, and " +
          (now.kind == Request::Kind::kDone && !now.error.empty() ? "threw: " + now.error
                                                                  : Describe(now)) +
          " now)");
    }
  }
  return live;
}

size_t ClientAutomaton::MemoSlot(const Key& key, const std::vector<Memo*>& index) {
  return base::Mix64(key.state ^ key.input_hash * base::kGoldenGamma) & (index.size() - 1);
}

void ClientAutomaton::ForgetMemos() {
  memos_ = {};
  memo_index_.assign(64, nullptr);
  memo_keys_ = 0;
  replies_.Clear();
  reasons_.Clear();
  ghosts_.Clear();
  memo_bytes_ = 0;
  ++forgets_;
}

const Transition& ClientAutomaton::Resume(LocalState s, const Input& input) {
  const Key key{s, HashInput(input)};
  const size_t mask = memo_index_.size() - 1;
  size_t slot = MemoSlot(key, memo_index_);
  Memo* last = nullptr;  // the last memo with this key, if any
  for (; memo_index_[slot] != nullptr; slot = (slot + 1) & mask) {
    Memo* m = memo_index_[slot];
    if (!(m->key == key)) continue;
    for (;; m = m->next) {
      if (m->input.Matches(input)) return m->transition;
      if (m->next == nullptr) break;
    }
    last = m;
    break;
  }
  if (memo_bytes_ > max_memo_bytes_) {
    ForgetMemos();
    slot = MemoSlot(key, memo_index_);
    last = nullptr;
  }
  std::unique_ptr<Live> live = LiveAt(s);
  Transition t;
  const auto ghost = ghosts_.Keep(live->client.Resume(input));
  const auto reasons = reasons_.Keep(live->client.reasons());
  t.ghost = ghost.first;
  t.reasons = reasons.first;
  t.read_clock = live->client.read_clock();
  t.next = Id(live->client);
  Record(t.next, live->client, s, input, false);
  t.next_request = &nodes_.at(t.next).request;
  // A rule broken ends the search; a finding is a transition like any
  // other, to a state where the client has failed (check::ClientError).
  const Request& done = live->client.request();
  if (!done.error.empty() && !done.error_is_finding) Throw(done);
  ++learned_;
  Keep(t.next, std::move(live));
  const auto reply = replies_.Keep(input.reply);
  memos_.push_back(
      Memo{key,
           {reply.first, input.clock, input.sent_timestamp, input.sent_clock, input.reply_is_time},
           t});
  memo_bytes_ += sizeof(Memo) + KeptBytes(reply) + KeptBytes(reasons) + KeptBytes(ghost);
  Memo* const added = &memos_.back();
  if (last != nullptr) {
    last->next = added;
  } else {
    memo_index_[slot] = added;
    // At most half full; growing re-enters the first memo of each key.
    if (++memo_keys_ * 2 > memo_index_.size()) {
      std::vector<Memo*> grown(memo_index_.size() * 2, nullptr);
      for (Memo* first : memo_index_) {
        if (first == nullptr) continue;
        size_t i = MemoSlot(first->key, grown);
        while (grown[i] != nullptr) i = (i + 1) & (grown.size() - 1);
        grown[i] = first;
      }
      memo_index_.swap(grown);
    }
  }
  return added->transition;
}

}  // namespace lockstep::world
