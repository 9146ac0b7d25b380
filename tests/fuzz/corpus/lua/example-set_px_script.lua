-- SET key token NX PX ttl, released by the compare-and-delete script, in
-- Lua: the same steps as lockstep's built-in "set-px-script".
local s = lock.settings

local COMPARE_AND_DELETE = [[if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end]]

for round = 0, s.rounds - 1 do
  local token = lock.random_token()
  while true do
    lock.forget_history("acquire", {round})
    local reply = redis.pcall("SET", s.key, token, "NX", "PX", s.ttl)
    if type(reply) == "table" and reply.ok then break end  -- OK: ours
    -- nil: held by another; an error (a timeout): we cannot know; retry.
    lock.sleep(s.retry_delay)
  end
  lock.enter(lock.now() + s.ttl)
  if s.write_resource then lock.write_resource(0) end
  lock.leave()
  redis.pcall("EVAL", COMPARE_AND_DELETE, "1", s.key, token)
  lock.forget()
end
