// kv::Text: a key or value kept once, compared by address, hashed once.
#include "sim/kv/text.h"

#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/base/hash.h"

namespace lockstep::kv {
namespace {

std::string Nth(int i) { return "value-" + std::to_string(i); }

TEST_CASE("equal strings are one kept text, with the string's bytes and hash", "[kv][text]") {
  const Text a("lock.foo");
  const Text b(std::string("lock.") + "foo");
  CHECK(a == b);
  CHECK(&a.str() == &b.str());  // one kept string, not two equal ones
  CHECK(a != Text("lock.bar"));
  CHECK(a == std::string_view("lock.foo"));
  CHECK(a.hash() == base::HashText(0, "lock.foo"));
  // The empty text needs no keeping, and hashes as "" does.
  CHECK(Text() == Text(""));
  CHECK(Text().empty());
  CHECK(Text().str().empty());
  CHECK(Text().hash() == base::HashText(0, ""));
  CHECK(Text::kEmptyHash == base::HashText(0, ""));
  // Bytes, not C strings: an embedded NUL is part of the text.
  CHECK(Text(std::string("a\0b", 3)) != Text("a"));
  CHECK(Text(std::string("a\0b", 3)).size() == 3);
}

TEST_CASE("kept texts order by their bytes, as Redis orders keys", "[kv][text]") {
  CHECK(Text("a") < Text("b"));
  CHECK(Text("ab") > Text("a"));
  CHECK(Text() < Text("a"));
  CHECK(Text("\x7f") < Text("\x80"));  // unsigned bytes, as memcmp
}

TEST_CASE("every text kept is found again, past the per-thread memory of recent ones",
          "[kv][text]") {
  // Far more texts than a thread remembers, so that its slots are reused:
  // each must still give back its own string.
  std::vector<Text> first;
  for (int i = 0; i < 20'000; ++i) first.emplace_back(Nth(i));
  for (int i = 0; i < 20'000; ++i) {
    const Text again(Nth(i));
    REQUIRE(again.str() == Nth(i));
    REQUIRE(again == first[i]);
  }
}

TEST_CASE("threads keeping the same texts at once get one kept text each", "[kv][text]") {
  constexpr int kTexts = 5'000;
  std::vector<Text> ours(kTexts), theirs(kTexts);
  auto keep = [](std::vector<Text>* out, int from) {
    for (int k = 0; k < kTexts; ++k) {
      const int i = (from + k) % kTexts;
      (*out)[i] = Text("shared-" + std::to_string(i));
    }
  };
  std::thread other(keep, &theirs, kTexts / 2);
  keep(&ours, 0);
  other.join();
  for (int i = 0; i < kTexts; ++i) {
    REQUIRE(ours[i] == theirs[i]);
    REQUIRE(ours[i].str() == "shared-" + std::to_string(i));
  }
}

}  // namespace
}  // namespace lockstep::kv
