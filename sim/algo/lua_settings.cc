// lock.settings: the values the scenario gives, and no others. A name it
// does not declare (a typo, `settings.wrok`) would read nil and fail later
// as arithmetic on nil, far from the cause: it is an error naming it. An
// optional setting of the algorithm's own is read with a default,
// lock.setting(name, default).
#include <string>

#include "sim/algo/lua_client.h"

namespace lockstep::algo::lua {
namespace {

// __index of lock.settings, with the declared names (a table name -> true)
// and their list as upvalues: only names given as null reach it declared.
int UndeclaredSetting(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (lua_toboolean(L, -1)) {
    lua_pushnil(L);  // declared, as null
    return 1;
  }
  const char* list = lua_tostring(L, lua_upvalueindex(2));
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char* name = lua_tostring(L, 2);
    lua_pushfstring(L,
                    "lock.settings.%s: no such setting (the scenario gives %s); an optional "
                    "setting of the algorithm's own is read as lock.setting(\"%s\", default)",
                    name, list, name);
  } else {
    lua_pushfstring(L, "lock.settings[%s]: no such setting (the scenario gives %s)",
                    luaL_typename(L, 2), list);
  }
  return BreakRule(L, lua_tostring(L, -1));
}

// lock.setting(name, default): the setting, or `default` if the scenario
// does not give it. Upvalue 1: lock.settings.
int LockSetting(lua_State* L) {
  size_t length = 0;
  CheckString(L, 1, &length, "lock.setting's name");
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  lua_rawget(L, lua_upvalueindex(1));
  if (lua_isnil(L, -1)) lua_pushvalue(L, 2);
  return 1;
}

}  // namespace

void ProtectSettings(lua_State* L, const nlohmann::json& settings) {
  const int table = lua_gettop(L);
  lua_newtable(L);  // the metatable
  lua_newtable(L);  // declared names
  std::string list;
  for (auto it = settings.begin(); it != settings.end(); ++it) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, it.key().c_str());
    list += (list.empty() ? "" : ", ") + it.key();
  }
  if (list.empty()) list = "none";
  lua_pushlstring(L, list.data(), list.size());
  lua_pushcclosure(L, UndeclaredSetting, 2);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, table);
  // lock.setting, beside lock.settings in the lock table below it.
  lua_pushvalue(L, table);
  lua_pushcclosure(L, LockSetting, 1);
  lua_setfield(L, table - 1, "setting");
}

}  // namespace lockstep::algo::lua
