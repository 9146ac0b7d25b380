// A lock written in Lua that never enters: a status reply is {ok = "OK"} in
// Lua, never the string, so it waits for ever. A SAFE of clients running it
// is vacuous.
#pragma once

namespace lockstep::testing {

inline constexpr const char* kNeverEntersLua = R"(local s = lock.settings
while true do
  local r = redis.call("SET", s.key, "x", "NX", "PX", s.ttl)
  if r == "OK" then break end
  lock.sleep(1)
end
lock.enter(lock.now() + s.ttl)
lock.leave({"DEL", s.key})
)";

}  // namespace lockstep::testing
