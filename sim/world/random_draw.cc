#include "sim/world/random_draw.h"

#include <cstdio>

#include "sim/base/hash.h"

namespace lockstep::world {
namespace {

constexpr uint64_t kDrawStep = 0xbf58476d1ce4e5b9ULL;
constexpr uint64_t kDrawStepInverse = 0x96de1b173f119089ULL;  // kDrawStep^-1 mod 2^64
// A client draws far fewer values than this; a larger number read back
// from a value means the value was not drawn.
constexpr uint64_t kMaxDraws = uint64_t{1} << 32;
constexpr size_t kTokenLength = 16;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

uint64_t DrawValue(uint64_t seed, int client, uint64_t draw) {
  return base::Mix64(seed + base::kGoldenGamma * (static_cast<uint64_t>(client) + 1) +
                     kDrawStep * draw);
}

std::string TokenText(uint64_t value) {
  char text[kTokenLength + 1];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::optional<TokenId> ParseToken(std::string_view text, uint64_t seed, int clients) {
  if (text.size() != kTokenLength) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    const int d = HexDigit(c);
    if (d < 0) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(d);
  }
  const uint64_t mixed = base::Unmix64(value);
  for (int client = 0; client < clients; ++client) {
    const uint64_t draw =
        (mixed - seed - base::kGoldenGamma * (static_cast<uint64_t>(client) + 1)) *
        kDrawStepInverse;
    if (draw >= 1 && draw <= kMaxDraws) return TokenId{client, draw};
  }
  return std::nullopt;
}

bool ContainsTokenInside(std::string_view text, uint64_t seed, int clients) {
  if (text.size() <= kTokenLength) return false;
  size_t run = 0;  // hex digits ending at i
  for (size_t i = 0; i < text.size(); ++i) {
    run = HexDigit(text[i]) < 0 ? 0 : run + 1;
    if (run >= kTokenLength &&
        ParseToken(text.substr(i + 1 - kTokenLength, kTokenLength), seed, clients)) {
      return true;
    }
  }
  return false;
}

bool HoldsToken(std::string_view text, uint64_t seed, int clients) {
  return ParseToken(text, seed, clients) || ContainsTokenInside(text, seed, clients);
}

}  // namespace lockstep::world
