// A key or a string value, kept once for the whole process however many
// states hold it.
//
// A search copies, compares and fingerprints every state's keyspaces at
// every step, and a lock's keys and values are few and recur (a key name,
// times, tokens, counters). As a Text, copying one copies a pointer,
// comparing two compares pointers, and its hash is computed once, when it
// is first kept.
//
// Kept texts are never freed: a state names them by address, and states
// live anywhere in a search (its stacks, its queues, another thread). Their
// bytes are resident memory, which --max-memory bounds and the report
// shows.
#pragma once

#include <compare>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace lockstep::kv {

class Text {
 public:
  constexpr Text() = default;  // the empty string
  // The kept text equal to `s`, kept now if it is new. Thread-safe.
  explicit Text(std::string_view s);

  const std::string& str() const { return kept_ != nullptr ? kept_->bytes : EmptyString(); }
  std::string_view view() const { return kept_ != nullptr ? std::string_view(kept_->bytes) : ""; }
  // It reads as the string it is (writing one takes Text(...), explicitly).
  operator std::string_view() const { return view(); }   // NOLINT
  operator const std::string&() const { return str(); }  // NOLINT
  size_t size() const { return view().size(); }
  const char* data() const { return view().data(); }
  bool empty() const { return kept_ == nullptr; }
  // base::HashText(0, view()): the same on every machine, so fingerprints
  // that fold it in are too.
  uint64_t hash() const { return kept_ != nullptr ? kept_->hash : kEmptyHash; }
  static constexpr uint64_t kEmptyHash = 0x4e6ae996bbe44404ULL;  // of "" (text_test.cc)

  // Equal texts are one kept text.
  friend bool operator==(Text a, Text b) { return a.kept_ == b.kept_; }
  friend bool operator==(Text a, std::string_view b) { return a.view() == b; }
  // By bytes, as Redis orders keys (not by address, which differs by run).
  friend std::strong_ordering operator<=>(Text a, Text b) { return a.view() <=> b.view(); }

  friend std::ostream& operator<<(std::ostream& out, Text t) { return out << t.view(); }

  // What the process's kept texts hold: their strings and the index that
  // finds them, for the search's memory report.
  static uint64_t KeptBytes();

  // What a Text points at (text.cc keeps them).
  struct Kept {
    std::string bytes;
    uint64_t hash;
  };

 private:
  static const std::string& EmptyString();
  const Kept* kept_ = nullptr;  // null for the empty string
};

}  // namespace lockstep::kv
