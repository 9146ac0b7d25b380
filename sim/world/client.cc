#include "sim/world/client.h"

#include "sim/world/fiber_scheduler.h"
#include "sim/world/world.h"

namespace lockstep::world {

Client::Client(World* world, int index, std::string name, uint64_t seed)
    : world_(world), index_(index), name_(std::move(name)), seed_(seed) {}

void Client::Park() {
  world_->scheduler_->SwitchTo(world_->driver_);
  if (stop_) throw ClientStopped{};
}

kv::Reply Client::Call(std::vector<Value> argv) {
  request_ = Request::kCommand;
  argv_ = std::move(argv);
  Park();
  return reply_;
}

bool Client::SetNx(const std::string& key, Value value) {
  kv::Reply r = Call({"SETNX", key, std::move(value)});
  return r.type == kv::Reply::Type::kInteger && r.integer == 1;
}

std::optional<std::string> Client::Get(const std::string& key) {
  kv::Reply r = Call({"GET", key});
  if (r.type != kv::Reply::Type::kBulk) return std::nullopt;
  return r.text;
}

std::optional<std::string> Client::GetSet(const std::string& key,
                                          Value value) {
  kv::Reply r = Call({"GETSET", key, std::move(value)});
  if (r.type != kv::Reply::Type::kBulk) return std::nullopt;
  return r.text;
}

int64_t Client::Del(const std::string& key) {
  kv::Reply r = Call({"DEL", key});
  return r.type == kv::Reply::Type::kInteger ? r.integer : 0;
}

Millis Client::Now() { return clock_; }

void Client::Sleep(Millis ticks) {
  if (ticks <= 0) return;
  request_ = Request::kSleep;
  sleep_ticks_ = ticks;
  Park();
}

uint64_t Client::Random() {
  // splitmix64 over (seed, client, count): deterministic and independent of
  // the order in which clients draw.
  uint64_t z = seed_ + 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(index_) + 1) +
               0xbf58476d1ce4e5b9ULL * ++random_count_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void Client::EnterCriticalSection(Millis valid_until) {
  world_->OnEnter(index_, valid_until);
}

void Client::LeaveCriticalSection() {
  request_ = Request::kLeave;
  Park();
}

void Client::ForgetLock() { world_->OnForget(index_); }

}  // namespace lockstep::world
