-- A lock over every master, taken as node-redlock 4.2.0 takes it
-- (redlock.js: Redlock.prototype._lock, lockScript, unlockScript):
--  - one value for the whole acquisition; each attempt reads its start;
--  - an attempt runs the lock script on every instance (it sets the key
--    only if the key does not exist);
--  - a majority of votes, with the lock still valid (start + ttl - drift
--    later than now), is the lock;
--  - otherwise it unlocks every instance (the unlock script deletes the key
--    only if it holds its value) and, while retries remain (retry_count;
--    -1, the default here, retries for ever), waits retry_delay plus a
--    jitter of -jitter to jitter - 1 ticks (floor((2 random - 1) jitter),
--    each as likely; never below 0) before it tries again;
--  - out of retries, it gives up (the library's LockError).
-- drift stands for Math.round(driftFactor * ttl) + 2 in ticks (default 0).
local s = lock.settings
local jitter = lock.setting("jitter", 0)
local retry_count = lock.setting("retry_count", -1)
local drift = lock.setting("drift", 0)
local acquire = "if redis.call('exists', KEYS[1]) == 1 then return 0 end "
  .. "redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1"
local unlock = "if redis.call('get', KEYS[1]) == ARGV[1] then "
  .. "redis.call('del', KEYS[1]) return 1 end return 0"

local function unlock_all(token)
  for i = 1, s.instances do redis.pcall_on(i, "EVAL", unlock, "1", s.key, token) end
end

for round = 0, s.rounds - 1 do
  local token = lock.random_token()
  local attempts = 0
  local locked_until = nil
  while true do
    -- Retrying for ever, the count of attempts decides nothing.
    lock.forget_history("acquire", {round, retry_count == -1 and 0 or attempts})
    attempts = attempts + 1
    local start = lock.now()
    local votes = 0
    for i = 1, s.instances do
      if redis.pcall_on(i, "EVAL", acquire, "1", s.key, token, s.ttl) == 1 then
        votes = votes + 1
      end
    end
    if votes > s.instances / 2 and start + s.ttl - drift > lock.now() then
      locked_until = start + s.ttl - drift
      break
    end
    lock.because(votes .. " of " .. s.instances .. " voted for it: unlock them all")
    unlock_all(token)
    if retry_count ~= -1 and attempts > retry_count then break end
    lock.forget_history("back off", {round, retry_count == -1 and 0 or attempts})
    local delay = s.retry_delay
    if jitter > 0 then delay = delay + lock.draw(-jitter, jitter - 1) end
    lock.sleep(math.max(0, delay))
  end
  if locked_until then
    lock.enter(locked_until)
    lock.leave()
    unlock_all(token)
    lock.forget()
  else
    lock.because("out of retries: give up")
    lock.give_up()
  end
end
