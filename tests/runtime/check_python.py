#!/usr/bin/env python3
"""Python stacks of the py-* cores (docs/runtimes.md) against the runtime's own words.

Oracle 1, every case: the traceback faulthandler printed to stderr at the crash
(faulthandler.enable(all_threads=True) or -X faulthandler): "Current thread" is the thread the
signal went to, the other blocks are the other threads (faulthandler names them by pthread_t, not
tid, so they are matched as a multiset of stacks). Oracle 2, cores of the debug interpreter
python3.11d: gdb's py-bt (CPython's own python-gdb.py) for every thread, matched by tid.
Each comparison is frame for frame: (function, file, line).
Each release-interpreter case runs twice: with python3.11-dbg's debug files (layout "dwarf") and,
when a mount namespace can be had (root), with /usr/lib/debug hidden under a tmpfs: the stripped
interpreter alone, layout from the built-in table, GIL waiters from the futex they wait on.
Also: --runtime=off leaves the runtime out; the GIL holder is the crashing thread for a crash in
a C extension called from Python.
Usage: check_python.py CORETRIAGE CASES_TSV CORES_DIR
"""
import collections
import json
import os
import re
import subprocess
import sys

FRAME = re.compile(r'^  File "(.*)", line (\d+|\?\?\?) in (.*)$')
PYBT_FRAME = re.compile(r'^  File "(.*)", line (\d+), in (.*)$')
GDB_THREAD = re.compile(r"^Thread \d+ \(.*LWP (\d+)\)")


def faulthandler_stacks(stderr):
    """[(is_current, [(function, file, line)])] from faulthandler's output."""
    stacks, cur = [], None
    for line in stderr.splitlines():
        if re.match(r"^(Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):", line):
            cur = (line.startswith("Current"), [])
            stacks.append(cur)
        elif cur is not None and FRAME.match(line):
            path, ln, fn = FRAME.match(line).groups()
            cur[1].append((fn, path, None if ln == "???" else int(ln)))
        elif cur is not None and line.strip() == "<no Python frame>":
            pass
        elif cur is not None and not line.startswith("  "):
            cur = None
    return stacks


def pybt_stacks(exe, core):
    """{tid: [(function, file, line)]} from gdb's py-bt, or None when gdb cannot tell."""
    script = "/usr/share/gdb/auto-load/usr/bin/python3.11d-gdb.py"
    if not os.path.exists(script):
        return None
    out = subprocess.run(["gdb", "-batch", "-nx", "-q", "-ex", "source " + script, "-ex", "thread apply all py-bt",
                          exe, core], capture_output=True, text=True, timeout=300).stdout
    stacks, tid = {}, None
    for line in out.splitlines():
        m = GDB_THREAD.match(line)
        if m:
            tid = int(m.group(1))
            stacks[tid] = []
        elif tid is not None and PYBT_FRAME.match(line):
            path, ln, fn = PYBT_FRAME.match(line).groups()
            stacks[tid].append((fn, path, int(ln)))
    return stacks


def ours(thread):
    return [(f["function"], f["file"], f["line"]) for f in thread["frames"]]


def run_json(binary, d, *opts, hide_debug=False):
    cmd = [binary, "--format=json", *opts, os.path.join(d, "exe"), os.path.join(d, "core")]
    if hide_debug:
        cmd = ["unshare", "-m", "sh", "-c", 'mount -t tmpfs none /usr/lib/debug && exec "$@"', "sh", *cmd]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return json.loads(run.stdout) if run.stdout.startswith("{") else None


def can_hide_debug():
    return subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs none /usr/lib/debug"],
                          capture_output=True).returncode == 0


def main():
    binary, cases, cores = sys.argv[1:4]
    # scale-py-* (100 threads) only when made (scripts/make-cores --scale).
    names = [l.split("\t")[0] for l in open(cases) if l.startswith("py-") or
             (l.startswith("scale-py-") and os.path.exists(os.path.join(cores, l.split("\t")[0], "core")))]
    failures, checked, frames = [], 0, 0
    signatures = {}
    hide = can_hide_debug()
    if not hide:
        print("no mount namespace (not root?): the table layout without debug files is not checked")
    runs = [(n, False) for n in names] + [(n, True) for n in names if hide and not n.endswith("-d")]
    for name, hide_debug in runs:
        d = os.path.join(cores, name)
        if not os.path.exists(os.path.join(d, "core")):
            failures.append(f"{name}: no core (scripts/make-cores)")
            continue
        report = run_json(binary, d, hide_debug=hide_debug)
        if hide_debug:
            name += " (no debug files)"
        rt = report.get("runtime") if report else None
        if not rt or rt.get("language") != "python" or not rt.get("version", "").startswith("3.11."):
            failures.append(f"{name}: no Python 3.11 runtime in the report: {rt!r:.200}")
            continue
        if rt["layout"] != ("table" if hide_debug else "dwarf"):
            failures.append(f"{name}: layout {rt['layout']!r}")
        crashed = report["crash"].get("thread") if isinstance(report.get("crash"), dict) else None
        crashed = next((t["tid"] for t in report["threads"] if t.get("crashed")), crashed)
        by_tid = {t["tid"]: t for t in rt["threads"]}
        expected = faulthandler_stacks(open(os.path.join(d, "stderr"), errors="replace").read())
        if not expected:
            failures.append(f"{name}: faulthandler printed no traceback (stderr)")
            continue
        # Oracle 1: faulthandler.
        current = [s for is_cur, s in expected if is_cur]
        others = collections.Counter(tuple(s) for is_cur, s in expected if not is_cur)
        got_others = collections.Counter(tuple(ours(t)) for tid, t in by_tid.items() if tid != crashed)
        if len(current) != 1 or crashed not in by_tid or ours(by_tid[crashed]) != current[0]:
            failures.append(f"{name}: crashing thread {crashed}: ours {ours(by_tid[crashed]) if crashed in by_tid else None}"
                            f" != faulthandler's current thread {current}")
        if others != got_others:
            failures.append(f"{name}: other threads differ from faulthandler's:\n  missing {others - got_others}\n"
                            f"  extra {got_others - others}")
        frames += sum(len(s) for _, s in expected)
        # The GIL: a crash under Python holds it; a thread asleep or blocked on a lock released it.
        gil = {tid: t["gil"] for tid, t in by_tid.items()}
        if report["signal"] and report["signal"].get("name") == "SIGSEGV" and gil.get(crashed) != "held":
            failures.append(f"{name}: the crashing thread {crashed} does not hold the GIL: {gil}")
        if any(g == "held" for tid, g in gil.items() if tid != crashed):
            failures.append(f"{name}: a thread other than the crashing one holds the GIL: {gil}")
        # py_gil.py: the threads spinning in pure Python wait for the GIL the crashing thread holds,
        # or one has just dropped it and waits in drop_gil for the switch (FORCE_SWITCHING): "released".
        spinning = [tid for tid, t in by_tid.items() if t["frames"] and t["frames"][0]["function"] == "spin"]
        if name.startswith("py-gil") and (len(spinning) != 4 or any(gil[tid] not in ("waiting", "released") for tid in spinning)
                                          or sum(gil[tid] == "waiting" for tid in spinning) < 3):
            failures.append(f"{name}: the 4 spinning threads do not all wait for the GIL: {gil}")
        # Oracle 2: gdb's py-bt on the debug interpreter, by tid.
        if name.endswith("-d") and not hide_debug:
            pybt = pybt_stacks(os.path.join(d, "exe"), os.path.join(d, "core"))
            if pybt is None:
                print(f"{name}: python3.11d-gdb.py not installed: py-bt not compared")
            else:
                for tid, stack in pybt.items():
                    if tid not in by_tid or ours(by_tid[tid]) != stack:
                        failures.append(f"{name}: thread {tid}: ours {ours(by_tid[tid]) if tid in by_tid else None}"
                                        f" != py-bt {stack}")
                if set(pybt) != set(by_tid):
                    failures.append(f"{name}: threads {sorted(by_tid)} != py-bt's {sorted(pybt)}")
        # Signature version 3: the innermost Python frame outside the standard library, named as
        # faulthandler printed it for the crashing thread (the oracle), is the key's last part.
        own = [f for f in current[0] if "/lib/python3." not in f[1] and not f[1].startswith("<")] if current else []
        part = "|py:%s@%s" % (own[0][0], os.path.basename(own[0][1])) if own else None
        sig = report.get("signature") or {}
        if not hide_debug:
            signatures[name] = sig
        if sig.get("version") != 3 or not part or not sig.get("text", "").endswith(part):
            failures.append(f"{name}: signature {sig} does not end with faulthandler's frame {part}")
        # --runtime=off: no runtime section.
        if (run_json(binary, d, "--runtime=off") or {}).get("runtime") is not None:
            failures.append(f"{name}: --runtime=off still reports a runtime")
        checked += 1
    # py-ctypes and py-gil crash in the same C function (string_at → strlen) with the same native
    # frames, under different Python callers (read_header, main): two signatures. The same caller
    # crashing twice (the release and the debug interpreter's core) is one.
    native = lambda n: signatures[n]["text"].rsplit("|py:", 1)[0]
    pairs = [("py-ctypes", "py-gil", False), ("py-ctypes", "py-ctypes-d", True), ("py-gil", "py-gil-d", True)]
    for a, b, same in pairs:
        if a not in signatures or b not in signatures:
            failures.append(f"signature: {a} or {b} not checked")
        elif (signatures[a]["hash"] == signatures[b]["hash"]) != same or (not same and native(a) != native(b)):
            failures.append(f"signature: {a} {signatures[a]} and {b} {signatures[b]}: want "
                            f"{'one' if same else 'two (same native frames)'}")
    print(f"signatures: {len(pairs)} pairs compared")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} cases, {frames} faulthandler frames compared, {len(failures)} failures")
    sys.exit(1 if failures or not checked else 0)


main()
