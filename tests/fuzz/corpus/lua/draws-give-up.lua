local s = lock.settings
local v = lock.draw(0, 2)
lock.sleep(v)
if v == 0 then
  lock.give_up()
  return
end
local r = redis.pcall("SET", s.key, lock.random_token(), "NX", "PX", s.ttl)
if type(r) == "table" and r.ok then
  lock.enter(lock.now() + s.ttl)
  lock.leave()
  lock.forget()
else
  lock.give_up()
end
