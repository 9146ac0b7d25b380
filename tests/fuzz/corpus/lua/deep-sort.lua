local function g(n) local t = {3, 1, 2} table.sort(t, function(a, b) g(n + 1) return a < b end) end
g(1)
