local t = {}
redis.call('SET', 'k', tostring(t) .. tostring(redis.call))
for k, v in pairs({a = 1, b = 2, [3] = 4}) do redis.call('SET', tostring(k), v) end
