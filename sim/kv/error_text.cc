#include "sim/kv/error_text.h"

#include <utility>

#include "sim/kv/int_parse.h"

namespace lockstep::kv {
namespace {

// addReplyErrorFormatInternal: trims CR/LF at both ends, then maps inner
// CR/LF to spaces, so user input cannot break the protocol.
std::string Sanitize(std::string s) {
  size_t begin = 0;
  size_t end = s.size();
  while (begin < end && (s[begin] == '\r' || s[begin] == '\n')) ++begin;
  while (end > begin && (s[end - 1] == '\r' || s[end - 1] == '\n')) --end;
  s = s.substr(begin, end - begin);
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string SanitizeErrorText(std::string s) { return Sanitize(std::move(s)); }

std::string UnknownCommandError(const std::vector<std::string>& argv) {
  // server.c: args grow by "'%.*s' " with precision 128 - len(args), while
  // len(args) < 128; the name is printed with %.128s.
  std::string args;
  for (size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    const size_t precision = 128 - args.size();
    args += '\'';
    args += AsCString(argv[i]).substr(0, precision);
    args += "' ";
  }
  std::string_view name = argv.empty() ? std::string_view() : AsCString(argv[0]);
  std::string msg = "unknown command '";
  msg += name.substr(0, 128);
  msg += "', with args beginning with: ";
  msg += args;
  return "ERR " + Sanitize(std::move(msg));
}

std::string WrongArityError(std::string_view name) {
  return "ERR wrong number of arguments for '" + Lower(name) + "' command";
}

std::string InvalidExpireTimeError(std::string_view name) {
  return "ERR invalid expire time in '" + Lower(name) + "' command";
}

std::string UnsupportedOptionError(const std::string& option) {
  return "ERR " + Sanitize("Unsupported option " + std::string(AsCString(option)));
}

}  // namespace lockstep::kv
