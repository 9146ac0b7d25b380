#include "sim/world/client.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sim/base/hash.h"
#include "sim/base/limits.h"
#include "sim/base/printable.h"
#include "sim/kv/int_parse.h"
#include "sim/world/fiber_scheduler.h"
#include "sim/world/fiber_stack.h"
#include "sim/world/random_draw.h"

namespace lockstep::world {
namespace {
// Tags keep observations of different kinds apart in the history hash.
enum Tag : uint64_t {
  kReply = 1,
  kClock,
  kStamp,
  kRandom,
  kForget,
  kLive,
  kWake,
  kLiveTime,
  kReplyTime,
  kStart,                     // a clock reading as the start of an elapsed time
  kToken,                     // a token drawn, as which of this client's draws
  kTime = uint64_t{1} << 40,  // in the shape: a time was observed here
};

uint64_t HashReply(const kv::Reply& r) {
  // Type and value in turn: combined in one step, nil (type 2) and the
  // integer 2 would collide.
  uint64_t h =
      base::HashCombine(base::HashCombine(0x7265706c79ULL, static_cast<uint64_t>(r.type) + 1),
                        static_cast<uint64_t>(r.integer));
  h = base::HashBytes(h, r.text);
  for (const auto& e : r.elements) h = base::HashCombine(h, HashReply(e));
  return h;
}

// Whether a reply holds a token of some client, in any of its texts.
bool ReplyHoldsToken(const kv::Reply& r, uint64_t seed) {
  if (HoldsToken(r.text, seed, base::kMaxClients)) return true;
  for (const auto& e : r.elements) {
    if (ReplyHoldsToken(e, seed)) return true;
  }
  return false;
}
}  // namespace

Client::Client(int index, uint64_t seed, FiberScheduler* scheduler, boost::fibers::context* driver)
    : index_(index), seed_(seed), scheduler_(scheduler), driver_(driver) {
  concrete_ = abstract_ = shape_ = base::HashCombine(0x6c6f636b73746570ULL, 0);
}

void Client::Observe(uint64_t v) {
  concrete_ = base::HashCombine(concrete_, v);
  abstract_ = base::HashCombine(abstract_, v);
  shape_ = base::HashCombine(shape_, v);
}

void Client::ObserveTime(uint64_t tag, Millis t, Millis longest_age) {
  const uint64_t v = base::HashCombine(tag, static_cast<uint64_t>(t));
  concrete_ = base::HashCombine(concrete_, v);
  abstract_ = base::HashCombine(abstract_, v);
  shape_ = base::HashCombine(shape_, kTime | tag);
  // A bound is part of the shape: it changes what of the time is kept.
  if (longest_age != kUnboundedAge) shape_ = base::HashCombine(shape_, uint64_t(longest_age));
  times_.push_back(t);
  if (longest_age != kUnboundedAge || !time_ages_.empty()) {
    time_ages_.resize(times_.size() - 1, kUnboundedAge);
    time_ages_.push_back(longest_age);
  }
}

std::optional<Millis> Client::ReplyTime() const {
  int64_t t = 0;
  if (!input_.reply_is_time || input_.reply.type != kv::Reply::Type::kBulk ||
      !kv::ParseInt64(input_.reply.text, &t)) {
    return std::nullopt;
  }
  return t;
}

bool Client::LastReplyIsTime() const { return ReplyTime().has_value(); }

void Client::ObserveReply() {
  if (const std::optional<Millis> t = ReplyTime()) {
    ObserveTime(kReplyTime, *t);
  } else {
    Observe(base::HashCombine(kReply, HashReply(input_.reply)));
  }
  // Observed first: the client that throws is in a state of its own.
  if (rules_.never_reads_tokens && ReplyHoldsToken(input_.reply, seed_)) {
    throw TokenReadBack("a reply it read holds a random token, which never_reads_tokens rules out");
  }
}

void Client::Park() {
  scheduler_->SwitchTo(driver_);
  if (stop_) throw ClientStopped{};
}

void Client::set_fiber(boost::fibers::context* fiber, char* stack_bottom) {
  fiber_ = fiber;
  stack_bottom_ = stack_bottom;
  EnterFiber(stack_bottom);
}

std::vector<GhostEvent> Client::Resume(const Input& input) {
  input_ = input;
  events_.clear();
  reasons_.clear();
  read_clock_ = false;
  EnterFiber(stack_bottom_);
  scheduler_->SwitchTo(fiber_);
  return std::move(events_);
}

void Client::Finish(std::string error, bool finding, bool read_token) {
  request_ = Request{};
  request_.kind = Request::Kind::kDone;
  // A message may quote a program's output or an exception's text: shown
  // and recorded escaped, as every text a trace shows is (trace.cc); a
  // finding's message is one line of a trace.
  request_.error = base::Printable(error, /*keep_newlines=*/!finding);
  request_.error_is_finding = finding && !request_.error.empty();
  request_.error_read_token = read_token;
}

std::string Client::Source(const Where& where) {
  if (!at_.empty()) return std::exchange(at_, "");
  // The file's name without its folders: the same on every machine.
  std::string_view file = where.file_name();
  if (size_t slash = file.find_last_of('/'); slash != std::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  return std::string(file) + ":" + std::to_string(where.line());
}

Request& Client::NewRequest(Request::Kind kind, const Where& where) {
  stepped_ = true;
  ++requests_since_forget_;
  request_ = Request{};
  request_.kind = kind;
  request_.source = Source(where);
  return request_;
}

void Client::Because(std::string reason, Where where) {
  // Shown on terminals and pages: a reason holds no control characters.
  if (!base::IsPrintable(reason)) reason = base::Printable(reason);
  reasons_.push_back({std::move(reason), Source(where)});
}

kv::Reply Client::CallOn(int instance, std::vector<Value> argv, Where where) {
  NewRequest(Request::Kind::kCommand, where);
  request_.argv = std::move(argv);
  request_.instance = instance;
  Park();
  ObserveReply();
  return input_.reply;
}

bool Client::SetNx(const std::string& key, Value value, Where where) {
  kv::Reply r = Call({"SETNX", key, std::move(value)}, where);
  return r.type == kv::Reply::Type::kInteger && r.integer == 1;
}

std::optional<std::string> Client::Get(const std::string& key, Where where) {
  kv::Reply r = Call({"GET", key}, where);
  if (r.type != kv::Reply::Type::kBulk) return std::nullopt;
  return r.text;
}

std::optional<std::string> Client::GetSet(const std::string& key, Value value, Where where) {
  kv::Reply r = Call({"GETSET", key, std::move(value)}, where);
  if (r.type != kv::Reply::Type::kBulk) return std::nullopt;
  return r.text;
}

int64_t Client::Del(const std::string& key, Where where) {
  kv::Reply r = Call({"DEL", key}, where);
  return r.type == kv::Reply::Type::kInteger ? r.integer : 0;
}

Millis Client::Now() {
  read_clock_ = true;
  ObserveTime(kClock, input_.clock);
  return input_.clock;
}

Millis Client::NowAsStart(Millis longest) {
  if (longest < 0) {
    throw std::logic_error("NowAsStart(" + std::to_string(longest) +
                           "): an elapsed time is compared with a negative bound");
  }
  read_clock_ = true;
  ObserveTime(kStart, input_.clock, longest);
  return input_.clock;
}

Millis Client::SentTimestamp(Where where) {
  if (!input_.sent_clock) {
    throw LockMisuse(Source(where),
                     "asks for the time its last command sent, but that command had no clock "
                     "argument (lock.clock_plus / Client::ClockPlus)");
  }
  ObserveTime(kStamp, input_.sent_timestamp);
  return input_.sent_timestamp;
}

void Client::Sleep(Millis ticks, Where where) {
  if (ticks > 0) SleepBetween(ticks, ticks, where);
}

void Client::SleepBetween(Millis least, Millis most, Where where) {
  if (most < least) {
    throw std::logic_error("SleepBetween(" + std::to_string(least) + ", " + std::to_string(most) +
                           "): the most it sleeps is less than the least");
  }
  if (most <= 0) return;
  NewRequest(Request::Kind::kSleep, where);
  request_.sleep_ticks = std::max<Millis>(least, 0);
  request_.sleep_most = most;
  Park();
  Observe(kWake);  // every scheduling point moves the history on
}

void Client::SleepRandom(Millis least, Millis most, Where where) {
  if (!rules_.probabilistic) return SleepBetween(least, most, where);
  if (most < least) {
    throw std::logic_error("SleepRandom(" + std::to_string(least) + ", " + std::to_string(most) +
                           "): the most it sleeps is less than the least");
  }
  Sleep(Draw(std::max<Millis>(least, 0), std::max<Millis>(most, 0), where), where);
}

int64_t Client::Draw(int64_t least, int64_t most, Where where) {
  if (most < least || most - least >= base::Limits::kMaxDrawValues) {
    throw std::logic_error("a draw from " + std::to_string(least) + " to " + std::to_string(most) +
                           ": expected at most " + std::to_string(base::Limits::kMaxDrawValues) +
                           " values, from the least to the most");
  }
  if (least == most) return least;  // nothing to draw
  NewRequest(Request::Kind::kDraw, where);
  request_.draw_least = least;
  request_.draw_most = most;
  Park();
  ObserveReply();
  return input_.reply.integer;
}

uint64_t Client::NextRandom() {
  // From (seed, client, count): independent of the order in which clients draw.
  return DrawValue(seed_, index_, ++random_count_);
}

uint64_t Client::Random() {
  if (rules_.tokens_only) {
    throw std::logic_error(
        "it drew a random number, but its algorithm declares that it draws random values only "
        "as tokens (declare it: draws_numbers in its AlgorithmInfo, or \"draws_numbers\": true "
        "beside a Lua algorithm)");
  }
  const uint64_t v = NextRandom();
  Observe(base::HashCombine(kRandom, v));
  drew_number_ = true;
  return v;
}

std::string Client::RandomToken() {
  const uint64_t v = NextRandom();
  // As which draw it is: the same history for every client at the same
  // place, each with its own token (which symmetry renames).
  Observe(rules_.tokens_as_draws ? base::HashCombine(kToken, random_count_)
                                 : base::HashCombine(kRandom, v));
  return TokenText(v);
}

bool Client::WriteResource(int64_t token, Where where) {
  NewRequest(Request::Kind::kResource, where);
  request_.token = token;
  Park();
  ObserveReply();
  return input_.reply.type == kv::Reply::Type::kInteger && input_.reply.integer == 1;
}

void Client::EnterCriticalSection(Millis valid_until, Where where) {
  if (!stepped_) {
    throw LockMisuse(
        Source(where),
        "enters the critical section before its first step (a client enters on the reply "
        "that gave it the lock)");
  }
  if (inside_) {
    throw LockMisuse(Source(where), "enters the critical section again without leaving it");
  }
  inside_ = true;
  holding_ = true;
  events_.push_back({GhostEvent::Kind::kEnter, valid_until});
}

kv::Reply Client::LeaveCriticalSection(CommandAtClock release, Where where) {
  if (!inside_) {
    throw LockMisuse(Source(where), "leaves the critical section without having entered it");
  }
  inside_ = false;
  NewRequest(Request::Kind::kLeave, where);
  request_.make = std::move(release);
  Park();
  ObserveReply();
  return input_.reply;
}

void Client::Renew(Millis valid_until, Where where) {
  if (!holding_) {
    throw LockMisuse(Source(where),
                     "renews a lock it does not hold (renew after entering the critical section "
                     "and before forgetting the lock)");
  }
  events_.push_back({GhostEvent::Kind::kRenew, valid_until});
}

void Client::ForgetLock() {
  holding_ = false;
  events_.push_back({GhostEvent::Kind::kForget, 0});
}

void Client::GiveUp(Where where) {
  // The start runs no ghost event: what its stretch of code says is lost.
  if (!stepped_) {
    throw LockMisuse(Source(where),
                     "gives up before its first step (give up after the reply that ended the "
                     "attempt)");
  }
  if (inside_) {
    throw LockMisuse(Source(where), "gives up while inside the critical section (leave first)");
  }
  events_.push_back({GhostEvent::Kind::kGiveUp, 0});
}

void Client::ForgetHistory(std::string_view label, std::span<const int64_t> live) {
  ForgetHistory(label, live, {});
}

void Client::ForgetHistory(std::string_view label, std::span<const int64_t> live,
                           std::span<const Millis> live_times) {
  // The random stream is hidden state: where the client is in it must
  // survive the forgetting, and whose stream it is (the values differ per
  // client) unless it drew only tokens recorded as draws, which symmetry
  // renames with their client.
  uint64_t h = base::HashCombine(kForget, random_count_);
  if (drew_number_ || (random_count_ > 0 && !rules_.tokens_as_draws))
    h = base::HashCombine(base::HashCombine(h, seed_), static_cast<uint64_t>(index_) + 1);
  h = base::HashBytes(h, label);
  for (int64_t v : live)
    h = base::HashCombine(h, base::HashCombine(kLive, static_cast<uint64_t>(v)));
  shape_ = h;
  for (Millis t : live_times) {
    h = base::HashCombine(h, base::HashCombine(kLiveTime, static_cast<uint64_t>(t)));
    shape_ = base::HashCombine(shape_, kTime | kLiveTime);
  }
  times_.assign(live_times.begin(), live_times.end());
  time_ages_.clear();
  requests_since_forget_ = 0;
  abstract_ = h;
  concrete_ = base::HashCombine(concrete_, h);
}

}  // namespace lockstep::world
