-- A lock over every master, retried as node-redlock 4.2.0 retries: SET NX
-- PX on each instance; a majority holds the lock; otherwise (a split vote)
-- it unlocks every instance and waits retry_delay ticks plus a random
-- jitter of 0 to `jitter` ticks before it tries again. Its retries are
-- never counted out: the question is whether some client ever gets in.
local s = lock.settings
local jitter = lock.setting("jitter", 0)
local unlock = "if redis.call('get', KEYS[1]) == ARGV[1] then "
  .. "return redis.call('del', KEYS[1]) else return 0 end"

for round = 0, s.rounds - 1 do
  local token = lock.random_token()
  while true do
    lock.forget_history("acquire", {round})
    local locked = 0
    for i = 1, s.instances do
      local r = redis.pcall_on(i, "SET", s.key, token, "NX", "PX", s.ttl)
      if type(r) == "table" and r.ok then locked = locked + 1 end
    end
    if locked > s.instances / 2 then break end
    lock.because(locked .. " of " .. s.instances .. " locked: unlock them all and back off")
    for i = 1, s.instances do redis.pcall_on(i, "EVAL", unlock, "1", s.key, token) end
    lock.forget_history("back off", {round})
    lock.sleep(s.retry_delay + lock.draw(0, jitter))
  end
  lock.enter(lock.now() + s.ttl)
  lock.leave()
  for i = 1, s.instances do redis.pcall_on(i, "EVAL", unlock, "1", s.key, token) end
  lock.forget()
end
