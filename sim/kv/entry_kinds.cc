// What each kind of entry is called and how its items must look.
#include <set>
#include <string_view>

#include "sim/kv/keyspace.h"
#include "sim/kv/zset.h"

namespace lockstep::kv {

const char* KindName(Entry::Kind kind) {
  switch (kind) {
    case Entry::Kind::kString:
      return "string";
    case Entry::Kind::kList:
      return "list";
    case Entry::Kind::kHash:
      return "hash";
    case Entry::Kind::kZset:
      return "zset";
  }
  return "?";
}

std::string ItemsSummary(const Entry& e) {
  if (e.kind == Entry::Kind::kList) return "(list of " + std::to_string(e.items.size()) + ")";
  // A hash's or sorted set's first pairs, as a lock library's few are
  // worth reading: {field=value, ...} or {member:score, ...}.
  constexpr size_t kShown = 3;
  const char* between = e.kind == Entry::Kind::kHash ? "=" : ":";
  const size_t pairs = e.items.size() / 2;
  std::string s = "{";
  for (size_t i = 0; i < pairs && i < kShown; ++i) {
    if (i > 0) s += ", ";
    s += e.items[2 * i] + between + e.items[2 * i + 1];
  }
  if (pairs > kShown) s += ", +" + std::to_string(pairs - kShown) + " more";
  return s + "}";
}

std::string ItemsProblem(const Entry& e) {
  if (e.kind == Entry::Kind::kString || e.kind == Entry::Kind::kList) return "";
  const bool zset = e.kind == Entry::Kind::kZset;
  const char* name = zset ? "member" : "field";
  if (e.items.empty())
    return std::string("expected at least one ") + name + ": Redis keeps no empty " +
           KindName(e.kind);
  if (e.items.size() % 2 != 0) {
    return zset ? "expected member, score pairs; got an odd count of words"
                : "expected field, value pairs; got an odd count of words";
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < e.items.size(); i += 2) {
    if (!seen.insert(e.items[i]).second) {
      return std::string("expected each ") + name + " once; got the " + name + " at word " +
             std::to_string(i) + " twice";
    }
  }
  if (!zset) return "";
  for (size_t i = 1; i < e.items.size(); i += 2) {
    const std::optional<double> s = internal::ParseScore(e.items[i]);
    if (!s || internal::FormatScore(*s) != e.items[i]) {
      return "expected a score as Redis writes it (%.17g) at word " + std::to_string(i);
    }
  }
  Entry copy = e;
  const internal::Zset z(copy);
  for (size_t i = 1; i < z.size(); ++i) {
    const double a = z.score(i - 1), b = z.score(i);
    if (a > b || (a == b && !(z.member(i - 1) < z.member(i)))) {
      return "expected members by score, then by their bytes; word " + std::to_string(2 * i) +
             " is out of order";
    }
  }
  return "";
}

std::vector<std::string> WriteCommand(const Entry& e) {
  switch (e.kind) {
    case Entry::Kind::kString:
      return {"SET", e.key, e.value};
    case Entry::Kind::kList: {
      std::vector<std::string> argv = {"RPUSH", e.key};
      argv.insert(argv.end(), e.items.begin(), e.items.end());
      return argv;
    }
    case Entry::Kind::kHash: {
      std::vector<std::string> argv = {"HSET", e.key};
      argv.insert(argv.end(), e.items.begin(), e.items.end());
      return argv;
    }
    case Entry::Kind::kZset: {
      std::vector<std::string> argv = {"ZADD", e.key};
      for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
        argv.push_back(e.items[i + 1]);
        argv.push_back(e.items[i]);
      }
      return argv;
    }
  }
  return {};
}

}  // namespace lockstep::kv
