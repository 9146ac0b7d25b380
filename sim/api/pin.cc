#include <cstdio>
#include <vector>

#include "lockstep/lockstep.h"

namespace lockstep {
namespace {

// One character of `text` as it is written inside a C++ string literal.
// OneLine has already written control characters as visible escapes; this
// keeps any left, a quote or a backslash from ending the literal or the line.
std::string EscapedChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (c == '"' || c == '\\') return std::string{'\\', c};
  if (byte < 0x20 || byte == 0x7f) {
    char octal[5];
    std::snprintf(octal, sizeof octal, "\\%03o", byte);  // three digits: never runs on
    return octal;
  }
  return std::string(1, c);
}

}  // namespace

std::string OneLineLiteral(const Trace& t, size_t width) {
  const std::string text = OneLine(t);
  std::string escaped;
  for (const char c : text) escaped += EscapedChar(c);
  if (width == 0) return "\"" + escaped + "\"";
  // Pieces of at most `width` columns with their quotes, each ending after a
  // space where it can, so that a step stays readable; an escape is never
  // cut in two.
  const size_t room = width > 8 ? width - 2 : 6;
  std::vector<std::string> pieces(1);
  size_t after_space = std::string::npos;  // where the last piece may end
  for (const char c : text) {
    const std::string unit = EscapedChar(c);
    std::string& piece = pieces.back();
    if (piece.size() + unit.size() > room) {
      std::string rest;
      if (after_space != std::string::npos && after_space > 0 &&
          piece.size() - after_space + unit.size() <= room) {
        rest = piece.substr(after_space);
        piece.resize(after_space);
      }
      pieces.push_back(rest);
      after_space = std::string::npos;
    }
    pieces.back() += unit;
    if (c == ' ') after_space = pieces.back().size();
  }
  std::string out;
  for (const std::string& piece : pieces) out += (out.empty() ? "\"" : "\n\"") + piece + "\"";
  return out;
}

}  // namespace lockstep
