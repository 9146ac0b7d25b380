#include "sim/world/random_draw.h"

#include <catch2/catch.hpp>

#include "sim/base/hash.h"

namespace lockstep::world {
namespace {

TEST_CASE("Unmix64 undoes Mix64") {
  base::SplitMix64 rng(7);
  for (int i = 0; i < 10'000; ++i) {
    const uint64_t x = rng.Next();
    CHECK(base::Unmix64(base::Mix64(x)) == x);
  }
  CHECK(base::Unmix64(base::Mix64(0)) == 0);
  CHECK(base::Unmix64(base::Mix64(~uint64_t{0})) == ~uint64_t{0});
}

TEST_CASE("a token is read back into the client and draw that made it") {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0xdeadbeef}, ~uint64_t{0}}) {
    for (int client = 0; client < 8; ++client) {
      for (uint64_t draw = 1; draw <= 50; ++draw) {
        const std::string text = TokenText(DrawValue(seed, client, draw));
        REQUIRE(text.size() == 16);
        const std::optional<TokenId> id = ParseToken(text, seed, 8);
        REQUIRE(id);
        CHECK(*id == TokenId{client, draw});
        // Among fewer clients than made it, it is nobody's.
        CHECK(!ParseToken(text, seed, client));
        // Another seed's tokens are not this seed's.
        CHECK(!ParseToken(text, seed + 1, 8));
      }
    }
  }
}

TEST_CASE("values that are not drawn tokens are not taken for tokens") {
  const uint64_t seed = 1;
  for (const char* text : {"", "0", "0123456789abcdef", "ffffffffffffffff", "0000000000000000",
                           "0123456789ABCDEF", "0123456789abcdeg", "1700000000000000"}) {
    INFO(text);
    CHECK(!ParseToken(text, seed, 8));
    CHECK(!ContainsTokenInside(text, seed, 8));
  }
  // The draw after the last one a client may make is past the bound.
  const std::string huge = TokenText(DrawValue(seed, 0, (uint64_t{1} << 32) + 1));
  CHECK(!ParseToken(huge, seed, 8));
}

TEST_CASE("a token inside a longer string is found, all of it is not inside") {
  const uint64_t seed = 3;
  const std::string token = TokenText(DrawValue(seed, 2, 5));
  CHECK(!ContainsTokenInside(token, seed, 4));
  CHECK(ContainsTokenInside("lock:" + token, seed, 4));
  CHECK(ContainsTokenInside(token + ":1", seed, 4));
  CHECK(ContainsTokenInside("a" + token, seed, 4));  // preceded by a hex digit
  CHECK(ContainsTokenInside(token + "0", seed, 4));  // followed by one
  CHECK(!ContainsTokenInside("lock:" + token.substr(1), seed, 4));
  CHECK(!ContainsTokenInside("lock:" + token, seed, 2));  // client 2 is not among 2
}

}  // namespace
}  // namespace lockstep::world
