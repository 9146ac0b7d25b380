// Typed Redis replies, as RESP2 distinguishes them.
//
// A Reply is a plain value: the model keyspace returns it, the world hands it
// to the calling client, and traces record it. Error texts are Redis's own
// (see error_text.h), so a reply can be compared with a real server's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/kv/text.h"

namespace lockstep::kv {

struct Reply {
  enum class Type { kInteger, kBulk, kNil, kStatus, kError, kArray };

  Type type = Type::kNil;
  int64_t integer = 0;          // kInteger
  Text text;                    // kBulk payload, kStatus text, kError text
  std::vector<Reply> elements;  // kArray

  static Reply Integer(int64_t v);
  static Reply Bulk(std::string_view s);
  static Reply Bulk(Text s);  // a stored value, kept already
  static Reply Nil();
  static Reply Status(std::string_view s);
  static Reply Ok();                             // Status("OK"), its text kept once
  static Reply Error(std::string_view message);  // full text, e.g. "ERR syntax error"
  static Reply Array(std::vector<Reply> elements);

  bool is_error() const { return type == Type::kError; }
  bool is_nil() const { return type == Type::kNil; }

  // redis-cli's rendering, on one line: (integer) 1, "val", (nil), OK,
  // (error) ERR syntax error, and arrays as [a, b].
  std::string ToString() const;

  friend bool operator==(const Reply&, const Reply&) = default;
};

// "integer", "bulk", "nil", "status", "error", "array".
const char* TypeName(Reply::Type t);

}  // namespace lockstep::kv
