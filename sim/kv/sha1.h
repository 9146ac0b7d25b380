// SHA-1 of scripts, as Redis names them (EVALSHA, SCRIPT LOAD,
// redis.sha1hex): computed by Debian's nettle.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lockstep::kv {

// Lower-case hex SHA-1 of data, as redis.sha1hex and SCRIPT LOAD give it.
std::string Sha1Hex(std::string_view data);

// The same into a caller's buffer, NUL-terminated; never throws, so Lua's
// callbacks may call it (see lua_script_context.h).
void Sha1HexInto(const char* data, size_t n, char out[41]) noexcept;

}  // namespace lockstep::kv
