redis.pcall('FLUSHALL')
redis.pcall('SELECT', '3')
redis.call('SET', 'lock.foo\143\143\143', 'x\255')
redis.call('GET', 'lock.foo\143\143\143')
