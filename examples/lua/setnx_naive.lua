-- The SETNX documentation's lock with the naive takeover the documentation
-- warns about, in Lua: the same steps as lockstep's built-in "setnx-naive".
--
--   SETNX lock.foo <now + timeout + 1>; on 0, GET it; if it has expired,
--   DEL it, then SETNX again. Two clients can both see it expired, both DEL
--   and both SETNX successfully: both hold the lock.
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
    lock.forget_history("acquire", {round})
    if redis.pcall("SETNX", s.key, stamp) == 1 then return lock.sent_timestamp() end
    local seen = redis.pcall("GET", s.key)
    if seen and type(seen) ~= "table" then  -- else released meanwhile, or no reply: retry
      local seen_stamp = timestamp(seen)
      if not seen_stamp or not expired(seen_stamp, lock.now()) then
        lock.because(seen .. " has not expired: sleep and retry")
        lock.sleep(s.retry_delay)
      else
        lock.because(seen .. " has expired: take it over with DEL, then SETNX")
        lock.forget_history("take over", {round})
        -- The race: another client can DEL and SETNX between these two.
        redis.pcall("DEL", s.key)
        if redis.pcall("SETNX", s.key, stamp) == 1 then return lock.sent_timestamp() end
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
