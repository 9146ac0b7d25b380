// Replies between Redis and Lua, as Redis 7.0's script_lua.c converts them
// for a RESP2 client: redis.call's reply into a Lua value (PushReply), a
// script's result into a reply (LuaToReply), and the error tables and error
// replies of both directions. See lua_script_context.h for the rule every
// function here keeps.
#include <algorithm>
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

#include "sim/kv/command_table.h"
#include "sim/kv/commands.h"
#include "sim/kv/error_text.h"
#include "sim/kv/int_parse.h"
#include "sim/kv/lua_script_context.h"
#include "sim/kv/script.h"
#include "sim/kv/sha1.h"

namespace lockstep::kv::internal {

// (long long)d as x86-64 computes it (cvttsd2si): NaN and out-of-range
// values become INT64_MIN, which is what redis-server replies.
int64_t LuaNumberToInt64(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(d);
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
    while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n')) msg.remove_prefix(1);
    while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.remove_suffix(1);
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
    ctx->text = "-" + r.text.str();
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
void SetText(RunContext* ctx, Reply* r, Reply::Type type, const char* s, size_t n) noexcept {
  try {
    r->type = type;
    r->text = Text(std::string_view(s, n));
  } catch (...) {
    ctx->host_oom = true;
  }
}
// CR and LF made spaces (sdsmapchars), for a status or a big number.
void SetLineText(RunContext* ctx, Reply* r, Reply::Type type, const char* s, size_t n) noexcept {
  try {
    std::string line(s, n);
    std::replace_if(
        line.begin(), line.end(), [](char c) { return c == '\r' || c == '\n'; }, ' ');
    SetText(ctx, r, type, line.data(), line.size());
  } catch (...) {
    ctx->host_oom = true;
  }
}
// Status texts: cut at a NUL, CR/LF made spaces.
void SetStatus(RunContext* ctx, Reply* r, const char* s) noexcept {
  SetLineText(ctx, r, Reply::Type::kStatus, s, std::strlen(s));
}
// addReplyErrorFormat(c, "-%s", msg): cut at a NUL, then sanitised.
void SetErrorMsg(RunContext* ctx, Reply* r, const char* msg) noexcept {
  try {
    std::string s = SanitizeErrorText("-" + std::string(msg));
    r->type = Reply::Type::kError;
    r->text = Text(std::string_view(s).substr(1));
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
void SetFormatError(RunContext* ctx, const char* prefix, const char* msg, size_t max_msg) noexcept {
  try {
    std::string_view m(msg);
    ctx->reply =
        Reply::Error("ERR " + SanitizeErrorText(prefix + std::string(m.substr(0, max_msg))));
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
  if (!lua_checkstack(L, 3)) luaL_error(L, "lua stack limit reach when parsing redis.call reply");
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
        SetLineText(ctx, out, Reply::Type::kBulk, s, len);
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

}  // namespace lockstep::kv::internal
