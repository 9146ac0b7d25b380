for w in string.gmatch('one two three', '%a+') do redis.call('RPUSH', 'words', w) end
local s, n = string.gsub('hello world', '(%w+)', '<%1>')
redis.call('SET', 'k', s .. n)
local a, b = string.find('key:42', '^(%a+):(%d+)$')
redis.call('SET', 'm', tostring(a) .. tostring(b))
