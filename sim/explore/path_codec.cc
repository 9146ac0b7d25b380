#include "sim/explore/path_codec.h"

#include <cstring>

#include "sim/base/check.h"
#include "sim/base/varint.h"

namespace lockstep::explore {
namespace {

using world::Action;

enum ActionFlags : uint8_t {
  kHasAge = 1 << 4,
  kHasJump = 1 << 5,
  kHasServer = 1 << 6,
  kHasDrawn = 1 << 7
};
static_assert(static_cast<int>(Action::Kind::kFailover) < 16, "a kind fits in four bits");

using base::UnZigZag;
using base::ZigZag;

}  // namespace

void PutU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

void PutVarint(std::string& out, uint64_t v) {
  char bytes[base::kMaxVarintBytes];
  out.append(bytes, base::PutVarint(v, bytes));
}

void PutAction(std::string& out, const Action& a) {
  uint8_t head = static_cast<uint8_t>(a.kind);
  if (a.arg_age != 0) head |= kHasAge;
  if (a.jump_by != 0) head |= kHasJump;
  if (a.server != 0) head |= kHasServer;
  if (a.drawn) head |= kHasDrawn;
  out.push_back(static_cast<char>(head));
  out.push_back(static_cast<char>(a.client + 1));  // -1 (none) to 0
  if (a.arg_age != 0) PutVarint(out, ZigZag(a.arg_age));
  if (a.jump_by != 0) PutVarint(out, ZigZag(a.jump_by));
  if (a.server != 0) PutVarint(out, ZigZag(a.server));
  if (a.drawn) PutVarint(out, ZigZag(*a.drawn));
}

void PutPath(std::string& out, const std::vector<Action>& path) {
  PutVarint(out, path.size());
  for (const Action& a : path) PutAction(out, a);
}

void PutFingerprint(std::string& out, const Fingerprint& f) {
  PutU64(out, f.a);
  PutU64(out, f.b);
}

uint8_t Reader::Byte() {
  uint8_t b;
  Take(&b, 1);
  return b;
}

uint64_t Reader::U64() {
  uint64_t v;
  Take(&v, sizeof v);
  return v;
}

uint64_t Reader::Varint() {
  const char* p = s_.data() + at_;
  uint64_t v = 0;
  LOCKSTEP_CHECK(base::GetVarint(&p, s_.data() + s_.size(), &v),
                 "a distributed search's message ends early or holds a bad number");
  at_ = static_cast<size_t>(p - s_.data());
  return v;
}

Fingerprint Reader::Print() {
  Fingerprint f;
  f.a = U64();
  f.b = U64();
  return f;
}

Action Reader::Step() {
  Action a;
  const uint8_t head = Byte();
  a.kind = static_cast<Action::Kind>(head & 0x0f);
  a.client = static_cast<int>(Byte()) - 1;
  a.arg_age = head & kHasAge ? UnZigZag(Varint()) : 0;
  a.jump_by = head & kHasJump ? UnZigZag(Varint()) : 0;
  a.server = head & kHasServer ? static_cast<int>(UnZigZag(Varint())) : 0;
  if (head & kHasDrawn) a.drawn = UnZigZag(Varint());
  return a;
}

std::vector<Action> Reader::Path() {
  std::vector<Action> path(Varint());
  for (Action& a : path) a = Step();
  return path;
}

std::string Reader::Bytes(size_t n) {
  LOCKSTEP_CHECK(at_ + n <= s_.size(), "a distributed search's message ends early");
  std::string bytes = s_.substr(at_, n);
  at_ += n;
  return bytes;
}

void Reader::Take(void* to, size_t n) {
  LOCKSTEP_CHECK(at_ + n <= s_.size(), "a distributed search's message ends early");
  std::memcpy(to, s_.data() + at_, n);
  at_ += n;
}

void Decode(const std::string& steps, std::vector<Action>* path) {
  path->clear();
  for (Reader r(steps); !r.done();) path->push_back(r.Step());
}

}  // namespace lockstep::explore
