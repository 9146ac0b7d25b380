// Text from users (keys, values, reasons, a script's error, a scenario's
// name) shown on a terminal. A shared trace is someone else's text: a raw
// ESC, CR or OSC sequence in it could clear the screen, rewrite a line
// ("no violation"), or set the clipboard. Every such text is shown through
// Printable, which writes control characters as escapes and lets the rest
// (printable ASCII and UTF-8) through unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep::base {

namespace printable_detail {

inline void AppendHex(std::string& out, const char* prefix, uint32_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xf];
}

// The length of the well-formed UTF-8 sequence at s[i] and its code point;
// 0 if the byte there starts none.
inline size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t v = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3f);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
      (v >= 0xd800 && v <= 0xdfff)) {
    return 0;
  }
  *cp = v;
  return n;
}

// Code points a terminal acts on rather than shows: C1 controls, line and
// paragraph separators, and the bidirectional overrides that reorder text.
inline bool Acts(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace printable_detail

// `s` with every control character escaped: \n, \r and \t as such, other
// C0 bytes and DEL as \xNN, a byte that is not UTF-8 as \xNN, and C1
// controls, U+2028/9 and bidirectional overrides as \uNNNN. `keep_newlines`
// lets '\n' through, for lockstep's own multi-line messages.
inline std::string Printable(std::string_view s, bool keep_newlines = false) {
  namespace d = printable_detail;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      if (c == '\n' && keep_newlines) {
        out += '\n';
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        d::AppendHex(out, "\\x", c, 2);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = d::DecodeUtf8(s, i, &cp);
    if (n == 0) {
      d::AppendHex(out, "\\x", c, 2);
      ++i;
    } else if (d::Acts(cp)) {
      d::AppendHex(out, "\\u", cp, 4);
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Whether `s` is well-formed UTF-8 (what JSON text can hold).
inline bool IsUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = printable_detail::DecodeUtf8(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// Whether Printable would change `s` (with '\n' kept when asked).
inline bool IsPrintable(std::string_view s, bool keep_newlines = false) {
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f) {
      if (c == '\n' && keep_newlines) continue;
      return Printable(s, keep_newlines) == s;
    }
  }
  return true;
}

}  // namespace lockstep::base
