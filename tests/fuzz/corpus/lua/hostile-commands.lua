redis.pcall('FLUSHALL')
redis.pcall('SELECT', '3')
redis.pcall('EVAL', "redis.call('FLUSHALL')", '0')
redis.call('SET', 'lock.foo', 'x')
