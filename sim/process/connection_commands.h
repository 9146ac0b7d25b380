// What a Redis server answers about a connection itself, which is no step
// of the model: the set-up real clients send (HELLO, CLIENT SETNAME and
// SETINFO, SELECT 0, PING, ECHO, INFO, COMMAND, QUIT) and the script cache
// (SCRIPT LOAD, SCRIPT EXISTS; EVALSHA of a loaded script runs as EVAL).
// The answers are Redis 7's, in the connection's protocol.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::process {

struct ConnectionState {
  int64_t id = 0;      // CLIENT ID
  bool resp3 = false;  // it said HELLO 3
  std::string name;    // CLIENT SETNAME
  bool quit = false;   // close it once the reply is written
};

// The scripts SCRIPT LOAD gave the process, by SHA-1 (each instance has its own).
using ScriptCache = std::map<std::string, std::string>;

// The encoded reply when `argv` is answered without a step. Otherwise
// nullopt: the command is a step, and an EVALSHA of a cached script has been
// rewritten into argv as the EVAL it stands for. REQUIRES: argv not empty.
std::optional<std::string> AnswerLocally(std::vector<std::string>& argv, ConnectionState& conn,
                                         ScriptCache& scripts);

// Upper-case ASCII copy.
std::string Upper(std::string s);

}  // namespace lockstep::process
