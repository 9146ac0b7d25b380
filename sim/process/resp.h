// The Redis protocol as a server speaks it to a process client: requests
// read from a connection's bytes (RESP arrays of bulk strings, and inline
// commands as redis-cli sends them), replies written in RESP2, or in RESP3
// once the connection said HELLO 3.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/kv/reply.h"

namespace lockstep::process {

// The most a connection may have sent that is not yet a whole command.
inline constexpr size_t kMaxPendingBytes = size_t{64} << 20;

struct ParsedCommand {
  std::vector<std::string> argv;  // empty: nothing to run (an empty line)
  std::string error;              // a protocol error: the connection is closed after it
};

// Takes the first whole command off the front of `buffer`; nullopt while
// what is there is not yet one. A protocol error (Redis's text) consumes
// the buffer.
std::optional<ParsedCommand> TakeCommand(std::string& buffer);

// `reply` in RESP2 (`resp3` false) or RESP3, appended to `out`.
void EncodeReply(const kv::Reply& reply, bool resp3, std::string& out);

// The model's reply to `argv` (RESP2's shapes) as Redis 7.0 answers it on
// the connection: in RESP3, HGETALL's fields and values are a map, a score
// (ZSCORE, ZINCRBY, ZADD ... INCR) is a double, and a range WITHSCORES
// holds [member, score] pairs.
void EncodeCommandReply(const std::vector<std::string>& argv, const kv::Reply& reply, bool resp3,
                        std::string& out);

}  // namespace lockstep::process
