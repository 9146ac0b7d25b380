-- The SETNX documentation's lock with the GETSET takeover (the documented
-- fix), in Lua: the same steps as lockstep's built-in "setnx-getset".
--
--   SETNX lock.foo <now + timeout + 1>; on 0, GET it; if it has expired,
--   GETSET lock.foo <now + timeout + 1>, and own the lock iff the old value
--   returned is still an expired timestamp. Release: DEL, unless our own
--   timestamp has expired (then another client may hold the lock).
--
-- Replies come as EVAL gives them to a script: redis.pcall returns an
-- error reply (a lost request's timeout) as {err = ...} instead of raising.
local s = lock.settings

-- The lock value as a timestamp, or nil if it is none. With "relative_time"
-- a value written as a time comes as one (lock.is_time); an integer that is
-- not one would then fail to compare with lock.now(), as it should.
local function timestamp(value)
  if lock.is_time(value) then return value end
  if type(value) == "string" and value:match("^%-?%d+$") then return tonumber(value) end
  return nil
end

local function expired(stamp, now) return stamp < now end

-- Takes the lock; returns the timestamp this client wrote.
local function acquire(round)
  local stamp = lock.clock_plus(s.timeout + 1)
  while true do
    -- Each retry starts afresh: only the round matters from here.
    lock.forget_history("acquire", {round})
    if redis.pcall("SETNX", s.key, stamp) == 1 then return lock.sent_timestamp() end
    local seen = redis.pcall("GET", s.key)
    if seen and type(seen) ~= "table" then  -- else released meanwhile, or no reply: retry
      local seen_stamp = timestamp(seen)
      if not seen_stamp or not expired(seen_stamp, lock.now()) then
        lock.sleep(s.retry_delay)  -- held: sleep, then retry from the start
      else
        lock.forget_history("take over", {round})
        local old = redis.pcall("GETSET", s.key, stamp)
        local old_stamp = timestamp(old)
        if old_stamp and expired(old_stamp, lock.now()) then return lock.sent_timestamp() end
        -- Another client was faster: retry from the first step.
      end
    end
  end
end

local function release(mine)
  if s.release_with_leave then
    lock.leave({"DEL", s.key}, {unless_expired = mine})
  else
    lock.leave()
    if not expired(mine, lock.now()) then redis.pcall("DEL", s.key) end
  end
  lock.forget()
end

for round = 0, s.rounds - 1 do
  local mine = acquire(round)
  lock.forget_history("hold", {round}, {mine})
  lock.enter(mine)
  if s.write_resource then lock.write_resource(0) end
  release(mine)
end
