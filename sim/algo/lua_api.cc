#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "sim/algo/lua_client.h"
#include "sim/base/limits.h"

namespace lockstep::algo::lua {
namespace {

int CommandOn(lua_State* L, int instance, int first, bool raise, const char* fn) {
  LuaClient* self = Self(L);
  ReadArgv(L, self, first, fn);
  bool time = false;
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->reply = self->client->CallOn(instance, std::move(self->argv));
        time = self->client->LastReplyIsTime();
      })) {
    return Failed(L);
  }
  NewStep(self);
  PushReply(L, self->reply, raise, time);
  return 1;
}

int Instance(lua_State* L, const char* fn) {
  const int64_t i = CheckInteger(L, 1, fn);
  if (i < 1 || i > static_cast<int64_t>(base::kMaxServers)) {
    BreakRuleF(L, "%s: expected an instance from 1, got %d", fn, static_cast<int>(i));
  }
  return static_cast<int>(i - 1);
}

int RedisCall(lua_State* L) { return CommandOn(L, 0, 1, true, "redis.call"); }
int RedisPcall(lua_State* L) { return CommandOn(L, 0, 1, false, "redis.pcall"); }
int RedisCallOn(lua_State* L) {
  return CommandOn(L, Instance(L, "redis.call_on"), 2, true, "redis.call_on");
}
int RedisPcallOn(lua_State* L) {
  return CommandOn(L, Instance(L, "redis.pcall_on"), 2, false, "redis.pcall_on");
}

int LockNow(lua_State* L) {
  LuaClient* self = Self(L);
  world::Millis now = 0;
  if (!Guard(self, [&] { now = self->client->Now(); })) return Failed(L);
  PushTime(L, now);
  return 1;
}

int LockClockPlus(lua_State* L) {
  const int64_t offset = CheckInteger(L, 1, "lock.clock_plus");
  auto* box = static_cast<int64_t*>(lua_newuserdata(L, sizeof(int64_t)));
  *box = offset;
  lua_getfield(L, LUA_REGISTRYINDEX, kClockPlusType);
  lua_setmetatable(L, -2);
  return 1;
}

int LockSentTimestamp(lua_State* L) {
  LuaClient* self = Self(L);
  world::Millis t = 0;
  if (!Guard(self, [&] { t = self->client->SentTimestamp(); })) return Failed(L);
  PushTime(L, t);
  return 1;
}

int LockSleep(lua_State* L) {
  const int64_t ticks = CheckInteger(L, 1, "lock.sleep");
  if (ticks < 0) BreakRule(L, "lock.sleep: expected ticks >= 0");
  // lock.sleep(least, most): a random back-off (Client::SleepRandom).
  const int64_t most = lua_isnoneornil(L, 2) ? ticks : CheckInteger(L, 2, "lock.sleep");
  if (most < ticks) BreakRule(L, "lock.sleep: expected most >= least");
  LuaClient* self = Self(L);
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->client->SleepRandom(ticks, most);
      })) {
    return Failed(L);
  }
  NewStep(self);
  return 0;
}

// lock.draw(least, most): a random integer, each as likely (Client::Draw).
int LockDraw(lua_State* L) {
  const int64_t least = CheckInteger(L, 1, "lock.draw");
  const int64_t most = CheckInteger(L, 2, "lock.draw");
  if (most < least) BreakRule(L, "lock.draw: expected most >= least");
  LuaClient* self = Self(L);
  int64_t value = 0;
  if (!Guard(self, [&] {
        MarkSource(L, self);
        value = self->client->Draw(least, most);
      })) {
    return Failed(L);
  }
  if (least != most) NewStep(self);
  lua_pushinteger(L, static_cast<lua_Integer>(value));
  return 1;
}

int LockBecause(lua_State* L) {
  size_t length = 0;
  const char* text = CheckString(L, 1, &length, "lock.because");
  LuaClient* self = Self(L);
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->client->Because(std::string(text, length));
      })) {
    return Failed(L);
  }
  return 0;
}

int LockEnter(lua_State* L) {
  const world::Millis valid_until = CheckTime(L, 1, "lock.enter");
  LuaClient* self = Self(L);
  if (!Guard(self, [&] { self->client->EnterCriticalSection(valid_until); })) return Failed(L);
  return 0;
}

int LockRenew(lua_State* L) {
  const world::Millis valid_until = CheckTime(L, 1, "lock.renew");
  LuaClient* self = Self(L);
  if (!Guard(self, [&] { self->client->Renew(valid_until); })) return Failed(L);
  return 0;
}

int LockLeave(lua_State* L) {
  LuaClient* self = Self(L);
  bool conditional = false;
  int64_t unless_expired = 0;
  self->argv.clear();
  if (!lua_isnoneornil(L, 1)) {
    CheckTable(L, 1, "lock.leave: the release command");
    const int n = static_cast<int>(lua_objlen(L, 1));
    for (int i = 1; i <= n; ++i) lua_rawgeti(L, 1, i);
    ReadArgv(L, self, lua_gettop(L) - n + 1, "lock.leave");
    lua_pop(L, n);
    if (!lua_isnoneornil(L, 2)) {
      CheckTable(L, 2, "lock.leave: the options");
      lua_getfield(L, 2, "unless_expired");
      if (!lua_isnil(L, -1)) {
        conditional = true;
        unless_expired = CheckTime(L, -1, "lock.leave: unless_expired");
      }
      lua_pop(L, 1);
    }
  }
  bool ok = Guard(self, [&] {
    MarkSource(L, self);
    if (self->argv.empty()) {
      self->reply = self->client->LeaveCriticalSection();
      return;
    }
    std::vector<std::string> command;
    bool has_clock = false;
    for (const world::Value& v : self->argv) has_clock |= v.is_clock();
    if (has_clock) throw std::runtime_error("lock.leave: a release command cannot read the clock");
    for (const world::Value& v : self->argv) command.push_back(v.literal());
    self->reply = self->client->LeaveCriticalSection(
        [command, conditional, unless_expired](world::Millis now) {
          return conditional && unless_expired < now ? std::vector<std::string>{} : command;
        });
  });
  if (!ok) return Failed(L);
  NewStep(self);
  PushReply(L, self->reply, false, false);  // a release's reply holds no time to read
  return 1;
}

int LockForget(lua_State* L) {
  LuaClient* self = Self(L);
  if (!Guard(self, [&] { self->client->ForgetLock(); })) return Failed(L);
  return 0;
}

int LockGiveUp(lua_State* L) {
  LuaClient* self = Self(L);
  if (!Guard(self, [&] {
        MarkSource(L, self);
        self->client->GiveUp();
      })) {
    return Failed(L);
  }
  return 0;
}

int LockWriteResource(lua_State* L) {
  const int64_t token = CheckInteger(L, 1, "lock.write_resource");
  LuaClient* self = Self(L);
  bool accepted = false;
  if (!Guard(self, [&] {
        MarkSource(L, self);
        accepted = self->client->WriteResource(token);
      })) {
    return Failed(L);
  }
  NewStep(self);
  lua_pushboolean(L, accepted);
  return 1;
}

int LockRandom(lua_State* L) {
  LuaClient* self = Self(L);
  uint64_t r = 0;
  if (!Guard(self, [&] { r = self->client->Random(); })) return Failed(L);
  lua_pushnumber(L, static_cast<lua_Number>(r >> 11));
  return 1;
}

int LockRandomToken(lua_State* L) {
  LuaClient* self = Self(L);
  char token[32];
  size_t n = 0;
  if (!Guard(self, [&] {
        std::string t = self->client->RandomToken();
        n = std::min(t.size(), sizeof token);
        std::memcpy(token, t.data(), n);
      })) {
    return Failed(L);
  }
  lua_pushlstring(L, token, n);
  return 1;
}

int LockForgetHistory(lua_State* L) {
  size_t label_size = 0;
  const char* label = CheckString(L, 1, &label_size, "lock.forget_history: the label");
  LuaClient* self = Self(L);
  self->live.clear();
  if (!lua_isnoneornil(L, 2)) {
    CheckTable(L, 2, "lock.forget_history: the live values");
    const int n = static_cast<int>(lua_objlen(L, 2));
    for (int i = 1; i <= n; ++i) {
      lua_rawgeti(L, 2, i);
      if (IsTimeAt(L, -1)) {
        BreakRule(L,
                  "lock.forget_history: a live value is a time: keep it among the live "
                  "times, the third argument");
      }
      self->live.push_back(CheckInteger(L, -1, "lock.forget_history: a live value"));
      lua_pop(L, 1);
    }
  }
  self->live_times.clear();
  if (!lua_isnoneornil(L, 3)) {
    CheckTable(L, 3, "lock.forget_history: the live times");
    const int n = static_cast<int>(lua_objlen(L, 3));
    for (int i = 1; i <= n; ++i) {
      lua_rawgeti(L, 3, i);
      self->live_times.push_back(CheckTime(L, -1, "lock.forget_history: a live time"));
      lua_pop(L, 1);
    }
  }
  if (!Guard(self, [&] {
        self->client->ForgetHistory(std::string_view(label, label_size), self->live,
                                    self->live_times);
        self->forgotten.assign(label, label_size);
      })) {
    return Failed(L);
  }
  ++self->epoch;
  if (!lua_isnoneornil(L, 3)) KeepTimes(L, 3);
  return 0;
}

// pcall that lets the end of a run, and the limits, through.

}  // namespace

void RegisterApi(lua_State* L) {
  luaL_newmetatable(L, kClockPlusType);
  lua_pop(L, 1);
  const luaL_Reg redis[] = {{"call", RedisCall},
                            {"pcall", RedisPcall},
                            {"call_on", RedisCallOn},
                            {"pcall_on", RedisPcallOn},
                            {nullptr, nullptr}};
  luaL_register(L, "redis", redis);
  lua_pop(L, 1);
  const luaL_Reg lock[] = {{"now", LockNow},
                           {"clock_plus", LockClockPlus},
                           {"sent_timestamp", LockSentTimestamp},
                           {"sleep", LockSleep},
                           {"draw", LockDraw},
                           {"because", LockBecause},
                           {"enter", LockEnter},
                           {"renew", LockRenew},
                           {"leave", LockLeave},
                           {"forget", LockForget},
                           {"give_up", LockGiveUp},
                           {"write_resource", LockWriteResource},
                           {"random", LockRandom},
                           {"random_token", LockRandomToken},
                           {"forget_history", LockForgetHistory},
                           {nullptr, nullptr}};
  luaL_register(L, "lock", lock);
  lua_pop(L, 1);
  RegisterTime(L);
}

// pcall that lets the end of a run, and the limits, through.
int SafePcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (status != 0) world::ForgetUnwoundFrames();  // Lua's longjmp left them
  if (status != 0 && Unwinding(Self(L))) return lua_error(L);
  lua_pushboolean(L, status == 0);
  lua_insert(L, 1);
  return lua_gettop(L);
}

}  // namespace lockstep::algo::lua
