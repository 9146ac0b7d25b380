#include "sim/replay/redis_connection.h"

#include <cerrno>

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include "sim/base/input_error.h"
#include "sim/kv/int_parse.h"

namespace lockstep::replay {
namespace {

kv::Reply FromHiredis(const redisReply& r) {
  switch (r.type) {
    case REDIS_REPLY_INTEGER:
      return kv::Reply::Integer(r.integer);
    case REDIS_REPLY_STRING:
      return kv::Reply::Bulk(std::string(r.str, r.len));
    case REDIS_REPLY_STATUS:
      return kv::Reply::Status(std::string(r.str, r.len));
    case REDIS_REPLY_ERROR:
      return kv::Reply::Error(std::string(r.str, r.len));
    case REDIS_REPLY_ARRAY: {
      std::vector<kv::Reply> elements;
      for (size_t i = 0; i < r.elements; ++i) elements.push_back(FromHiredis(*r.element[i]));
      return kv::Reply::Array(std::move(elements));
    }
    default:
      return kv::Reply::Nil();
  }
}

}  // namespace

std::unique_ptr<RedisConnection> RedisConnection::Connect(const std::string& host, int port,
                                                          int timeout_ms, std::string* error,
                                                          const Credentials* auth) {
  timeval tv{};
  tv.tv_sec = timeout_ms / 1000;
  tv.tv_usec = (timeout_ms % 1000) * 1000;
  redisContext* c = redisConnectWithTimeout(host.c_str(), port, tv);
  if (c == nullptr) {
    *error = "cannot allocate a connection";
    return nullptr;
  }
  if (c->err != 0) {
    *error = c->errstr;
    redisFree(c);
    return nullptr;
  }
  // The same bound for every reply, so a stuck server cannot hang a replay.
  redisSetTimeout(c, tv);
  std::unique_ptr<RedisConnection> conn(new RedisConnection(c));
  if (auth != nullptr) {
    std::optional<kv::Reply> r = conn->Command({"AUTH", auth->user, auth->password}, error);
    if (!r && conn->timed_out()) {
      *error = "no reply to AUTH within " + std::to_string(timeout_ms) + " ms";
    }
    if (!r) return nullptr;
    if (*r != kv::Reply::Ok()) {
      *error = "AUTH as user " + auth->user + " answered " + r->ToString();
      return nullptr;
    }
  }
  return conn;
}

RedisConnection::~RedisConnection() { redisFree(context_); }

std::optional<kv::Reply> RedisConnection::Command(const std::vector<std::string>& argv,
                                                  std::string* error) {
  auto replies = Pipeline({argv}, error);
  if (!replies) return std::nullopt;
  return std::move(replies->front());
}

std::optional<std::vector<kv::Reply>> RedisConnection::Pipeline(
    const std::vector<std::vector<std::string>>& commands, std::string* error) {
  for (const std::vector<std::string>& argv : commands) {
    std::vector<const char*> args;
    std::vector<size_t> lens;
    for (const auto& a : argv) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(args.size()), args.data(), lens.data()) !=
        REDIS_OK) {
      *error = context_->errstr;
      return std::nullopt;
    }
  }
  std::vector<kv::Reply> replies;
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) {
      // hiredis reports a read that timed out as an I/O error with EAGAIN.
      timed_out_ = context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK);
      *error = context_->err != 0 ? context_->errstr : "no reply";
      return std::nullopt;
    }
    replies.push_back(FromHiredis(*static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
  }
  return replies;
}

HostPort ParseHostPort(const std::string& text) {
  const size_t colon = text.rfind(':');
  int64_t p = 0;
  if (colon == std::string::npos || colon == 0 ||
      !kv::ParseInt64(std::string_view(text).substr(colon + 1), &p) || p < 1 || p > 65535) {
    throw base::InputError(
        "", "", "--redis: expected HOST:PORT with a port in 1..65535, got \"" + text + "\"");
  }
  return {text.substr(0, colon), static_cast<int>(p)};
}

ServerAddress ParseServerAddress(const std::string& text) {
  constexpr std::string_view kScheme = "redis://";
  if (text.rfind(kScheme, 0) != 0) return {ParseHostPort(text), std::nullopt};
  std::string rest = text.substr(kScheme.size());
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    if (rest.substr(slash) != "/0" && rest.substr(slash) != "/") {
      throw base::InputError("", "",
                             "--redis: expected database 0 in the URL (redis://USER:PASSWORD@"
                             "HOST:PORT), got \"" +
                                 rest.substr(slash) + "\": the replay uses database 0");
    }
    rest.resize(slash);
  }
  ServerAddress out;
  const size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    const std::string userinfo = rest.substr(0, at);
    const size_t colon = userinfo.find(':');
    out.auth = Credentials{userinfo.substr(0, colon),
                           colon == std::string::npos ? "" : userinfo.substr(colon + 1)};
    if (out.auth->user.empty()) {
      throw base::InputError("", "",
                             "--redis: expected a user before the password in the URL "
                             "(redis://USER:PASSWORD@HOST:PORT)");
    }
    rest = rest.substr(at + 1);
  }
  out.at = ParseHostPort(rest);
  return out;
}

}  // namespace lockstep::replay
