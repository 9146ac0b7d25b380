--eval
local t = {} for i = 1, 100 do t[#t + 1] = string.rep('x', i) end return #table.concat(t)
