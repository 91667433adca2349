#!/usr/bin/env python3
"""Real cores of Debian programs whose -dbg packages are built with dwz: names and types in a shared
file under /usr/lib/debug/.dwz/, reached through DW_FORM_GNU_strp_alt and DW_FORM_GNU_ref_alt,
shared DIEs in partial units (issue 21). Two parts, each skipped when its packages are missing:
lua5.4 (liblua5.4-0-dbg, here) and binutils (binutils-x86-64-linux-gnu-dbg and libbinutils-dbg,
tests/dwz/debian_binutils.py).

usage: check_debian.py --coretriage BIN --diewalk BIN

Each Lua script below runs real work (table.sort calling back into a Lua comparator, gsub with a
Lua callback, deep Lua recursion through pcall and string.format, coroutines) and is killed in the
middle of it. The crashing thread's frames of each core (function names, inline structure and
file:line) must be gdb 13's (tests/oracle/compare_gdb.py) and carry eu-stack's names; with the
decompressed-debug cache on and off (dwzcores.compare_core). A program of ours
(tests/dwz/src/embed_lua.c) runs Lua in liblua5.4.so.0, whose debug file uses the other shared
file, with callbacks into the program. ct_diewalk then walks every DIE of lua5.4's debug file (and
liblua5.4.so.0's when present) against libdw. Exit 0 all agree, 1 a difference, 77 when neither
part's packages are installed, or gdb or eu-stack is missing, or the kernel writes cores elsewhere.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import debian_binutils  # noqa: E402
import dwzcores  # noqa: E402

LUA = "/usr/bin/lua5.4"
LIBLUA = "/usr/lib/x86_64-linux-gnu/liblua5.4.so.0"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
SCRIPTS = {
    "sort": (signal.SIGSEGV, 1.0, """
local function deep(n, t)
  if n == 0 then table.sort(t, function(a, b) return a < b end) return #t end
  return deep(n - 1, t) + 0
end
while true do
  local t = {}
  for i = 1, 2000 do t[i] = (i * 7919) % 2003 end
  deep(150, t)
  local s = string.rep("ab", 1000):gsub("a", function(c) return c:upper() end)
end
"""),
    "recursion": (signal.SIGABRT, 1.2, """
local function rec(n)
  if n == 0 then
    local s = 0
    for i = 1, 200 do s = s + #string.format("%d:%s", i, tostring(i * 1.5)) end
    return s
  end
  return rec(n - 1) + 1
end
while true do pcall(rec, 180) end
"""),
    "coroutine": (signal.SIGQUIT, 0.8, """
local co = coroutine.wrap(function()
  while true do
    local t = {}
    for i = 1, 500 do t[i] = string.rep("x", i % 17) end
    coroutine.yield(table.concat(t, ","))
  end
end)
while true do local s = co(); s = s:gsub("x+", string.upper) end
"""),
}


def embedded(a, tmp, cores, cache):
    """A program of ours running Lua in liblua5.4.so.0 (the other shared file, liblua5.4-0.debug),
    with C callbacks from the library into the program, killed in table.sort."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "lua5.4"], capture_output=True, text=True,
                           check=False)
    if flags.returncode != 0 or not dwzcores.installed_alt(LIBLUA):
        print("SKIP lua-embedded: liblua5.4-dev or liblua5.4-0-dbg is not installed")
        return 0
    exe = os.path.join(tmp, "embed_lua")
    subprocess.run(["gcc", "-O2", "-g", "-o", exe, os.path.join(SRC, "embed_lua.c"), *flags.stdout.split()],
                   check=True)
    dwzcores.named_core(a.coretriage, [exe], exe, tmp, cores, "lua-embedded", signal.SIGSEGV, 1.0)
    failures, frames = dwzcores.compare_core(a.coretriage, cores, "lua-embedded", cache)
    if not any(f.get("module", "").startswith("liblua5.4") and f.get("inlined") for f in frames):
        print("  FAIL lua-embedded: no inlined frame in liblua5.4.so.0 (its origins are in the shared file)")
        failures += 1
    return failures


def lua(a, tmp, cores, cache):
    """The Lua scripts' cores, the embedded program's and ct_diewalk over lua5.4's debug files;
    None when lua5.4 or liblua5.4-0-dbg is not installed."""
    if not dwzcores.installed_alt(LUA):
        print("SKIP lua: lua5.4 with liblua5.4-0-dbg (a dwz-built debug package) is not installed")
        return None
    failures = 0
    for case, (sig, after, text) in SCRIPTS.items():
        script = os.path.join(tmp, f"{case}.lua")
        with open(script, "w") as f:
            f.write(text)
        dwzcores.named_core(a.coretriage, [LUA, script], LUA, tmp, cores, f"lua-{case}", sig, after)
        failures += dwzcores.compare_core(a.coretriage, cores, f"lua-{case}", cache)[0]
    failures += embedded(a, tmp, cores, cache)
    return failures + dwzcores.diewalk_all(a.diewalk, [LUA, LIBLUA], cache)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--diewalk", required=True)
    a = ap.parse_args()
    if not shutil.which("gdb") or not shutil.which("eu-stack") or not dwzcores.core_pattern_ok():
        print("SKIP: gdb, eu-stack or a core_pattern writing into the working directory is missing")
        return dwzcores.SKIP
    with tempfile.TemporaryDirectory(prefix="ct-dwz-debian-") as tmp:
        cores = os.path.join(tmp, "cores")
        cache = os.path.join(tmp, "cache")
        results = [part(a, tmp, cores, cache) for part in (lua, debian_binutils.run)]
    if all(r is None for r in results):
        return dwzcores.SKIP
    return 1 if any(results) else 0


if __name__ == "__main__":
    sys.exit(main())
