#include "sim/kv/reply.h"

#include <utility>

#include "sim/kv/int_parse.h"

namespace lockstep::kv {
namespace {

// redis-cli's sdscatrepr, so a bulk renders exactly as redis-cli shows it.
void AppendRepr(std::string* out, const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '"':
        *out += "\\\"";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\a':
        *out += "\\a";
        break;
      case '\b':
        *out += "\\b";
        break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f) {
          out->push_back(c);
        } else {
          *out += "\\x";
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 0xf]);
        }
      }
    }
  }
  out->push_back('"');
}

void Render(const Reply& r, std::string* out) {
  switch (r.type) {
    case Reply::Type::kInteger:
      *out += "(integer) ";
      *out += FormatInt64(r.integer);
      return;
    case Reply::Type::kBulk:
      AppendRepr(out, r.text);
      return;
    case Reply::Type::kNil:
      *out += "(nil)";
      return;
    case Reply::Type::kStatus:
      *out += r.text;
      return;
    case Reply::Type::kError:
      *out += "(error) ";
      *out += r.text;
      return;
    case Reply::Type::kArray:
      out->push_back('[');
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (i > 0) *out += ", ";
        Render(r.elements[i], out);
      }
      out->push_back(']');
      return;
  }
}

}  // namespace

Reply Reply::Integer(int64_t v) {
  Reply r;
  r.type = Type::kInteger;
  r.integer = v;
  return r;
}

Reply Reply::Bulk(std::string_view s) { return Bulk(Text(s)); }

Reply Reply::Bulk(Text s) {
  Reply r;
  r.type = Type::kBulk;
  r.text = s;
  return r;
}

Reply Reply::Nil() { return Reply(); }

Reply Reply::Status(std::string_view s) {
  Reply r;
  r.type = Type::kStatus;
  r.text = Text(s);
  return r;
}

Reply Reply::Ok() {
  static const Text kOk("OK");
  Reply r;
  r.type = Type::kStatus;
  r.text = kOk;
  return r;
}

Reply Reply::Error(std::string_view message) {
  Reply r;
  r.type = Type::kError;
  r.text = Text(message);
  return r;
}

Reply Reply::Array(std::vector<Reply> elements) {
  Reply r;
  r.type = Type::kArray;
  r.elements = std::move(elements);
  return r;
}

std::string Reply::ToString() const {
  std::string out;
  Render(*this, &out);
  return out;
}

const char* TypeName(Reply::Type t) {
  switch (t) {
    case Reply::Type::kInteger:
      return "integer";
    case Reply::Type::kBulk:
      return "bulk";
    case Reply::Type::kNil:
      return "nil";
    case Reply::Type::kStatus:
      return "status";
    case Reply::Type::kError:
      return "error";
    case Reply::Type::kArray:
      return "array";
  }
  return "unknown";
}

}  // namespace lockstep::kv
