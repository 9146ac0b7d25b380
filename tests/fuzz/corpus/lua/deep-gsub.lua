local function f(s) return (string.gsub(s, '.', function(c) return f(c) end)) end
f('ab')
