local t = {[{}] = 1}
for k in pairs(t) do end
