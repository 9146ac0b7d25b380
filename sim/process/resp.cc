#include "sim/process/resp.h"

#include <algorithm>
#include <charconv>

#include "sim/kv/int_parse.h"

namespace lockstep::process {
namespace {

// The integer ending at the next CRLF from `at`; nullopt if the line is not
// whole yet. *bad when it is whole but no integer.
std::optional<long long> Line(const std::string& b, size_t at, size_t* next, bool* bad) {
  const size_t end = b.find("\r\n", at);
  if (end == std::string::npos) {
    *bad = b.size() - at > 32;  // no length is that long
    return std::nullopt;
  }
  long long v = 0;
  auto [p, ec] = std::from_chars(b.data() + at, b.data() + end, v);
  if (ec != std::errc() || p != b.data() + end) {
    *bad = true;
    return std::nullopt;
  }
  *next = end + 2;
  return v;
}

ParsedCommand ProtocolError(std::string& buffer, std::string text) {
  buffer.clear();
  return ParsedCommand{{}, "ERR Protocol error: " + std::move(text)};
}

}  // namespace

std::optional<ParsedCommand> TakeCommand(std::string& buffer) {
  if (buffer.empty()) return std::nullopt;
  if (buffer[0] != '*') {
    // Inline: words separated by spaces, up to the end of the line.
    const size_t end = buffer.find('\n');
    if (end == std::string::npos) {
      if (buffer.size() > 64 * 1024) return ProtocolError(buffer, "too big inline request");
      return std::nullopt;
    }
    ParsedCommand c;
    std::string word;
    for (size_t i = 0; i < end; ++i) {
      const char ch = buffer[i];
      if (ch == ' ' || ch == '\r' || ch == '\t') {
        if (!word.empty()) c.argv.push_back(std::move(word));
        word.clear();
      } else {
        word += ch;
      }
    }
    if (!word.empty()) c.argv.push_back(std::move(word));
    buffer.erase(0, end + 1);
    return c;
  }
  size_t at = 0;
  bool bad = false;
  const std::optional<long long> count = Line(buffer, 1, &at, &bad);
  if (!count) {
    if (bad) return ProtocolError(buffer, "invalid multibulk length");
    return std::nullopt;
  }
  if (*count > 1024 * 1024) return ProtocolError(buffer, "invalid multibulk length");
  ParsedCommand c;
  for (long long i = 0; i < *count; ++i) {
    if (at >= buffer.size()) return std::nullopt;
    if (buffer[at] != '$') {
      return ProtocolError(buffer, "expected '$', got '" + std::string(1, buffer[at]) + "'");
    }
    const std::optional<long long> len = Line(buffer, at + 1, &at, &bad);
    if (!len) {
      if (bad) return ProtocolError(buffer, "invalid bulk length");
      return std::nullopt;
    }
    if (*len < 0 || static_cast<size_t>(*len) > kMaxPendingBytes) {
      return ProtocolError(buffer, "invalid bulk length");
    }
    if (buffer.size() < at + static_cast<size_t>(*len) + 2) return std::nullopt;
    c.argv.emplace_back(buffer, at, static_cast<size_t>(*len));
    at += static_cast<size_t>(*len) + 2;
  }
  buffer.erase(0, at);
  return c;
}

void EncodeReply(const kv::Reply& r, bool resp3, std::string& out) {
  switch (r.type) {
    case kv::Reply::Type::kInteger:
      out += ':' + std::to_string(r.integer) + "\r\n";
      return;
    case kv::Reply::Type::kBulk:
      out += '$' + std::to_string(r.text.size()) + "\r\n";
      out += r.text;
      out += "\r\n";
      return;
    case kv::Reply::Type::kNil:
      out += resp3 ? "_\r\n" : "$-1\r\n";
      return;
    case kv::Reply::Type::kStatus:
      out += '+' + r.text.str() + "\r\n";
      return;
    case kv::Reply::Type::kError:
      out += '-' + r.text.str() + "\r\n";
      return;
    case kv::Reply::Type::kArray:
      out += '*' + std::to_string(r.elements.size()) + "\r\n";
      for (const kv::Reply& e : r.elements) EncodeReply(e, resp3, out);
      return;
  }
}

namespace {

// A score's text (%.17g, "inf", "-inf") as a RESP3 double.
void EncodeDouble(const kv::Reply& score, std::string& out) {
  out += ',' + score.text.str() + "\r\n";
}

bool IsRange(const std::string& name) {
  return kv::EqualsUpper(name, "ZRANGE") || kv::EqualsUpper(name, "ZRANGEBYSCORE") ||
         kv::EqualsUpper(name, "ZREVRANGE") || kv::EqualsUpper(name, "ZREVRANGEBYSCORE");
}

}  // namespace

void EncodeCommandReply(const std::vector<std::string>& argv, const kv::Reply& reply, bool resp3,
                        std::string& out) {
  if (!resp3 || argv.empty() || reply.is_error()) return EncodeReply(reply, resp3, out);
  const std::string& name = argv[0];
  const bool pairs = reply.type == kv::Reply::Type::kArray && reply.elements.size() % 2 == 0;
  if (kv::EqualsUpper(name, "HGETALL") && pairs) {
    out += '%' + std::to_string(reply.elements.size() / 2) + "\r\n";
    for (const kv::Reply& e : reply.elements) EncodeReply(e, resp3, out);
    return;
  }
  const bool scored = kv::EqualsUpper(name, "ZSCORE") || kv::EqualsUpper(name, "ZINCRBY") ||
                      kv::EqualsUpper(name, "ZADD");
  if (scored && reply.type == kv::Reply::Type::kBulk) return EncodeDouble(reply, out);
  const bool withscores =
      IsRange(name) && std::any_of(argv.begin() + 1, argv.end(), [](const std::string& a) {
        return kv::EqualsUpper(kv::AsCString(a), "WITHSCORES");
      });
  if (withscores && pairs) {
    out += '*' + std::to_string(reply.elements.size() / 2) + "\r\n";
    for (size_t i = 0; i < reply.elements.size(); i += 2) {
      out += "*2\r\n";
      EncodeReply(reply.elements[i], resp3, out);
      EncodeDouble(reply.elements[i + 1], out);
    }
    return;
  }
  EncodeReply(reply, resp3, out);
}

}  // namespace lockstep::process
