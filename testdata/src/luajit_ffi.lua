-- A NULL read through LuaJIT's FFI in JIT-compiled code (issue 21): read_slot becomes hot reading a
-- real buffer, is compiled, and then reads through ffi.cast("int*", 0). The fault is in a trace, code
-- in an anonymous executable mapping with no ELF module: that frame is blamed.
-- With the argument "perfmap" the script first writes /tmp/perf-PID.map as LuaJIT's -jperf does
-- (lj_trace.c perftools_addtrace: "%lx %x TRACE_%d::%s:%d"), from the trace events of jit.attach,
-- since Debian's luajit is built without LUAJIT_USE_PERFTOOLS.
local ffi = require("ffi")
ffi.cdef("int getpid(void);")

if arg[1] == "perfmap" then
  local util = require("jit.util")
  local map = assert(io.open(string.format("/tmp/perf-%d.map", ffi.C.getpid()), "w"))
  local starts = {}
  jit.attach(function(what, tr, func, pc)
    if what == "start" then
      starts[tr] = util.funcinfo(func, pc)
    elseif what == "stop" then
      local mcode, addr = util.tracemc(tr)
      local info = starts[tr] or {}
      local src = (info.source or "?"):gsub("^@", "")
      map:write(string.format("%x %x TRACE_%d::%s:%d\n", addr, #mcode, tr, src, info.currentline or 0))
      map:flush()
    end
  end, "trace")
end

local function read_slot(p, i)
  return p[i]
end

local sum = 0
for i = 1, 200 do
  local buf = ffi.new("int[4]", { 1, 2, 3, 4 })
  sum = sum + read_slot(ffi.cast("int*", buf), i % 4)
end
local null = ffi.cast("int*", 0)
for _ = 1, 100 do
  sum = sum + read_slot(null, 0)
end
print(sum)
