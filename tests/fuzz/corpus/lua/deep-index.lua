local t = setmetatable({}, {__index = function(t, k) return t[k + 1] end})
local _ = t[1]
