// EVAL (Redis 7.0's src/eval.c, script_lua.c and script.c) on Lua 5.1.
//
// A rule for every function Lua calls (lua_CFunction, hooks, readers) and
// the helpers they call directly: Lua raises errors with longjmp, which
// skips C++ destructors, so no object with a destructor may be alive in
// their frames across a Lua API call that can raise. Their C++ work happens
// in noexcept helpers that write into the RunContext, which outlives them.
#include "sim/kv/script.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "sim/kv/command_table.h"
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"

namespace lockstep::kv {
namespace {

// FIPS 180-4 SHA-1.
class Sha1 {
 public:
  void Update(const unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      block_[fill_++] = p[i];
      if (fill_ == 64) Block();
    }
    bits_ += static_cast<uint64_t>(n) * 8;
  }
  std::array<unsigned char, 20> Final() {
    const uint64_t bits = bits_;
    const unsigned char pad = 0x80;
    Update(&pad, 1);
    const unsigned char zero = 0;
    while (fill_ != 56) Update(&zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; ++i)
      len[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    Update(len, 8);
    std::array<unsigned char, 20> out{};
    for (int i = 0; i < 20; ++i) {
      out[static_cast<size_t>(i)] =
          static_cast<unsigned char>(h_[i / 4] >> (24 - 8 * (i % 4)));
    }
    return out;
  }

 private:
  static uint32_t Rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
  void Block() {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      w[i] = static_cast<uint32_t>(block_[4 * i]) << 24 |
             static_cast<uint32_t>(block_[4 * i + 1]) << 16 |
             static_cast<uint32_t>(block_[4 * i + 2]) << 8 | block_[4 * i + 3];
    }
    for (int i = 16; i < 80; ++i)
      w[i] = Rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6;
      }
      const uint32_t t = Rol(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = Rol(b, 30);
      b = a;
      a = t;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    fill_ = 0;
  }

  uint32_t h_[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  unsigned char block_[64] = {};
  size_t fill_ = 0;
  uint64_t bits_ = 0;
};

void Sha1HexInto(const char* data, size_t n, char out[41]) {
  Sha1 sha;
  sha.Update(reinterpret_cast<const unsigned char*>(data), n);
  static constexpr char kHex[] = "0123456789abcdef";
  const auto digest = sha.Final();
  for (size_t i = 0; i < 20; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  out[40] = '\0';
}

}  // namespace

std::string Sha1Hex(std::string_view data) {
  char hex[41];
  Sha1HexInto(data.data(), data.size(), hex);
  return std::string(hex, 40);
}

namespace internal {
namespace {

// Lua instructions between two calls of the count hook.
constexpr int kHookEvery = 10'000;
// Compiled scripts kept per thread before the cache starts over.
constexpr size_t kMaxCachedScripts = 1000;

// What Redis 7.0.15 reports as its version to scripts.
constexpr const char* kRedisVersion = "7.0.15";
constexpr int kRedisVersionNum = 0x0007000f;

// Redis's rand.c: the 48-bit linear congruential generator of lrand48.
int32_t Lrand48(uint64_t* x) {
  *x = (*x * 0x5DEECE66DULL + 0xB) & ((uint64_t{1} << 48) - 1);
  return static_cast<int32_t>(*x >> 17);
}
uint64_t Srand48(int32_t seed) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E;
}
constexpr int32_t kLrand48Max = INT32_MAX;
// rand.c's initial state (lrand48's default seed), which redis-server 7.0
// starts from and never reseeds: every script here starts from it, so its
// draws are those of the first script on a freshly started server.
constexpr uint64_t kLrand48Initial = 0x1234ABCD330EULL;

// (long long)d as x86-64 computes it (cvttsd2si): NaN and out-of-range
// values become INT64_MIN, which is what redis-server replies.
int64_t LuaNumberToInt64(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
    return INT64_MIN;
  return static_cast<int64_t>(d);
}

// One EVAL's state, reachable from the functions Lua calls.
struct RunContext {
  Db* db = nullptr;
  const Argv* argv = nullptr;
  size_t numkeys = 0;
  std::string sha;
  std::string body;  // as compiled: a shebang line is blanked
  bool no_writes = false;
  Reply reply;
  bool have_reply = false;
  bool host_oom = false;  // a C++ allocation failed inside a Lua callback
  Argv call_argv;         // redis.call's, reused
  Reply call_reply;
  std::string text;  // scratch for error texts
  int64_t hook_calls = 0;
  bool over_limit = false;
  uint64_t rand48 = 0;
};

thread_local RunContext* t_ctx = nullptr;

// ---- noexcept helpers (C++ work for the Lua callbacks) ----

void StartCallArgs(RunContext* ctx) noexcept { ctx->call_argv.clear(); }

bool AddCallArg(RunContext* ctx, const char* s, size_t n) noexcept {
  try {
    ctx->call_argv.emplace_back(s, n);
    return true;
  } catch (...) {
    ctx->host_oom = true;
    return false;
  }
}

enum class CallOutcome { kReply, kScriptError };

// script.c's scriptCall: the checks a script's command must pass, then the
// command itself, on the script's Db (so at the script's `now`).
CallOutcome RunCall(RunContext* ctx) noexcept {
  try {
    const Argv& argv = ctx->call_argv;
    const CommandSpec* spec = FindCommand(argv[0]);
    if (spec == nullptr || !ArityOk(*spec, argv.size())) {
      ctx->text =
          spec == nullptr
              ? "Unknown Redis command called from script"
              : "Wrong number of args calling Redis command from script";
      return CallOutcome::kScriptError;
    }
    // CMD_NOSCRIPT: of the model's commands, only EVAL.
    if (spec->name == "EVAL") {
      ctx->text = "This Redis command is not allowed from script";
      return CallOutcome::kScriptError;
    }
    if (ctx->no_writes && spec->access == Access::kWrite) {
      ctx->text = "Write commands are not allowed from read-only scripts.";
      return CallOutcome::kScriptError;
    }
    const auto index = static_cast<size_t>(spec - CommandTable().data());
    ctx->call_reply = HandlerAt(index)(*ctx->db, argv);
    return CallOutcome::kReply;
  } catch (...) {
    ctx->host_oom = true;
    ctx->call_reply = Reply();
    return CallOutcome::kReply;
  }
}

// luaPushErrorBuff's message: "-CODE msg" keeps its code, anything else gets
// ERR; the message is cut at a NUL and trimmed of CR/LF at both ends.
void FormatErrorTable(RunContext* ctx, const char* buf) noexcept {
  try {
    std::string_view s(buf);
    std::string_view code = "ERR";
    std::string_view msg = s;
    if (!s.empty() && s[0] == '-') {
      const size_t sp = s.find(' ');
      if (sp == std::string_view::npos) {
        msg = s.substr(1);
      } else {
        code = s.substr(1, sp - 1);
        msg = s.substr(sp + 1);
      }
    }
    while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n'))
      msg.remove_prefix(1);
    while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n'))
      msg.remove_suffix(1);
    std::string out(code);
    out += ' ';
    out += msg;
    ctx->text = std::move(out);
  } catch (...) {
    ctx->host_oom = true;
    ctx->text.clear();
  }
}

// "-" + text of a command's error reply, as redisProtocolToLuaType_Error
// sees it.
void ErrorReplyBuffer(RunContext* ctx, const Reply& r) noexcept {
  try {
    ctx->text = "-" + r.text;
  } catch (...) {
    ctx->host_oom = true;
    ctx->text.clear();
  }
}

// Reply-tree building for the Lua-to-Redis conversion.
Reply* AddElement(RunContext* ctx, Reply* array) noexcept {
  try {
    array->elements.emplace_back();
    return &array->elements.back();
  } catch (...) {
    ctx->host_oom = true;
    return nullptr;
  }
}
void SetArray(Reply* r) noexcept { r->type = Reply::Type::kArray; }
void SetInteger(Reply* r, int64_t v) noexcept {
  r->type = Reply::Type::kInteger;
  r->integer = v;
}
void SetText(RunContext* ctx, Reply* r, Reply::Type type, const char* s,
             size_t n) noexcept {
  try {
    r->type = type;
    r->text.assign(s, n);
  } catch (...) {
    ctx->host_oom = true;
  }
}
// Status texts: cut at a NUL, CR/LF made spaces (sdsmapchars).
void SetStatus(RunContext* ctx, Reply* r, const char* s) noexcept {
  SetText(ctx, r, Reply::Type::kStatus, s, std::strlen(s));
  for (char& c : r->text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
}
// addReplyErrorFormat(c, "-%s", msg): cut at a NUL, then sanitised.
void SetErrorMsg(RunContext* ctx, Reply* r, const char* msg) noexcept {
  try {
    std::string s = SanitizeErrorText("-" + std::string(msg));
    r->type = Reply::Type::kError;
    r->text = s.substr(1);
  } catch (...) {
    ctx->host_oom = true;
  }
}
// addReplyDouble for a RESP2 client.
void SetDouble(RunContext* ctx, Reply* r, double d) noexcept {
  char buf[64];
  int n;
  if (std::isinf(d)) {
    n = std::snprintf(buf, sizeof(buf), "%s", d > 0 ? "inf" : "-inf");
  } else {
    n = std::snprintf(buf, sizeof(buf), "%.17g", d);
  }
  SetText(ctx, r, Reply::Type::kBulk, buf, static_cast<size_t>(n));
}

// The final reply of a script that raised: luaCallFunction's
// "-<msg> script: <sha>, on <source>:<line>." through addReplyErrorSdsEx.
void SetRuntimeError(RunContext* ctx, const char* msg, const char* source,
                     const char* line) noexcept {
  try {
    std::string s = "-" + std::string(msg);
    if (source != nullptr && line != nullptr) {
      s += " script: " + ctx->sha + ", on " + source + ":" + line + ".";
    }
    s = SanitizeErrorText(std::move(s));
    ctx->reply = Reply::Error(s.substr(1));
    ctx->have_reply = true;
  } catch (...) {
    ctx->host_oom = true;
  }
}

// addReplyErrorFormat of a text with no code of its own: sanitised, then
// given ERR.
void SetFormatError(RunContext* ctx, const char* prefix, const char* msg,
                    size_t max_msg) noexcept {
  try {
    std::string_view m(msg);
    ctx->reply = Reply::Error(
        "ERR " + SanitizeErrorText(prefix + std::string(m.substr(0, max_msg))));
    ctx->have_reply = true;
  } catch (...) {
    ctx->host_oom = true;
  }
}

// ---- Lua side ----

// luaPushErrorBuff: a table {err = "CODE msg"} on the stack.
void PushErrorBuff(lua_State* L, RunContext* ctx, const char* buf) {
  FormatErrorTable(ctx, buf);
  lua_newtable(L);
  lua_pushstring(L, "err");
  lua_pushlstring(L, ctx->text.data(), ctx->text.size());
  lua_settable(L, -3);
}

void PushError(lua_State* L, const char* msg) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) {
    lua_pushstring(L, msg);
    return;
  }
  PushErrorBuff(L, ctx, msg);
}

// Marks an error table as coming from a command (Redis does not count it
// twice in its error stats); kept so scripts see the same table.
void MarkIgnoreStats(lua_State* L) {
  lua_pushstring(L, "ignore_error_stats_update");
  lua_pushboolean(L, 1);
  lua_settable(L, -3);
}

// redisProtocolToLuaType for a RESP2 reply.
void PushReply(lua_State* L, RunContext* ctx, const Reply& r) {
  if (!lua_checkstack(L, 3))
    luaL_error(L, "lua stack limit reach when parsing redis.call reply");
  switch (r.type) {
    case Reply::Type::kInteger:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      return;
    case Reply::Type::kBulk:
      lua_pushlstring(L, r.text.data(), r.text.size());
      return;
    case Reply::Type::kNil:
      lua_pushboolean(L, 0);
      return;
    case Reply::Type::kStatus:
      lua_newtable(L);
      lua_pushstring(L, "ok");
      lua_pushlstring(L, r.text.data(), r.text.size());
      lua_settable(L, -3);
      return;
    case Reply::Type::kError:
      ErrorReplyBuffer(ctx, r);
      PushErrorBuff(L, ctx, ctx->text.c_str());
      MarkIgnoreStats(L);
      return;
    case Reply::Type::kArray:
      lua_newtable(L);
      for (size_t j = 0; j < r.elements.size(); ++j) {
        lua_pushnumber(L, static_cast<lua_Number>(j + 1));
        PushReply(L, ctx, r.elements[j]);
        lua_settable(L, -3);
      }
      return;
  }
}

// luaRedisGenericCommand: redis.call (raise) and redis.pcall.
int RedisGenericCommand(lua_State* L, bool raise) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) {
    PushError(L,
              "redis.call/pcall can only be called inside a script invocation");
    return lua_error(L);
  }
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushError(L,
              "Please specify at least one argument for this redis lib call");
    return raise ? lua_error(L) : 1;
  }
  StartCallArgs(ctx);
  int j = 1;
  for (; j <= argc; ++j) {
    char buf[64];
    const char* s = nullptr;
    size_t len = 0;
    if (lua_type(L, j) == LUA_TNUMBER) {
      // As Redis: %.17g, not Lua's %.14g, so integers up to 2^53 survive.
      len = static_cast<size_t>(std::snprintf(
          buf, sizeof(buf), "%.17g", static_cast<double>(lua_tonumber(L, j))));
      s = buf;
    } else {
      s = lua_tolstring(L, j, &len);
      if (s == nullptr) break;  // not a string
    }
    if (!AddCallArg(ctx, s, len)) break;
  }
  lua_pop(L, argc);
  if (ctx->host_oom) return luaL_error(L, "not enough memory");
  if (j <= argc) {
    PushError(L, "Lua redis lib command arguments must be strings or integers");
    return raise ? lua_error(L) : 1;
  }
  if (RunCall(ctx) == CallOutcome::kScriptError) {
    PushErrorBuff(L, ctx, ctx->text.c_str());
    MarkIgnoreStats(L);
    return raise ? lua_error(L) : 1;
  }
  if (ctx->host_oom) return luaL_error(L, "not enough memory");
  PushReply(L, ctx, ctx->call_reply);
  if (raise && ctx->call_reply.is_error()) return lua_error(L);
  return 1;
}

int RedisCall(lua_State* L) { return RedisGenericCommand(L, true); }
int RedisPcall(lua_State* L) { return RedisGenericCommand(L, false); }

// luaRedisPcall: the global pcall, which hands back an error table's err
// string, as Lua scripts before Redis 7 saw errors.
int LuaPcall(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    // Redis calls lua_pcall(L, -1, ...), which calls its own placeholder.
    lua_pushboolean(L, 0);
    lua_pushstring(L, "attempt to call a boolean value");
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) lua_replace(L, -2);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

int RedisSha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "wrong number of arguments");
    return lua_error(L);
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  char hex[41];
  Sha1HexInto(s != nullptr ? s : "", s != nullptr ? len : 0, hex);
  lua_pushstring(L, hex);
  return 1;
}

int RedisErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushError(L, "wrong number or type of arguments");
    return 1;
  }
  const char* err = lua_tostring(L, -1);
  if (err[0] != '-') {
    lua_pushstring(L, "-");
    lua_pushvalue(L, -2);
    lua_concat(L, 2);
    err = lua_tostring(L, -1);
  }
  RunContext* ctx = t_ctx;
  if (ctx == nullptr)
    return luaL_error(L, "redis.error_reply outside a script");
  PushErrorBuff(L, ctx, err);
  return 1;
}

int RedisStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushError(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  return 1;
}

// redis.log: validated as Redis does; the model keeps no log.
int RedisLog(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) {
    PushError(L, "redis.log() requires two arguments or more.");
    return lua_error(L);
  }
  if (!lua_isnumber(L, -argc)) {
    PushError(L, "First argument must be a number (log level).");
    return lua_error(L);
  }
  const int level = static_cast<int>(lua_tonumber(L, -argc));
  if (level < 0 || level > 3) {
    PushError(L, "Invalid debug level.");
    return lua_error(L);
  }
  return 0;
}

// redis.setresp: validated; replies stay RESP2 (see known_departures.h).
int RedisSetresp(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "redis.setresp() requires one argument.");
    return lua_error(L);
  }
  const int resp = static_cast<int>(lua_tonumber(L, -1));
  if (resp != 2 && resp != 3) {
    PushError(L, "RESP version must be 2 or 3.");
    return lua_error(L);
  }
  return 0;
}

// redis.set_repl: validated; the model does not replicate.
int RedisSetRepl(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "redis.set_repl() requires two arguments.");
    return lua_error(L);
  }
  const int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~3) != 0) {
    PushError(L,
              "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL "
              "or REPL_NONE.");
    return lua_error(L);
  }
  return 0;
}

int RedisReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int RedisBreakpoint(lua_State* L) {
  lua_pushboolean(L, 0);  // no debugger session
  return 1;
}

int RedisDebug(lua_State*) { return 0; }

// redis.acl_check_cmd for the default user, who may run every command.
int RedisAclCheckCmd(lua_State* L) {
  if (lua_gettop(L) == 0) {
    PushError(L,
              "Please specify at least one argument for this redis lib call");
    return lua_error(L);
  }
  size_t len = 0;
  const char* name =
      lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : nullptr;
  if (name == nullptr || FindCommand(std::string_view(name, len)) == nullptr) {
    PushError(L, "Invalid command passed to redis.acl_check_cmd()");
    return lua_error(L);
  }
  lua_pushboolean(L, 1);
  return 1;
}

// redis_math_random: Lua 5.1's math.random over Redis's lrand48.
int MathRandom(lua_State* L) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr)
    return luaL_error(
        L, "math.random can only be called inside a script invocation");
  const lua_Number r =
      static_cast<lua_Number>(Lrand48(&ctx->rand48) % kLrand48Max) /
      static_cast<lua_Number>(kLrand48Max);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int MathRandomseed(lua_State* L) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr)
    return luaL_error(
        L, "math.randomseed can only be called inside a script invocation");
  ctx->rand48 = Srand48(luaL_checkint(L, 1));
  return 0;
}

// Redis's Lua parses every chunk as text (bytecode loading is disabled: a
// crafted binary chunk can crash Lua 5.1). Debian's Lua loads binary chunks,
// so a chunk that starts with the binary signature gets a leading space:
// the lexer then rejects the escape byte with Redis's own message.
int LuaLoadstring(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
    lua_pushstring(L, " ");
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
    s = lua_tolstring(L, -1, &len);
  }
  if (luaL_loadbuffer(L, s, len, chunkname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

struct ReaderState {
  int stage = 0;  // 0: first piece not read, 1: a space was given, 2: plain
};

// luaB_load's generic_reader, with the leading space for a binary chunk.
const char* LoadReader(lua_State* L, void* ud, size_t* size) {
  auto* st = static_cast<ReaderState*>(ud);
  if (st->stage == 1) {
    st->stage = 2;
    return lua_tolstring(L, 3, size);
  }
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1))
    luaL_error(L, "reader function must return a string");
  lua_replace(L, 3);
  const char* piece = lua_tolstring(L, 3, size);
  if (st->stage == 0 && *size > 0 && piece[0] == LUA_SIGNATURE[0]) {
    st->stage = 1;
    *size = 1;
    return " ";
  }
  st->stage = 2;
  return piece;
}

int LuaLoad(lua_State* L) {
  const char* cname = luaL_optstring(L, 2, "=(load)");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 3);
  ReaderState st;
  if (lua_load(L, LoadReader, &st, cname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// ---- read-only globals and libraries ----
//
// Redis 7.0.15 makes the globals and every library table read-only with a
// flag its own Lua has. Debian's Lua has no such flag, so scripts see empty
// proxies instead: reads go through to the real table, writes raise Redis's
// error, and rawget/rawset/next/pairs look through the proxies.

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

int ReadonlyNewindex(lua_State* L) {
  return luaL_error(L, "%s", kReadonlyError);
}

// luaProtectedTableError, as the globals' __index: upvalue 1 is the real
// globals table.
int GlobalsIndex(lua_State* L) {
  if (lua_gettop(L) != 2)
    return luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  if (!lua_isstring(L, -1) && !lua_isnumber(L, -1)) {
    return luaL_error(
        L,
        "Second argument to luaProtectedTableError must be a string or number");
  }
  return luaL_error(
      L, "Script attempted to access nonexistent global variable '%s'",
      lua_tostring(L, -1));
}

// Registry key of the proxy -> real table map.
char kProxiesKey;

// Replaces the table at idx by the real table if it is a proxy; returns
// whether it was one.
bool Unproxy(lua_State* L, int idx) {
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  const bool proxy = !lua_isnil(L, -1);
  if (proxy) {
    lua_replace(L, idx);
    lua_pop(L, 1);
  } else {
    lua_pop(L, 2);
  }
  return proxy;
}

int RawGet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  Unproxy(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int RawSet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  if (Unproxy(L, 1)) {
    // Raised from inside a C function: no position, as in Redis.
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_rawset(L, 1);
  return 1;
}

int Next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  Unproxy(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

// upvalue 1: Next.
int Pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// luaB_setmetatable, refusing the proxies as Redis refuses read-only tables.
int SetMetatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2,
                "nil or table expected");
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  if (Unproxy(L, 3)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pop(L, 1);
  if (luaL_getmetafield(L, 1, "__metatable"))
    return luaL_error(L, "cannot change a protected metatable");
  lua_setmetatable(L, 1);
  return 1;
}

// Pushes a read-only proxy of the table at idx and records it.
void PushProxy(lua_State* L, int idx) {
  idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  lua_newtable(L);  // proxy
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Redis's error handler (eval.c), verbatim in behaviour: it adds where the
// error happened, seen from the script.
constexpr const char* kErrorHandler =
    "local dbg = debug\n"
    "debug = nil\n"
    "function __redis__err__handler(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}"
    "  end"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end"
    "  return err\n"
    "end\n";

struct Refs {
  int globals = LUA_NOREF;        // the real globals table
  int proxy_globals = LUA_NOREF;  // what scripts see as _G
  int scripts = LUA_NOREF;        // sha -> compiled function
  int proxies = LUA_NOREF;        // the proxies, to empty after a run
};

void OpenLib(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

void SetFunction(lua_State* L, const char* name, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_setfield(L, -2, name);
}

void SetNumber(lua_State* L, const char* name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

// luaRegisterRedisAPI and the sandbox, as Redis 7.0.15 leaves them.
int InitState(lua_State* L) {
  auto* refs = static_cast<Refs*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  OpenLib(L, "", luaopen_base);
  OpenLib(L, LUA_TABLIBNAME, luaopen_table);
  OpenLib(L, LUA_STRLIBNAME, luaopen_string);
  OpenLib(L, LUA_MATHLIBNAME, luaopen_math);
  OpenLib(L, LUA_DBLIBNAME, luaopen_debug);
  // Globals Redis does not offer (its deny list, and what 7.0 removed).
  for (const char* name :
       {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_pushcfunction(L, LuaPcall);
  lua_setglobal(L, "pcall");
  lua_pushcfunction(L, LuaLoadstring);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, LuaLoad);
  lua_setglobal(L, "load");

  lua_newtable(L);
  SetFunction(L, "call", RedisCall);
  SetFunction(L, "pcall", RedisPcall);
  SetFunction(L, "log", RedisLog);
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  lua_pushstring(L, kRedisVersion);
  lua_setfield(L, -2, "REDIS_VERSION");
  SetNumber(L, "REDIS_VERSION_NUM", kRedisVersionNum);
  SetFunction(L, "setresp", RedisSetresp);
  SetFunction(L, "sha1hex", RedisSha1hex);
  SetFunction(L, "error_reply", RedisErrorReply);
  SetFunction(L, "status_reply", RedisStatusReply);
  SetFunction(L, "set_repl", RedisSetRepl);
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  SetFunction(L, "replicate_commands", RedisReplicateCommands);
  SetFunction(L, "breakpoint", RedisBreakpoint);
  SetFunction(L, "debug", RedisDebug);
  SetFunction(L, "acl_check_cmd", RedisAclCheckCmd);
  lua_setglobal(L, "redis");

  lua_getglobal(L, "math");
  SetFunction(L, "random", MathRandom);
  SetFunction(L, "randomseed", MathRandomseed);
  lua_pop(L, 1);

  if (luaL_loadbuffer(L, kErrorHandler, std::strlen(kErrorHandler),
                      "@err_handler_def") != 0) {
    return lua_error(L);
  }
  lua_call(L, 0, 0);  // also removes debug

  // The proxies.
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, LUA_GLOBALSINDEX);  // 1: the real globals
  lua_newtable(L);                     // 2: the list of proxies
  int n = 0;
  for (const char* lib : {"string", "math", "table", "coroutine", "redis"}) {
    lua_getfield(L, 1, lib);
    PushProxy(L, -1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, 2, ++n);
    lua_setfield(L, 1, lib);
    lua_pop(L, 1);
  }
  // Strings index the string library through their metatable.
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_getfield(L, 1, "string");
  lua_setfield(L, -2, "__index");
  PushProxy(L, -1);
  lua_pushvalue(L, -1);
  lua_rawseti(L, 2, ++n);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);
  // rawget, rawset, next and pairs look through proxies.
  lua_pushcfunction(L, RawGet);
  lua_setfield(L, 1, "rawget");
  lua_pushcfunction(L, RawSet);
  lua_setfield(L, 1, "rawset");
  lua_pushcfunction(L, SetMetatable);
  lua_setfield(L, 1, "setmetatable");
  lua_pushcfunction(L, Next);
  lua_pushvalue(L, -1);
  lua_setfield(L, 1, "next");
  lua_pushcclosure(L, Pairs, 1);
  lua_setfield(L, 1, "pairs");
  // The globals' proxy: a missing name is an error, as in Redis.
  lua_newtable(L);  // 3
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, GlobalsIndex, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_pushvalue(L, 3);
  lua_rawseti(L, 2, ++n);
  lua_pushvalue(L, 3);
  lua_setfield(L, 1, "_G");

  lua_newtable(L);
  refs->scripts = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 2);
  refs->proxies = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 3);
  refs->proxy_globals = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 1);
  refs->globals = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

// Runs every kHookEvery instructions. Past the limit it fires on every
// instruction of the thread and of the main thread, so a script that
// catches the error with pcall cannot keep running (Redis does the same for
// SCRIPT KILL).
lua_State* t_main = nullptr;

void CountHook(lua_State* L, lua_Debug*) {
  RunContext* ctx = t_ctx;
  if (ctx == nullptr) return;
  if (!ctx->over_limit) {
    ++ctx->hook_calls;
    if (ctx->hook_calls * kHookEvery < kScriptInstructionLimit) return;
    ctx->over_limit = true;
  }
  lua_sethook(L, CountHook, LUA_MASKCOUNT, 1);
  if (t_main != nullptr && t_main != L)
    lua_sethook(t_main, CountHook, LUA_MASKCOUNT, 1);
  PushError(L, kScriptInstructionLimitError.data() + 4);  // without "ERR "
  lua_error(L);
}

void PushArgs(lua_State* L, const Argv& argv, size_t begin, size_t end) {
  lua_createtable(L, static_cast<int>(end - begin), 0);
  for (size_t j = begin; j < end; ++j) {
    lua_pushlstring(L, argv[j].data(), argv[j].size());
    lua_rawseti(L, -2, static_cast<int>(j - begin + 1));
  }
}

// Reads field `name` of the table at the top without metamethods.
void RawField(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
}

// luaReplyToRedisReply for a RESP2 client: converts and pops the value at
// the top of the stack into *out.
void LuaToReply(lua_State* L, RunContext* ctx, Reply* out) {
  const int t = lua_type(L, -1);
  if (!lua_checkstack(L, 4)) {
    SetErrorMsg(ctx, out, "ERR reached lua stack limit");
    lua_pop(L, 1);
    return;
  }
  switch (t) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      SetText(ctx, out, Reply::Type::kBulk, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      if (lua_toboolean(L, -1)) SetInteger(out, 1);
      break;
    case LUA_TNUMBER:
      SetInteger(out, LuaNumberToInt64(lua_tonumber(L, -1)));
      break;
    case LUA_TTABLE: {
      RawField(L, "err");
      if (lua_type(L, -1) == LUA_TSTRING) {
        SetErrorMsg(ctx, out, lua_tostring(L, -1));
        lua_pop(L, 2);
        return;
      }
      lua_pop(L, 1);
      RawField(L, "ok");
      if (lua_type(L, -1) == LUA_TSTRING) {
        SetStatus(ctx, out, lua_tostring(L, -1));
        lua_pop(L, 2);
        return;
      }
      lua_pop(L, 1);
      RawField(L, "double");
      if (lua_type(L, -1) == LUA_TNUMBER) {
        SetDouble(ctx, out, lua_tonumber(L, -1));
        lua_pop(L, 2);
        return;
      }
      lua_pop(L, 1);
      RawField(L, "big_number");
      if (lua_type(L, -1) == LUA_TSTRING) {
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        SetText(ctx, out, Reply::Type::kBulk, s, len);
        for (char& c : out->text) {
          if (c == '\r' || c == '\n') c = ' ';
        }
        lua_pop(L, 2);
        return;
      }
      lua_pop(L, 1);
      RawField(L, "verbatim_string");
      if (lua_type(L, -1) == LUA_TTABLE) {
        RawField(L, "format");
        if (lua_type(L, -1) == LUA_TSTRING) {
          lua_pushstring(L, "string");
          lua_rawget(L, -3);
          if (lua_type(L, -1) == LUA_TSTRING) {
            size_t len = 0;
            const char* s = lua_tolstring(L, -1, &len);
            SetText(ctx, out, Reply::Type::kBulk, s, len);
            lua_pop(L, 4);
            return;
          }
          lua_pop(L, 1);
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      // A RESP2 client gets a map as a flat array and a set as an array.
      for (const char* kind : {"map", "set"}) {
        RawField(L, kind);
        if (lua_type(L, -1) == LUA_TTABLE) {
          const bool map = kind[0] == 'm';
          SetArray(out);
          lua_pushnil(L);
          while (lua_next(L, -2)) {
            if (!map) lua_pop(L, 1);  // a set's values are all true
            lua_pushvalue(L, map ? -2 : -1);
            Reply* key = AddElement(ctx, out);
            if (key == nullptr) luaL_error(L, "not enough memory");
            LuaToReply(L, ctx, key);
            if (map) {
              Reply* value = AddElement(ctx, out);
              if (value == nullptr) luaL_error(L, "not enough memory");
              LuaToReply(L, ctx, value);
            }
          }
          lua_pop(L, 2);
          return;
        }
        lua_pop(L, 1);
      }
      SetArray(out);
      for (int j = 1;; ++j) {
        lua_pushnumber(L, j);
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TNIL) {
          lua_pop(L, 1);
          break;
        }
        Reply* element = AddElement(ctx, out);
        if (element == nullptr) luaL_error(L, "not enough memory");
        LuaToReply(L, ctx, element);
      }
      break;
    }
    default:
      break;  // nil, functions and the rest: a nil reply
  }
  lua_pop(L, 1);
}

struct Engine {
  lua_State* L = nullptr;
  size_t used = 0;
  size_t scripts = 0;
  Refs refs;

  Engine() {
    L = lua_newstate(Alloc, &used);
    if (L == nullptr) return;
    if (lua_cpcall(L, InitState, &refs) != 0) {
      lua_close(L);
      L = nullptr;
    }
  }
  ~Engine() {
    if (L != nullptr) lua_close(L);
  }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Accounts every byte, so a script cannot take the host's memory.
  static void* Alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
    auto* used = static_cast<size_t*>(ud);
    const size_t base = *used - (ptr != nullptr ? osize : 0);
    if (nsize == 0) {
      std::free(ptr);
      *used = base;
      return nullptr;
    }
    if (nsize > osize && base + nsize > kScriptMemoryLimit) return nullptr;
    void* p = std::realloc(ptr, nsize);
    if (p == nullptr) return nullptr;
    *used = base + nsize;
    return p;
  }
};

int RunProtected(lua_State* L);

Engine* ThreadEngine() {
  thread_local std::unique_ptr<Engine> engine;
  if (!engine) engine = std::make_unique<Engine>();
  return engine->L != nullptr ? engine.get() : nullptr;
}

// Everything one EVAL does in Lua, inside lua_cpcall so that no error can
// escape to Lua's panic handler.
int RunProtected(lua_State* L) {
  RunContext* ctx = t_ctx;
  auto* engine = static_cast<Engine*>(lua_touserdata(L, 1));
  const Refs& refs = engine->refs;
  lua_settop(L, 0);
  // Undo whatever the last script could change: the collector's settings.
  lua_gc(L, LUA_GCRESTART, 0);
  lua_gc(L, LUA_GCSETPAUSE, 200);
  lua_gc(L, LUA_GCSETSTEPMUL, 200);
  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.proxy_globals);  // 1
  lua_pushvalue(L, 1);
  lua_replace(L, LUA_GLOBALSINDEX);

  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.scripts);  // 2
  lua_pushlstring(L, ctx->sha.data(), ctx->sha.size());
  lua_rawget(L, 2);  // 3: the function, or nil
  if (lua_isnil(L, 3)) {
    lua_pop(L, 1);
    if (luaL_loadbuffer(L, ctx->body.data(), ctx->body.size(),
                        "@user_script") != 0) {
      SetFormatError(ctx, "Error compiling script (new function): ",
                     lua_tostring(L, -1), std::string_view::npos);
      return 0;
    }
    if (++engine->scripts > kMaxCachedScripts) {
      engine->scripts = 1;
      lua_newtable(L);
      lua_replace(L, 2);
      lua_pushvalue(L, 2);
      lua_rawseti(L, LUA_REGISTRYINDEX, refs.scripts);
    }
    lua_pushlstring(L, ctx->sha.data(), ctx->sha.size());
    lua_pushvalue(L, 3);
    lua_rawset(L, 2);
  }
  lua_pushvalue(L, 1);
  lua_setfenv(L, 3);

  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.globals);  // 4
  const Argv& argv = *ctx->argv;
  lua_pushstring(L, "KEYS");
  PushArgs(L, argv, 3, 3 + ctx->numkeys);
  lua_rawset(L, 4);
  lua_pushstring(L, "ARGV");
  PushArgs(L, argv, 3 + ctx->numkeys, argv.size());
  lua_rawset(L, 4);
  lua_getfield(L, 4, "__redis__err__handler");  // 5
  lua_pushvalue(L, 3);                          // 6

  t_main = L;
  lua_sethook(L, CountHook, LUA_MASKCOUNT, kHookEvery);
  const int status = lua_pcall(L, 0, 1, 5);
  lua_sethook(L, nullptr, 0, 0);
  t_main = nullptr;

  if (status == 0) {
    ctx->reply = Reply();
    ctx->have_reply = true;
    LuaToReply(L, ctx, &ctx->reply);
  } else if (!lua_istable(L, -1)) {
    // Errors that never reached the handler (memory) or broke it.
    const char* msg =
        lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    lua_pushfstring(L, "Error running script %s, ", ctx->sha.c_str());
    SetFormatError(ctx, lua_tostring(L, -1), msg, 100);
  } else {
    // luaExtractErrorInformation, reading fields without metamethods. The
    // strings stay on the stack while they are used.
    const int error = lua_gettop(L);
    lua_pushstring(L, "err");
    lua_rawget(L, error);
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    lua_pushstring(L, "source");
    lua_rawget(L, error);
    const char* source = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    lua_pushstring(L, "line");
    lua_rawget(L, error);
    const char* line = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    if (msg == nullptr) {
      // redis-server 7.0.15 crashes here (a NULL message); see
      // known_departures.h.
      msg = "ERR Error running script: the error object has no err string";
    }
    SetRuntimeError(ctx, msg, source, line);
  }
  // A script may have stored into a proxy with table.insert and friends,
  // which write raw: empty them again.
  lua_rawgeti(L, LUA_REGISTRYINDEX, refs.proxies);
  const int proxies = lua_gettop(L);
  for (int i = 1;; ++i) {
    lua_rawgeti(L, proxies, i);
    if (lua_isnil(L, -1)) break;
    while (true) {
      lua_pushnil(L);
      if (!lua_next(L, -2)) break;
      lua_pop(L, 1);
      lua_pushnil(L);
      lua_rawset(L, -3);
    }
    lua_pop(L, 1);
  }
  // Keep the garbage left for the next script small, so it rarely decides
  // whether that script hits the memory cap.
  if (engine->used > kScriptMemoryLimit / 8) lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
}

// evalExtractShebangFlags, for the flags 7.0 knows; only no-writes changes
// what the model does.
std::optional<Reply> ParseShebang(RunContext* ctx) {
  const std::string& body = ctx->body;
  if (body.compare(0, 2, "#!") != 0) return std::nullopt;
  const size_t end = body.find('\n');
  if (end == std::string::npos)
    return Reply::Error("ERR Invalid script shebang");
  std::vector<std::string> parts;
  std::string_view line = AsCString(body).substr(0, end);
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    size_t j = i;
    while (j < line.size() &&
           !std::isspace(static_cast<unsigned char>(line[j])))
      ++j;
    if (j > i) parts.emplace_back(line.substr(i, j - i));
    i = j;
  }
  if (parts.empty())
    return Reply::Error("ERR Invalid engine in script shebang");
  if (parts[0] != "#!lua") {
    return Reply::Error("ERR Unexpected engine in script shebang: " + parts[0]);
  }
  static const char* const kFlags[] = {"no-writes", "allow-oom", "allow-stale",
                                       "no-cluster", "allow-cross-slot-keys"};
  for (size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].compare(0, 6, "flags=") != 0) {
      return Reply::Error("ERR Unknown lua shebang option: " + parts[p]);
    }
    std::string_view flags = std::string_view(parts[p]).substr(6);
    size_t start = 0;
    while (start <= flags.size()) {
      size_t comma = flags.find(',', start);
      if (comma == std::string_view::npos) comma = flags.size();
      const std::string_view flag = flags.substr(start, comma - start);
      if (!flag.empty()) {
        bool known = false;
        for (const char* f : kFlags) known = known || flag == f;
        if (!known) {
          return Reply::Error("ERR Unexpected flag in script shebang: " +
                              std::string(flag));
        }
        ctx->no_writes = ctx->no_writes || flag == "no-writes";
      }
      start = comma + 1;
    }
  }
  // The shebang line is skipped but its line feed kept, so line numbers in
  // errors stay the user's.
  ctx->body.erase(0, end);
  return std::nullopt;
}

}  // namespace

// evalGenericCommand.
Reply EvalCommand(Db& db, const Argv& argv) {
  int64_t numkeys = 0;
  if (!ParseInt64(argv[2], &numkeys))
    return Reply::Error(std::string(kNotAnInteger));
  if (numkeys > static_cast<int64_t>(argv.size()) - 3) {
    return Reply::Error(std::string(kNumkeysTooLarge));
  }
  if (numkeys < 0) return Reply::Error(std::string(kNumkeysNegative));
  if (t_ctx != nullptr) {
    // Unreachable: EVAL is refused inside scripts before it gets here.
    return Reply::Error("ERR This Redis command is not allowed from script");
  }
  RunContext ctx;
  ctx.db = &db;
  ctx.argv = &argv;
  ctx.numkeys = static_cast<size_t>(numkeys);
  ctx.sha = Sha1Hex(argv[1]);
  ctx.body = argv[1];
  ctx.rand48 = kLrand48Initial;
  if (auto error = ParseShebang(&ctx)) return *std::move(error);
  Engine* engine = ThreadEngine();
  if (engine == nullptr) return Reply::Error("ERR Failed creating the lua VM.");
  t_ctx = &ctx;
  const int status = lua_cpcall(engine->L, RunProtected, engine);
  t_ctx = nullptr;
  lua_settop(engine->L, 0);
  if (ctx.host_oom)
    return Reply::Error("ERR Error running script " + ctx.sha +
                        ", not enough memory");
  if (status != 0 || !ctx.have_reply) {
    // Only memory can fail outside the script's own pcall.
    return Reply::Error("ERR Error running script " + ctx.sha +
                        ", not enough memory");
  }
  return std::move(ctx.reply);
}

}  // namespace internal
}  // namespace lockstep::kv
