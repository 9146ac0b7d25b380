// Warnings about a Lua algorithm's source, given when its scenario loads:
// valid Lua that is likely not what was meant.
#include <cctype>
#include <string>
#include <vector>

#include "sim/algo/lua_algorithm.h"

namespace lockstep::algo {
namespace {

struct Token {
  enum Kind { kString, kName, kSymbol } kind;
  std::string text;  // a string's contents as written (escapes left alone)
  int line;
};

// Lua 5.1's tokens, as far as the check needs them: comments dropped,
// strings (quoted and long) kept whole, names, and operators.
std::vector<Token> Tokens(const std::string& src) {
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0;
  // A long bracket at `at` ("[[", "[==["): its level, or -1.
  auto level_at = [&](size_t at) {
    if (at >= src.size() || src[at] != '[') return -1;
    size_t k = at + 1;
    while (k < src.size() && src[k] == '=') ++k;
    return k < src.size() && src[k] == '[' ? static_cast<int>(k - at - 1) : -1;
  };
  // Skips a long bracket of `level` opening at i; returns its contents.
  auto long_bracket = [&](int level) {
    const std::string close = "]" + std::string(static_cast<size_t>(level), '=') + "]";
    const size_t open = i + static_cast<size_t>(level) + 2;
    size_t end = src.find(close, open);
    if (end == std::string::npos) end = src.size();
    std::string text = src.substr(open, end - open);
    for (size_t k = i; k < end && k < src.size(); ++k) line += src[k] == '\n';
    i = std::min(src.size(), end + close.size());
    return text;
  };
  while (i < src.size()) {
    const char c = src[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (src.compare(i, 2, "--") == 0) {
      i += 2;
      if (const int level = level_at(i); level >= 0) {
        long_bracket(level);
      } else {
        while (i < src.size() && src[i] != '\n') ++i;
      }
    } else if (const int level = level_at(i); level >= 0) {
      const int at = line;
      tokens.push_back({Token::kString, long_bracket(level), at});
    } else if (c == '"' || c == '\'') {
      std::string text;
      for (++i; i < src.size() && src[i] != c && src[i] != '\n'; ++i) {
        if (src[i] == '\\' && i + 1 < src.size()) text += src[i++];
        text += src[i];
      }
      ++i;
      tokens.push_back({Token::kString, text, line});
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i;
      while (i < src.size() &&
             (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_')) {
        ++i;
      }
      tokens.push_back({Token::kName, src.substr(start, i - start), line});
    } else if (src.compare(i, 2, "==") == 0 || src.compare(i, 2, "~=") == 0) {
      tokens.push_back({Token::kSymbol, src.substr(i, 2), line});
      i += 2;
    } else {
      tokens.push_back({Token::kSymbol, std::string(1, c), line});
      ++i;
    }
  }
  return tokens;
}

bool IsComparison(const Token& t) {
  return t.kind == Token::kSymbol && (t.text == "==" || t.text == "~=");
}

// Whether the operand that ends at tokens[end] (inclusive) reads the "ok"
// field: r.ok, r["ok"].
bool EndsInOk(const std::vector<Token>& tokens, size_t end) {
  if (end >= 1 && tokens[end].text == "ok" && tokens[end - 1].text == ".") return true;
  return end >= 2 && tokens[end].text == "]" && tokens[end - 1].kind == Token::kString &&
         tokens[end - 1].text == "ok";
}

// The operand that starts at tokens[start]: a name and its fields, r.a.ok.
bool StartsChainToOk(const std::vector<Token>& tokens, size_t start) {
  size_t k = start;
  if (k >= tokens.size() || tokens[k].kind != Token::kName) return false;
  while (k + 2 < tokens.size() && tokens[k + 1].text == "." && tokens[k + 2].kind == Token::kName) {
    k += 2;
  }
  return EndsInOk(tokens, k);
}

}  // namespace

std::vector<std::string> LuaStatusComparisons(const LuaProgram& program) {
  std::vector<std::string> found;
  const std::vector<Token> tokens = Tokens(program.source);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind != Token::kString || t.text != "OK") continue;
    const bool before = i >= 2 && IsComparison(tokens[i - 1]) && !EndsInOk(tokens, i - 2);
    const bool after =
        i + 2 < tokens.size() && IsComparison(tokens[i + 1]) && !StartsChainToOk(tokens, i + 2);
    if (!before && !after) continue;
    found.push_back(program.name + ":" + std::to_string(t.line) +
                    ": compares a reply with the string \"OK\", but a status reply is the table "
                    "{ok = \"OK\"}, so the comparison is always false for one; test reply.ok "
                    "(type(reply) == \"table\" and reply.ok)");
  }
  return found;
}

}  // namespace lockstep::algo
