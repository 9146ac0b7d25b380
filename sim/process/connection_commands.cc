#include "sim/process/connection_commands.h"

#include <cctype>

#include "sim/kv/dispatch.h"
#include "sim/kv/reply.h"
#include "sim/kv/sha1.h"
#include "sim/process/resp.h"

namespace lockstep::process {
namespace {

using kv::Reply;

std::string Encoded(const Reply& r, const ConnectionState& conn) {
  std::string out;
  EncodeReply(r, conn.resp3, out);
  return out;
}

std::string WrongArity(const std::string& name) {
  return Encoded(Reply::Error("ERR wrong number of arguments for '" + name + "' command"), {});
}

// HELLO's map: an array of pairs in RESP2, a map in RESP3.
std::string HelloReply(const ConnectionState& conn) {
  const std::vector<std::pair<std::string, Reply>> fields = {
      {"server", Reply::Bulk("redis")},
      {"version", Reply::Bulk("7.0.0")},
      {"proto", Reply::Integer(conn.resp3 ? 3 : 2)},
      {"id", Reply::Integer(conn.id)},
      {"mode", Reply::Bulk("standalone")},
      {"role", Reply::Bulk("master")},
      {"modules", Reply::Array({})}};
  std::string out = (conn.resp3 ? "%" : "*") +
                    std::to_string(conn.resp3 ? fields.size() : 2 * fields.size()) + "\r\n";
  for (const auto& [key, value] : fields) {
    EncodeReply(Reply::Bulk(key), conn.resp3, out);
    EncodeReply(value, conn.resp3, out);
  }
  return out;
}

std::string InfoText() {
  return "# Server\r\nredis_version:7.0.0\r\nredis_mode:standalone\r\nos:lockstep\r\n"
         "arch_bits:64\r\n\r\n# Clients\r\nconnected_clients:1\r\n\r\n# Persistence\r\n"
         "loading:0\r\nasync_loading:0\r\n\r\n# Replication\r\nrole:master\r\n"
         "connected_slaves:0\r\n\r\n# Keyspace\r\n";
}

std::optional<std::string> Client(const std::vector<std::string>& argv, ConnectionState& conn) {
  if (argv.size() < 2) return WrongArity("client");
  const std::string sub = Upper(argv[1]);
  if (sub == "SETNAME" && argv.size() == 3) {
    conn.name = argv[2];
    return Encoded(Reply::Ok(), conn);
  }
  if (sub == "SETINFO" && argv.size() == 4) return Encoded(Reply::Ok(), conn);
  if (sub == "GETNAME" && argv.size() == 2) {
    return Encoded(conn.name.empty() ? Reply::Nil() : Reply::Bulk(conn.name), conn);
  }
  if (sub == "ID" && argv.size() == 2) return Encoded(Reply::Integer(conn.id), conn);
  return Encoded(Reply::Error("ERR unknown subcommand or wrong number of arguments for '" +
                              argv[1] + "'. Try CLIENT HELP."),
                 conn);
}

std::optional<std::string> Script(const std::vector<std::string>& argv, ConnectionState& conn,
                                  ScriptCache& scripts) {
  if (argv.size() < 2) return WrongArity("script");
  const std::string sub = Upper(argv[1]);
  if (sub == "LOAD" && argv.size() == 3) {
    const std::string sha = kv::Sha1Hex(argv[2]);
    scripts[sha] = argv[2];
    return Encoded(Reply::Bulk(sha), conn);
  }
  if (sub == "EXISTS" && argv.size() >= 3) {
    std::vector<Reply> found;
    for (size_t i = 2; i < argv.size(); ++i) {
      std::string sha = argv[i];
      for (char& ch : sha) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      found.push_back(Reply::Integer(scripts.count(sha) ? 1 : 0));
    }
    return Encoded(Reply::Array(std::move(found)), conn);
  }
  if (sub == "FLUSH" && argv.size() <= 3) {
    scripts.clear();
    return Encoded(Reply::Ok(), conn);
  }
  return Encoded(Reply::Error("ERR unknown subcommand or wrong number of arguments for '" +
                              argv[1] + "'. Try SCRIPT HELP."),
                 conn);
}

}  // namespace

std::string Upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::optional<std::string> AnswerLocally(std::vector<std::string>& argv, ConnectionState& conn,
                                         ScriptCache& scripts) {
  const std::string name = Upper(argv[0]);
  if (name == "PING") {
    if (argv.size() > 2) return WrongArity("ping");
    return Encoded(argv.size() == 2 ? Reply::Bulk(argv[1]) : Reply::Status("PONG"), conn);
  }
  if (name == "ECHO") {
    if (argv.size() != 2) return WrongArity("echo");
    return Encoded(Reply::Bulk(argv[1]), conn);
  }
  if (name == "HELLO") {
    if (argv.size() >= 2) {
      const std::string& v = argv[1];
      if (v != "2" && v != "3") {
        return Encoded(Reply::Error("NOPROTO unsupported protocol version"), conn);
      }
      conn.resp3 = v == "3";
    }
    for (size_t i = 2; i + 1 < argv.size(); ++i) {
      if (Upper(argv[i]) == "SETNAME") conn.name = argv[i + 1];
    }
    return HelloReply(conn);
  }
  if (name == "SELECT") {
    if (argv.size() != 2) return WrongArity("select");
    return Encoded(kv::SelectReply(argv[1]), conn);
  }
  if (name == "CLIENT") return Client(argv, conn);
  if (name == "INFO") return Encoded(Reply::Bulk(InfoText()), conn);
  if (name == "COMMAND") return Encoded(Reply::Array({}), conn);
  if (name == "QUIT") {
    conn.quit = true;
    return Encoded(Reply::Ok(), conn);
  }
  if (name == "SCRIPT") return Script(argv, conn, scripts);
  if (name == "EVALSHA" || name == "EVALSHA_RO") {
    if (argv.size() < 3) return WrongArity(Upper(argv[0]) == "EVALSHA" ? "evalsha" : "evalsha_ro");
    std::string sha = argv[1];
    for (char& ch : sha) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    auto it = scripts.find(sha);
    if (it == scripts.end()) {
      return Encoded(Reply::Error("NOSCRIPT No matching script. Please use EVAL."), conn);
    }
    argv[0] = name == "EVALSHA" ? "EVAL" : "EVAL_RO";
    argv[1] = it->second;
  }
  return std::nullopt;
}

}  // namespace lockstep::process
