// A client's random values: its k-th draw is a function of the schedule's
// seed, the client and k alone, whatever the other clients do. A token
// (Client::RandomToken) is a draw written as 16 hex digits, and can be read
// back into the client and draw that made it: symmetry renames tokens with
// their clients (docs/design.md, "Symmetry").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lockstep::world {

// Client `client`'s draw number `draw` (from 1).
uint64_t DrawValue(uint64_t seed, int client, uint64_t draw);

// A draw as a token: 16 lower-case hex digits.
std::string TokenText(uint64_t value);

struct TokenId {
  int client = 0;
  uint64_t draw = 0;
  friend bool operator==(const TokenId&, const TokenId&) = default;
};

// The client (below `clients`) and draw whose token `text` is, if it is
// one. Another value is taken for a token with a chance of about
// clients * 2^-32 per value of 16 hex digits, none for any other value.
std::optional<TokenId> ParseToken(std::string_view text, uint64_t seed, int clients);

// Whether some token lies inside `text` without being all of it.
bool ContainsTokenInside(std::string_view text, uint64_t seed, int clients);

// Whether a token is all of `text` or lies inside it.
bool HoldsToken(std::string_view text, uint64_t seed, int clients);

}  // namespace lockstep::world
