-- A lock of your own: SET key token NX PX ttl, released by GET, compare in
-- the client, DEL. Looks careful, is not: between the GET and the DEL the
-- client can stall past its TTL, another client takes the lock, and the
-- DEL removes that client's lock.
local s = lock.settings

local token = lock.random_token()
while true do
  local reply = redis.pcall("SET", s.key, token, "NX", "PX", s.ttl)
  if type(reply) == "table" and reply.ok then break end
  lock.sleep(s.retry_delay)
end
lock.enter(lock.now() + s.ttl)
lock.leave()
if redis.call("GET", zs.key) == token then  -- still ours?
  redis.call("DEL", s.key)                 -- ...not necessarily any more
end
lock.forget()
