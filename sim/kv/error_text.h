// Redis 7.0's error reply texts, verbatim, so that the model's replies can be
// compared byte for byte with a real server's.
//
// Fixed texts are constants; texts that quote the client's input are built by
// the functions below, which apply Redis's sanitising (a C string is cut at
// its first NUL, CR/LF become spaces, and trailing CR/LF are trimmed) so the
// result is what a real server would send.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lockstep::kv {

// shared.syntaxerr
inline constexpr std::string_view kSyntaxError = "ERR syntax error";
// getLongLongFromObjectOrReply's default message.
inline constexpr std::string_view kNotAnInteger = "ERR value is not an integer or out of range";
// incrDecrCommand.
inline constexpr std::string_view kIncrOverflow = "ERR increment or decrement would overflow";
// decrbyCommand: negating LLONG_MIN would itself overflow.
inline constexpr std::string_view kDecrementOverflow = "ERR decrement would overflow";
// shared.wrongtypeerr
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
// parseExtendedExpireArgumentsOrReply.
inline constexpr std::string_view kExpireNxConflict =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kExpireGtLtConflict =
    "ERR GT and LT options at the same time are not compatible";

// evalGenericCommand's checks of numkeys.
inline constexpr std::string_view kNumkeysTooLarge =
    "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kNumkeysNegative = "ERR Number of keys can't be negative";

// addReplyErrorFormat's sanitising of a whole reply text: CR/LF trimmed at
// both ends, inner CR/LF made spaces.
std::string SanitizeErrorText(std::string s);

// processCommand for a name with no command:
// "ERR unknown command 'foo', with args beginning with: 'a' 'b' ".
std::string UnknownCommandError(const std::vector<std::string>& argv);

// addReplyErrorArity; `name` is the command's name in any case (Redis 7.0
// prints its lower-case full name).
std::string WrongArityError(std::string_view name);

// addReplyErrorExpireTime: "ERR invalid expire time in 'set' command".
std::string InvalidExpireTimeError(std::string_view name);

// parseExtendedExpireArgumentsOrReply: "ERR Unsupported option foo".
std::string UnsupportedOptionError(const std::string& option);

}  // namespace lockstep::kv
