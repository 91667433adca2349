#!/usr/bin/env python3
"""Real cores of Debian's lua5.4, whose debug package (liblua5.4-0-dbg) is built with dwz: names and
types in /usr/lib/debug/.dwz/x86_64-linux-gnu/lua5.4.debug, reached through DW_FORM_GNU_strp_alt
and DW_FORM_GNU_ref_alt, shared DIEs in partial units (issue 21).

usage: check_debian.py --coretriage BIN --diewalk BIN

Each Lua script below runs real work (table.sort calling back into a Lua comparator, gsub with a
Lua callback, deep Lua recursion through pcall and string.format, coroutines) and is killed in the
middle of it. The crashing thread's frames of each core (function names, inline structure and
file:line) must be gdb 13's (tests/oracle/compare_gdb.py) and carry eu-stack's names; with the
decompressed-debug cache on and off. A program of ours (tests/dwz/src/embed_lua.c) runs Lua in
liblua5.4.so.0, whose debug file uses the other shared file, with callbacks into the program. ct_diewalk then walks every DIE of lua5.4's debug file (and
liblua5.4.so.0's when present) against libdw. Exit 0 all agree, 1 a difference, 77 when lua5.4, its
-dbg package, gdb or eu-stack is missing or the kernel writes cores elsewhere.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, errors="replace",
                         check=False).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    return None


def debug_file(path):
    bid = build_id(path)
    return f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug" if bid else None


def altlink(debug):
    out = subprocess.run(["readelf", "-p", ".gnu_debugaltlink", debug], capture_output=True, text=True,
                         errors="replace", check=False).stdout
    for line in out.splitlines():
        if "[     0]" in line:
            return line.split("]", 1)[1].strip()
    return None


def named_core(a, argv, exe, tmp, cores, case, sig, after):
    """A core of @argv killed by @sig after @after s, laid out as CORES/@case. A kill that lands on a
    PLT stub gives a frame #0 that is ?? here and "name@plt" in gdb (coretriage does not name PLT
    stubs, a gap outside dwz that compare_gdb.py does not accept): such a core is made again, up to
    5 times."""
    for attempt in range(5):
        core = dwzcores.kill_core(argv, tmp, sig, after + 0.1 * attempt)
        d = dwzcores.make_case(cores, case, exe, core)
        _, frames = dwzcores.our_frames(a.coretriage, os.path.join(d, "exe"), os.path.join(d, "core"),
                                        ["--no-cache"])
        if frames and frames[0].get("function"):
            break
    return d


def embedded(a, tmp, cores, cache):
    """A program of ours running Lua in liblua5.4.so.0 (the other shared file, liblua5.4-0.debug),
    with C callbacks from the library into the program, killed in table.sort."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "lua5.4"], capture_output=True, text=True,
                           check=False)
    if flags.returncode != 0 or not os.path.exists(LIBLUA) or not altlink(debug_file(LIBLUA) or "/"):
        print("SKIP lua-embedded: liblua5.4-dev or liblua5.4-0-dbg is not installed")
        return 0
    exe = os.path.join(tmp, "embed_lua")
    subprocess.run(["gcc", "-O2", "-g", "-o", exe, os.path.join(SRC, "embed_lua.c"), *flags.stdout.split()],
                   check=True)
    failures = 0
    d = named_core(a, [exe], exe, tmp, cores, "lua-embedded", signal.SIGSEGV, 1.0)
    for label, args in (("lua-embedded", ["--no-cache"]), ("lua-embedded (cache)", ["--cache-dir", cache])):
        rc, lines = dwzcores.compare_gdb_case(a.coretriage, cores, "lua-embedded", args)
        failures += rc
        print("\n".join(lines).replace("lua-embedded:", f"{label}:", 1), flush=True)
        report, frames = dwzcores.our_frames(a.coretriage, os.path.join(d, "exe"), os.path.join(d, "core"), args)
        rc, lines = dwzcores.compare_eu_stack(label, exe, os.path.join(d, "core"), frames)
        failures += rc
        print("\n".join(lines), flush=True)
        if not any(f.get("module", "").startswith("liblua5.4") and f.get("inlined") for f in frames):
            print(f"  FAIL {label}: no inlined frame in liblua5.4.so.0 (its origins are in the shared file)")
            failures += 1
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--diewalk", required=True)
    a = ap.parse_args()
    debug = debug_file(LUA) if os.path.exists(LUA) else None
    alt = altlink(debug) if debug and os.path.exists(debug) else None
    if not alt or not os.path.exists(alt):
        print("SKIP: lua5.4 with liblua5.4-0-dbg (a dwz-built debug package) is not installed")
        return dwzcores.SKIP
    if not shutil.which("gdb") or not shutil.which("eu-stack") or not dwzcores.core_pattern_ok():
        print("SKIP: gdb, eu-stack or a core_pattern writing into the working directory is missing")
        return dwzcores.SKIP
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ct-dwz-debian-") as tmp:
        cores = os.path.join(tmp, "cores")
        cache = os.path.join(tmp, "cache")
        for case, (sig, after, text) in SCRIPTS.items():
            script = os.path.join(tmp, f"{case}.lua")
            with open(script, "w") as f:
                f.write(text)
            d = named_core(a, [LUA, script], LUA, tmp, cores, f"lua-{case}", sig, after)
            for label, args in ((f"lua-{case}", ["--no-cache"]), (f"lua-{case} (cache)", ["--cache-dir", cache])):
                rc, lines = dwzcores.compare_gdb_case(a.coretriage, cores, f"lua-{case}", args)
                failures += rc
                print("\n".join(lines).replace(f"lua-{case}:", f"{label}:", 1), flush=True)
                report, frames = dwzcores.our_frames(a.coretriage, os.path.join(d, "exe"), os.path.join(d, "core"),
                                                     args)
                rc, lines = dwzcores.compare_eu_stack(label, LUA, os.path.join(d, "core"), frames)
                failures += rc
                print("\n".join(lines), flush=True)
                bad = [x for x in report.get("diagnostics") or [] if x.get("code") == "dwz-file-missing"]
                if bad:
                    print(f"  FAIL {label}: {bad[0].get('message')}")
                    failures += 1
        failures += embedded(a, tmp, cores, cache)
        walked = [LUA] + [p for p in (LIBLUA,) if os.path.exists(p)]
        for exe in walked:
            dbg = debug_file(exe)
            alt = altlink(dbg) if dbg and os.path.exists(dbg) else None
            if not alt:
                continue
            for extra in ([], ["--cache-dir", cache]):
                rc, lines = dwzcores.diewalk(a.diewalk, extra + [exe, dbg, alt])
                failures += rc
                print("\n".join(lines), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
