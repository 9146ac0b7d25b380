-- A lock over every master, taken as node-redlock 5.0.0-beta.2 takes it
-- (src/index.ts: acquire, _execute, ACQUIRE_SCRIPT, RELEASE_SCRIPT):
--  - one value for the whole acquisition, and its start read once, before
--    the first attempt;
--  - an attempt runs the acquire script on every instance: it sets the key
--    only if the key does not exist, so a key this client set in an
--    earlier attempt refuses it as much as another client's;
--  - a majority of votes is the lock, valid until start + ttl;
--  - otherwise, while retries remain, it waits retry_delay plus a jitter
--    of -jitter to jitter - 1 ticks (floor((2 random - 1) jitter), each as
--    likely; never below 0) and tries again, keeping the keys it set;
--  - after retry_count retries it releases what it set and gives up (the
--    library's ExecutionError).
local s = lock.settings
local jitter = lock.setting("jitter", 0)
local retry_count = lock.setting("retry_count", 3)
local acquire = "if redis.call('exists', KEYS[1]) == 1 then return 0 end "
  .. "redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1"
local release = "if redis.call('get', KEYS[1]) == ARGV[1] then "
  .. "redis.call('del', KEYS[1]) return 1 end return 0"

local function release_all(token)
  for i = 1, s.instances do redis.pcall_on(i, "EVAL", release, "1", s.key, token) end
end

for round = 0, s.rounds - 1 do
  local token = lock.random_token()
  local start = lock.now()
  local locked = false
  for attempt = 0, retry_count do
    local votes = 0
    for i = 1, s.instances do
      if redis.pcall_on(i, "EVAL", acquire, "1", s.key, token, s.ttl) == 1 then
        votes = votes + 1
      end
    end
    if votes > s.instances / 2 then
      locked = true
      break
    end
    if attempt == retry_count then break end
    lock.because(votes .. " of " .. s.instances .. " voted for it: keep them and retry")
    local delay = s.retry_delay
    if jitter > 0 then delay = delay + lock.draw(-jitter, jitter - 1) end
    lock.sleep(math.max(0, delay))
  end
  if locked then
    lock.enter(start + s.ttl)
    lock.leave()
    release_all(token)
    lock.forget()
  else
    lock.because("no majority within " .. retry_count .. " retries: release and give up")
    release_all(token)
    lock.give_up()
  end
end
