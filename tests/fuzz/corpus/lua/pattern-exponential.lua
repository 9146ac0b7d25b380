local _ = string.find(string.rep('a', 3000), string.rep('a-', 12) .. 'b')
