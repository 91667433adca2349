#!/usr/bin/env python3
"""Goroutines of the go-* cores (docs/runtimes.md "Go") against the Go runtime's own traceback.

Oracle: what the program printed to stderr when it died with GOTRACEBACK=crash (the runtime's
own traceback of every goroutine: `goroutine N [status]:`, each frame's function and file:line,
`created by F` and its file:line). For every goroutine the oracle prints, ours must have the same
id, the same status or wait reason, the same frames (function, file, line, inlined or not) and
the same creating frame; the panicking goroutine is first and marked crashed. Go prints at most
100 frames per goroutine: deeper stacks are compared on those. A goroutine Go printed as running
on another thread ("stack unavailable") must be running in ours. The goroutine count must agree
(the oracle's goroutines are every one that is not dead). The stripped cases (-ldflags=-s) must
give the same goroutines as the oracle with layout "table" and found_by "search", and their
crashed thread's native backtrace (unwound and named from the pclntab: no symbols, no CFI) must
equal the same program's unstripped core's frame for frame (function, file, line, inlined; gdb
prints `??` for a stripped Go binary, so the unstripped build is the oracle there). A thread the
runtime parked in runtime.futexsleep is a `go-runtime` wait, and no Go core has an unknown lock in
its Waiting section. Also
--runtime=off drops the section. Second oracle, when installed (Debian's delve): `dlv core`'s
`goroutines -t`: the same ids, states and function names.
Usage: check_go.py CORETRIAGE CASES_TSV CORES_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

HEAD = re.compile(r"^goroutine (\d+) \[([^\]]*)\]:$")
PLACE = re.compile(r"^\t(.*):(\d+)(?: \+0x[0-9a-f]+)?(?: fp=.*)?$")
CALL = re.compile(r"^(\S.*)\((.*)\)$")


def oracle(stderr):
    """{goid: {"state", "frames": [(function, file, line, inlined)], "created_by", "unavailable"}}."""
    gs, cur, pending = {}, None, None
    for line in stderr.splitlines():
        m = HEAD.match(line)
        if m:
            cur = {"state": m.group(2), "frames": [], "created_by": None, "unavailable": False}
            gs[int(m.group(1))] = cur
            pending = None
            continue
        if cur is None:
            continue
        if line == "":
            cur = None
            continue
        if "goroutine running on other thread; stack unavailable" in line:
            cur["unavailable"] = True
            continue
        p = PLACE.match(line)
        if p and pending is not None:
            kind, fn, inl = pending
            entry = (fn, p.group(1), int(p.group(2)), inl)
            if kind == "frame":
                cur["frames"].append(entry)
            else:
                cur["created_by"] = entry[:3]
            pending = None
            continue
        if line.startswith("created by "):
            pending = ("created", line[len("created by "):].split(" in goroutine")[0], False)
            continue
        if line.startswith("...additional frames elided..."):
            cur["elided"] = True
            continue
        c = CALL.match(line)
        if c:
            fn = c.group(1)
            pending = ("frame", "runtime.gopanic" if fn == "panic" else fn, c.group(2) == "...")
    return gs


def state_of(g):
    """The bracket Go prints: the wait reason when waiting, else the status (+ locked to thread)."""
    s = g["wait"] or g["status"]
    return s + (", locked to thread" if g["locked_to_thread"] else "")


def ours(report):
    """{goid: goroutine}, with its frames as the oracle's tuples, and the order of ids."""
    out, order = {}, []
    for grp in report["runtime"]["goroutines"]:
        for gid in grp["ids"]:
            out[gid] = grp
            order.append(gid)
    return out, order


DLV_HEAD = re.compile(r"^[ *] Goroutine (\d+) - .*?(?: \[([^\]]*)\])?$")
DLV_FRAME = re.compile(r"^\t\s*\d+\s+0x[0-9a-f]+ in (\S+)$")


def delve(d):
    """{goid: (state or None, [function])} from delve's `goroutines -t 200`, or None without delve."""
    if not shutil.which("dlv"):
        return None
    run = subprocess.run(["dlv", "core", os.path.join(d, "exe"), os.path.join(d, "core"),
                          "--allow-non-terminal-interactive=true"], input="goroutines -t 200\n",
                         capture_output=True, text=True, timeout=300)
    gs, cur = {}, None
    for line in run.stdout.splitlines():
        m = DLV_HEAD.match(line.replace("(dlv) ", ""))
        if m:
            cur = (m.group(2), [])
            gs[int(m.group(1))] = cur
        elif cur is not None and DLV_FRAME.match(line):
            cur[1].append(DLV_FRAME.match(line).group(1))
    return gs


def check_delve(name, got, d):
    """Delve (the Go debugger) as a second oracle: ids, states, function names. Delve looks up the
    innermost frame's line at the pc itself (the runtime at the call), so lines are not compared;
    for the crashed goroutine delve's frames after the signal return (runtime.sigreturn) must be
    ours in order."""
    want = delve(d)
    if want is None:
        return [], False
    errors = []
    if set(want) != set(got):
        errors.append("%s: delve's goroutine ids differ: only delve's %s, only ours %s" % (
            name, sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10]))
    for gid, (state, fns) in sorted(want.items()):
        g = got.get(gid)
        if g is None:
            continue
        mine = [f["function"] for f in g["frames"]]
        if g["crashed"]:
            rest = fns[fns.index("runtime.sigreturn") + 1:] if "runtime.sigreturn" in fns else fns
            it = iter(mine)
            if not all(fn in it for fn in rest):
                errors.append("%s: crashed goroutine %d: delve %s not within ours %s" % (name, gid, rest, mine))
            continue
        if state is not None and state != (g["wait"] or g["status"]):
            errors.append("%s: goroutine %d state %r, delve %r" % (name, gid, g["wait"] or g["status"], state))
        if mine != fns:
            errors.append("%s: goroutine %d functions\n  ours  %s\n  delve %s" % (name, gid, mine, fns))
    return errors, True


def run_json(binary, d, *opts):
    run = subprocess.run([binary, "--format=json", *opts, os.path.join(d, "exe"), os.path.join(d, "core")],
                         capture_output=True, text=True, timeout=300)
    return json.loads(run.stdout) if run.stdout.startswith("{") else None


def frames_of(g):
    return [(f["function"], f["file"], f["line"], f["inlined"]) for f in g["frames"]]


def native_frames(rep):
    """The crashed thread's native frames (function, file, line, inlined) and their name sources."""
    t = [t for t in rep["threads"] if t["crashed"]]
    frames = t[0]["frames"] if t else []
    return [(f["function"], f["file"], f["line"], f["inlined"]) for f in frames], [f.get("name_source") for f in frames]


def check_stripped_native(name, rep, unstripped_name, unstripped_rep):
    """A stripped build's native backtrace against the same program's unstripped one."""
    errors = []
    mine, sources = native_frames(rep)
    theirs, their_sources = native_frames(unstripped_rep)
    crashed = [t for t in unstripped_rep["threads"] if t["crashed"]]
    if crashed and not any(f.get("signal_frame") for f in crashed[0]["frames"]):
        # The oracle's own walk did not pass Go's signal trampoline (its interrupted stack is a
        # system stack below the signal stack: a known defect, docs/runtimes.md): no oracle.
        NO_NATIVE_ORACLE.append(name)
        return errors
    if not mine or mine != theirs:
        errors.append("%s: crashed thread's native frames differ from %s's\n  ours   %s\n  oracle %s" % (
            name, unstripped_name, mine, theirs))
    if any(f[0] and src != "pclntab" for f, src in zip(mine, sources)):
        errors.append("%s: a frame named without name_source pclntab: %s" % (name, sources))
    if any(their_sources):
        errors.append("%s: a frame of the unstripped build named from the pclntab: %s" % (unstripped_name, their_sources))
    return errors


def check_runtime_waits(name, rep):
    """Threads the Go runtime parks on a futex (runtime.futexsleep: an M's note, a runtime lock) are
    its own idle Ms (wait object go-runtime), never an unknown lock of the Waiting section."""
    errors = []
    for t in rep["threads"]:
        w = t.get("wait") or {}
        if w.get("syscall") != "futex":
            continue
        parked = any(f["function"] == "runtime.futexsleep" for f in t["frames"])
        if parked != (w.get("object") == "go-runtime"):
            errors.append("%s: thread %d futex wait object %r, runtime.futexsleep on its stack: %s" % (
                name, t["tid"], w.get("object"), parked))
    kinds = [l["kind"] for l in (rep.get("hang") or {}).get("locks", [])]
    if "unknown" in kinds:
        errors.append("%s: an unknown lock in the Waiting section: %s" % (name, kinds))
    return errors


def check_case(binary, name, d, stripped, unstripped=None):
    errors = []
    with open(os.path.join(d, "stderr"), errors="replace") as f:
        want = oracle(f.read())
    if not want:
        return ["%s: no goroutine in the program's stderr (the oracle)" % name]
    rep = run_json(binary, d)
    if not rep or not rep.get("runtime") or rep["runtime"].get("language") != "go":
        return ["%s: no Go runtime section" % name]
    rt = rep["runtime"]
    if stripped and (rt["layout"] != "table" or rt["found_by"] != "search"):
        errors.append("%s: stripped binary read with layout %s, found by %s" % (name, rt["layout"], rt["found_by"]))
    if not stripped and (rt["layout"] != "dwarf" or rt["found_by"] != "symbols"):
        errors.append("%s: layout %s, found by %s (want dwarf, symbols)" % (name, rt["layout"], rt["found_by"]))
    got, order = ours(rep)
    if set(got) != set(want):
        errors.append("%s: goroutine ids differ: only in the oracle %s, only ours %s" % (
            name, sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10]))
    for gid, w in sorted(want.items()):
        g = got.get(gid)
        if g is None:
            continue
        if state_of(g) != w["state"].split(", ")[0] + (", locked to thread" if "locked to thread" in w["state"] else ""):
            # Go adds ", N minutes" for long waits: the bracket is compared without it.
            errors.append("%s: goroutine %d state %r, oracle %r" % (name, gid, state_of(g), w["state"]))
        if w["unavailable"]:
            if g["status"] != "running":
                errors.append("%s: goroutine %d runs on another thread in the oracle, ours is %s" % (name, gid, g["status"]))
            continue
        mine = frames_of(g)
        theirs = w["frames"]
        if w.get("elided"):
            mine = mine[:len(theirs)]
        if g["crashed"]:
            # The panicking goroutine: Go prints it from its panic call (gopanic's caller) on; ours
            # starts where it switched to the system stack (systemstack_switch, fatalpanic) above it.
            k = len(mine) - len(theirs)
            extra = [f[0] for f in mine[:k]]
            if k < 0 or mine[k:] != theirs or any(not fn.startswith("runtime.") for fn in extra):
                errors.append("%s: crashed goroutine %d frames\n  ours   %s\n  oracle %s" % (name, gid, mine, theirs))
        elif mine != theirs:
            errors.append("%s: goroutine %d frames\n  ours   %s\n  oracle %s" % (name, gid, mine, theirs))
        cb = g["created_by"]
        cb = (cb["function"], cb["file"], cb["line"]) if cb else None
        if cb != w["created_by"]:
            errors.append("%s: goroutine %d created by %s, oracle %s" % (name, gid, cb, w["created_by"]))
    crashed = [gid for gid in order if got[gid]["crashed"]]
    if crashed and order[0] != crashed[0]:
        errors.append("%s: the crashed goroutine %d is not first" % (name, crashed[0]))
    if "panic" in rep["crash"]["class"] and not crashed:
        errors.append("%s: a panic, but no goroutine is marked crashed" % name)
    if not stripped and not name.startswith("scale-"):
        # Delve needs the DWARF (not the stripped build); the 10,000-goroutine core takes it minutes.
        derr, used = check_delve(name, got, d)
        errors += derr
        if used:
            DELVE_USED.append(name)
    errors += check_runtime_waits(name, rep)
    if unstripped:
        other = run_json(binary, unstripped[1])
        if not other:
            errors.append("%s: no report of %s" % (name, unstripped[0]))
        else:
            errors += check_stripped_native(name, rep, unstripped[0], other)
    off = run_json(binary, d, "--runtime=off")
    if off and off.get("runtime") is not None:
        errors.append("%s: --runtime=off still has a runtime section" % name)
    return errors


DELVE_USED = []
NO_NATIVE_ORACLE = []


def main():
    binary, cases, cores = sys.argv[1:4]
    names = []
    with open(cases) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 2 and cols[1].endswith(".go"):
                names.append((cols[0], "-ldflags=-s" in cols[2], cols[1]))
    errors, checked = [], 0
    for name, stripped, source in names:
        d = os.path.join(cores, name)
        # The same program built with its symbols (the oracle of the stripped build's backtrace).
        same = [n for n, s, src in names if src == source and not s and not n.startswith(("scale-", "tc-"))]
        unstripped = (same[0], os.path.join(cores, same[0])) if stripped and same else None
        if not os.path.exists(os.path.join(d, "core")):
            if name.startswith("scale-"):
                continue
            errors.append("%s: no core" % name)
            continue
        checked += 1
        if stripped and not unstripped:
            errors.append("%s: no unstripped case of %s to compare the backtrace with" % (name, source))
        errors += check_case(binary, name, d, stripped, unstripped)
    print("delve (dlv core) compared on: %s" % (", ".join(DELVE_USED) or "none (not installed)"))
    if NO_NATIVE_ORACLE:
        print("native backtrace not compared (the unstripped walk misses the signal frame): %s" % ", ".join(NO_NATIVE_ORACLE))
    for e in errors:
        print("FAIL", e)
    print("%d Go cores checked, %d problems" % (checked, len(errors)))
    sys.exit(1 if errors or not checked else 0)


if __name__ == "__main__":
    main()
