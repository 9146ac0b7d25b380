-- A lock of your own: SET key token NX PX ttl, released by GET, compare in
-- the client, DEL. Looks careful, is not: between the GET and the DEL the
-- client can stall past its TTL, another client takes the lock, and the
-- DEL removes that client's lock. The same steps as lockstep's built-in
-- "set-px-get-del".
--
-- redis.pcall returns an error reply (a lost request's timeout) as
-- {err = ...} instead of raising it: a GET without a reply is not "my
-- token", and a DEL without one is left to expire.
local s = lock.settings

for round = 0, s.rounds - 1 do
  local token = lock.random_token()
  while true do
    lock.forget_history("acquire", {round})
    local reply = redis.pcall("SET", s.key, token, "NX", "PX", s.ttl)
    if type(reply) == "table" and reply.ok then break end
    lock.sleep(s.retry_delay)
  end
  lock.enter(lock.now() + s.ttl)
  if s.write_resource then lock.write_resource(0) end
  lock.leave()
  if redis.pcall("GET", s.key) == token then  -- still ours?
    redis.pcall("DEL", s.key)                 -- ...not necessarily any more
  end
  lock.forget()
end
