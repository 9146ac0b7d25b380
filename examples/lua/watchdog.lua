-- A worker that holds the lock across several jobs and keeps its lease
-- alive with a watchdog, as Redisson does, run in the worker itself: it
-- takes the lock with SET NX PX, renews the lease after each job's work,
-- waits for the next job while still holding the lock, and renews again
-- before starting it. The setting "renew" chooses how a lease is renewed:
--   "script" (the default): a compare-and-extend script extends the lease
--     only while the value is still this worker's token;
--   "pexpire": a plain PEXPIRE extends whatever lock is there.
-- Own settings: jobs (default 2), work and gap (ticks a job runs and the
-- wait between two jobs; default 2 each).
local s = lock.settings
local jobs = lock.setting("jobs", 2)
local work = lock.setting("work", 2)
local gap = lock.setting("gap", 2)

local COMPARE_AND_EXTEND = [[if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end]]
local COMPARE_AND_DELETE = [[if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end]]

local valid  -- when this worker's lease runs out, on its own clock

-- Sleeps n ticks, or less: a watchdog wakes before its lease runs out.
local function sleep_within_lease(n)
  lock.sleep(math.min(n, valid - lock.now()))
end

-- One renewal: true if the lease now runs a ttl from this step's clock.
local function renew(token)
  local reply
  if lock.setting("renew", "script") == "pexpire" then
    reply = redis.pcall("PEXPIRE", s.key, s.ttl)
  else
    reply = redis.pcall("EVAL", COMPARE_AND_EXTEND, "1", s.key, token, s.ttl)
  end
  -- 0: the lock is not ours any more (or, for PEXPIRE, not there at all);
  -- an error (a timeout): we cannot know, so we must assume it is lost.
  if reply ~= 1 then return false end
  valid = lock.now() + s.ttl
  lock.renew(valid)
  return true
end

for round = 0, s.rounds - 1 do
  local token = lock.random_token()
  while true do
    lock.forget_history("acquire", {round})
    local reply = redis.pcall("SET", s.key, token, "NX", "PX", s.ttl)
    if type(reply) == "table" and reply.ok then break end
    lock.sleep(s.retry_delay)
  end
  valid = lock.now() + s.ttl
  lock.enter(valid)
  local held = true
  for job = 1, jobs do
    lock.forget_history("job", {round, job}, {valid})
    if job > 1 then
      sleep_within_lease(gap)  -- waiting for the next job, holding the lock outside the critical section
      if not renew(token) then
        held = false
        break
      end
      lock.enter(valid)
    end
    sleep_within_lease(work)  -- the job's work, inside the critical section
    held = renew(token)
    lock.leave()
    if not held then break end
  end
  if held then redis.pcall("EVAL", COMPARE_AND_DELETE, "1", s.key, token) end
  lock.forget()
end
