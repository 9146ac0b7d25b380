// Small parsing helpers that reproduce Redis's own rules exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep::kv {

// Redis's string2ll: the whole of `s` must be a decimal int64 with an
// optional '-', no '+', no spaces, no leading zeros ("0" is fine, "-0" is
// not). Returns false and leaves *out alone otherwise.
bool ParseInt64(std::string_view s, int64_t* out);

// Decimal text of v, as ll2string writes it.
std::string FormatInt64(int64_t v);

// ASCII case-insensitive equality, allocation free. `upper` must already be
// upper case.
bool EqualsUpper(std::string_view s, std::string_view upper);

// The argument as C code sees it: up to its first NUL. Redis compares option
// keywords with strcasecmp and prints arguments with %s, so an embedded NUL
// ends the string there.
inline std::string_view AsCString(const std::string& s) { return std::string_view(s.c_str()); }

}  // namespace lockstep::kv
