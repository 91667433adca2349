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
prints `??` for a stripped Go binary, so the unstripped build is the oracle there). Each unstripped
case's own core is also read with a stripped copy of its executable (strip --strip-all): one core, so
every native thread and every goroutine must equal the symbols' report with no cut. A thread the
runtime parked in runtime.futexsleep is a `go-runtime` wait, and no Go core has an unknown lock in
its Waiting section. For a Go process no goroutine crashed (go-deadlock, go-hang-*), hang.goroutines
must count every goroutine by the oracle's bracket and the sync call of its frames, group the sync
lock waiters by the semaphore the oracle printed as semacquire1's argument (lockSlow's receiver
agreeing), count the busy and may-wake goroutines as the oracle's statuses do, and say so in the
summaries (docs/hangs.md section 6); a goroutine 0 of the oracle (an M's stack) is no goroutine. Also
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
import tempfile

HEAD = re.compile(r"^goroutine (\d+) \[([^\]]*)\]:$")
PLACE = re.compile(r"^\t(.*):(\d+)(?: \+0x[0-9a-f]+)?(?: fp=.*)?$")
CALL = re.compile(r"^(\S.*)\((.*)\)$")


def oracle(stderr):
    """{goid: {"state", "frames": [(function, file, line, inlined)], "created_by", "unavailable"}}."""
    gs, cur, pending = {}, None, None
    for line in stderr.splitlines():
        m = HEAD.match(line)
        if m:
            pending = None
            # "goroutine 0 [idle]": an M's system stack, printed by each M the runtime relays a
            # SIGQUIT to; not a goroutine. A goroutine printed again by another M is the same one.
            if int(m.group(1)) == 0:
                cur = None
                continue
            cur = {"state": m.group(2), "frames": [], "args": [], "created_by": None, "unavailable": False}
            gs[int(m.group(1))] = cur
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
            cur["args"].append((fn, c.group(2).split(", ")))
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


def check_delve(name, got, d, oracle_of):
    """Delve (the Go debugger) as a second oracle: ids, states, function names. Delve looks up the
    innermost frame's line at the pc itself (the runtime at the call), so lines are not compared;
    for the crashed goroutine delve's frames after the signal return (runtime.sigreturn) must be
    ours in order."""
    want = delve(d)
    if want is None:
        return [], False
    # A core of another architecture was made under qemu-user (scripts/make-cross-go-cores).
    foreign = machine_of(os.path.join(d, "exe")) != {"x86_64": 62, "aarch64": 183}.get(os.uname().machine)
    errors = []
    if set(want) != set(got):
        errors.append("%s: delve's goroutine ids differ: only delve's %s, only ours %s" % (
            name, sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10]))
    for gid, (state, fns) in sorted(want.items()):
        g = got.get(gid)
        if g is None:
            continue
        mine = [f["function"] for f in g["frames"]]
        if foreign and (any(len(set(fns[k:k + 8])) == 1 for k in range(len(fns) - 7)) or "???" in fns):
            # delve 1.20 does not step through qemu-user's signal trampoline: a goroutine it unwinds
            # from a thread stopped in a signal handler (the crashed one; a running one whose M the
            # SIGQUIT relay went through) repeats runtime.sigtramp or ends in ???: no oracle there.
            DELVE_LOOPS.append("%s goroutine %d" % (name, gid))
            continue
        if g["crashed"]:
            rest = fns[fns.index("runtime.sigreturn") + 1:] if "runtime.sigreturn" in fns else fns
            it = iter(mine)
            if not all(fn in it for fn in rest):
                errors.append("%s: crashed goroutine %d: delve %s not within ours %s" % (name, gid, rest, mine))
            continue
        if state is not None and state != (g["wait"] or g["status"]):
            errors.append("%s: goroutine %d state %r, delve %r" % (name, gid, g["wait"] or g["status"], state))
        # A goroutine in a system call: delve unwinds it from its M's thread, whose registers may be
        # in Go's signal handler on top of the call (runtime.usleep of a relayed SIGQUIT); the
        # runtime's traceback, like ours, starts at syscallpc. Delve's frames must end with ours.
        if g["status"] == "syscall" and mine and fns[-len(mine):] == mine:
            continue
        if mine != fns:
            if foreign and runtime_agrees(g, oracle_of.get(gid)):
                # delve 1.20 on arm64 does not undo an injected call (asyncPreempt: the signal
                # handler's saved link register) and repeats the preempted function; the runtime's
                # own traceback of this goroutine equals ours.
                DELVE_DISAGREES.append("%s goroutine %d" % (name, gid))
                continue
            errors.append("%s: goroutine %d functions\n  ours  %s\n  delve %s" % (name, gid, mine, fns))
    return errors, True


def runtime_agrees(g, w):
    """Do our frames of goroutine @g equal what the runtime printed for it (@w, the oracle's entry)?"""
    if not w or w["unavailable"]:
        return False
    mine = frames_of(g)
    return (mine[:len(w["frames"])] if w.get("elided") else mine) == w["frames"]


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
    frames = crashed[0]["frames"] if crashed else []
    last = max([k for k, f in enumerate(frames) if f["function"] == "runtime.sigtramp"], default=-1)
    if 0 <= last < len(frames) - 1 and not frames[last + 1].get("signal_frame"):
        # The outer handler's return (a relayed SIGQUIT's, on an M's system stack) is not stepped
        # as a signal frame: past it both walks run through stale words of that stack, which differ
        # from run to run. The frames are compared through Go's signal handler.
        HANDLER_ONLY.append(name)
        mine, theirs, sources = mine[:last + 1], theirs[:last + 1], sources[:last + 1]
    if (unstripped_rep.get("crash") or {}).get("class") == "external-signal":
        # A signal sent from outside interrupts the thread wherever that run's scheduler had it
        # (an idle M in stopm in one run, the template thread in the next): the two cores come
        # from different runs, so the frames are compared through the last signal frame.
        cut = max([k for k, f in enumerate(frames) if f.get("signal_frame")], default=-1)
        if cut >= 0:
            if name not in HANDLER_ONLY:
                HANDLER_ONLY.append(name)
            mine, theirs, sources = mine[:cut + 1], theirs[:cut + 1], sources[:cut + 1]
    # Outward of the deadlock check (checkdead) or the scheduler the frames say how that run's M
    # came there: a goroutine that parked (schedule, park_m, mcall), a new M (schedule, mstart1,
    # clone) or sysmon, from run to run. Both walks are right for their own core (the two cores come
    # from two runs): compared through the first of those both have at the same depth.
    names_mine, names_theirs = [f[0] for f in mine], [f[0] for f in theirs]
    cuts = [k + 1 for k, n in enumerate(names_theirs)
            if n in SCHEDULER_FRAMES and k < len(names_mine) and names_mine[k] == n]
    if cuts:
        k = cuts[0]
        if name not in SCHEDULER_ONLY:
            SCHEDULER_ONLY.append(name)
        mine, theirs, sources = mine[:k], theirs[:k], sources[:k]
    if not mine or mine != theirs:
        errors.append("%s: crashed thread's native frames differ from %s's\n  ours   %s\n  oracle %s" % (
            name, unstripped_name, mine, theirs))
    if any(f[0] and src != "pclntab" for f, src in zip(mine, sources)):
        errors.append("%s: a frame named without name_source pclntab: %s" % (name, sources))
    if any(their_sources):
        errors.append("%s: a frame of the unstripped build named from the pclntab: %s" % (unstripped_name, their_sources))
    return errors


def thread_frames(rep):
    """{tid: [(function, file, line, inlined)]} of every native thread."""
    return {t["tid"]: [(f["function"], f["file"], f["line"], f["inlined"]) for f in t["frames"]] for t in rep["threads"]}


def goroutine_view(rep):
    """{goid: (status, wait reason, frames, created_by)} of every goroutine the report lists."""
    got, _ = ours(rep)
    return {gid: (g["status"], g.get("wait_reason"), frames_of(g),
                  (g["created_by"]["function"], g["created_by"]["file"], g["created_by"]["line"]) if g["created_by"] else None)
            for gid, g in got.items()}


def machine_of(path):
    """An ELF file's e_machine."""
    with open(path, "rb") as f:
        return int.from_bytes(f.read(20)[18:20], "little")


def strip_tool(exe):
    """binutils' strip for the executable's machine: the host's, or the cross one (EM_AARCH64)."""
    return {183: "aarch64-linux-gnu-strip"}.get(machine_of(exe), "strip")


def check_same_core_stripped(binary, name, d, rep):
    """The unstripped case's own core read with a stripped copy of its executable (strip --strip-all:
    no symbol table, no DWARF; the pclntab stays, and the build-id notes). One core, so nothing may
    differ: every native thread's frames and every goroutine equal the report made with the symbols,
    with no cut; what the stripped copy names, it names from the pclntab."""
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "exe")
        p = subprocess.run([strip_tool(os.path.join(d, "exe")), "--strip-all", "-o", exe, os.path.join(d, "exe")],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return ["%s: strip --strip-all failed: %s" % (name, p.stderr.strip())]
        run = subprocess.run([binary, "--format=json", exe, os.path.join(d, "core")], capture_output=True, text=True,
                             timeout=300)
        other = json.loads(run.stdout) if run.stdout.startswith("{") else None
    if not other or not other.get("runtime"):
        return ["%s: no report (or no runtime section) with a stripped copy of its executable" % name]
    rt = other["runtime"]
    if rt["layout"] != "table" or rt["found_by"] != "search":
        errors.append("%s, stripped copy: layout %s, found by %s" % (name, rt["layout"], rt["found_by"]))
    mine, theirs = thread_frames(other), thread_frames(rep)
    for tid in sorted(set(mine) | set(theirs)):
        if mine.get(tid) != theirs.get(tid):
            errors.append("%s, stripped copy: thread %d frames\n  stripped %s\n  symbols  %s" % (
                name, tid, mine.get(tid), theirs.get(tid)))
    sources = [f.get("name_source") for t in other["threads"] for f in t["frames"] if f["function"]]
    if any(src != "pclntab" for src in sources):
        errors.append("%s, stripped copy: a frame named without name_source pclntab: %s" % (name, sorted(set(map(str, sources)))))
    gm, gt = goroutine_view(other), goroutine_view(rep)
    for gid in sorted(set(gm) | set(gt)):
        if gm.get(gid) != gt.get(gid):
            errors.append("%s, stripped copy: goroutine %d\n  stripped %s\n  symbols  %s" % (name, gid, gm.get(gid), gt.get(gid)))
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


# The sync call a goroutine parked in semacquire waits in, from the oracle's frames (the innermost
# sync function, as Go 1.20+'s wait reasons name it), and the offset of the semaphore in its lock.
SYNC_CALLS = {
    "sync.(*Mutex).lockSlow": ("sync.Mutex.Lock", "sync.Mutex"),
    "sync.(*Mutex).Lock": ("sync.Mutex.Lock", "sync.Mutex"),
    "sync.(*RWMutex).RLock": ("sync.RWMutex.RLock", "sync.RWMutex"),
    "sync.(*RWMutex).Lock": ("sync.RWMutex.Lock", "sync.RWMutex"),
    "sync.(*WaitGroup).Wait": ("sync.WaitGroup.Wait", None),
    "sync.(*Cond).Wait": ("sync.Cond.Wait", None),
}
SEMA_OFFSET = {"sync.Mutex.Lock": 4, "sync.RWMutex.RLock": 12, "sync.RWMutex.Lock": 4}
# What each hang case must show (a scenario that did not happen fails, not passes quietly).
HANG_EXPECT = {
    "go-hang-mutex": {"locks": [("sync.Mutex", "main.ledger", 10)], "busy": 0},
    "go-hang-mutex-stripped": {"locks": [("sync.Mutex", None, 10)], "busy": 0},
    "go-hang-busy": {"locks": [("sync.Mutex", "main.stats", 5)], "busy_in": "main.crunch"},
    "go-hang-chans": {"count": 503, "busy": 0},
    "go-deadlock": {"locks": [("sync.Mutex", "main.mu", 1)], "busy": 0, "unreleasable": True},
}


def oracle_sync(w):
    """(sync call, lock kind) of an oracle goroutine, or (None, None)."""
    fns = [f[0] for f in w["frames"]]
    for k, fn in enumerate(fns):
        if not fn.startswith("sync.") or fn.startswith("sync.runtime_"):
            continue
        call = SYNC_CALLS.get(fn, (None, None))
        if call[0] == "sync.Mutex.Lock" and "sync.(*RWMutex).Lock" in fns[k + 1:]:
            return SYNC_CALLS["sync.(*RWMutex).Lock"]
        return call
    return None, None


def oracle_arg(w, fn):
    """The first argument the traceback printed for frame @fn as an int, None when absent or
    marked possibly inaccurate ("0x…?")."""
    for f, args in w["args"]:
        if f == fn and args and re.match(r"^0x[0-9a-f]+$", args[0]):
            return int(args[0], 16)
    return None


def check_hang(name, rep, want):
    """hang.goroutines (docs/hangs.md "Go") against the oracle: every goroutine counted by its
    bracket's wait reason and the sync call of its frames, the sync locks by the semaphore address
    the runtime printed as semacquire1's argument (and lockSlow's receiver), who can run, who may
    wake, and the summary lines that say it."""
    errors = []
    g = (rep.get("hang") or {}).get("goroutines")
    panicked = any(f[0] == "runtime.gopanic" for w in want.values() for f in w["frames"])
    crashed = any(grp["crashed"] for grp in rep["runtime"]["goroutines"])
    if panicked or crashed:
        if g is not None:
            errors.append("%s: a goroutine crashed it, yet hang.goroutines is there" % name)
        return errors
    if g is None:
        return ["%s: no hang.goroutines (a Go process no goroutine crashed)" % name]
    counts = {}
    for w in want.values():
        wait = w["state"].split(", ")[0]
        call, _ = oracle_sync(w)
        key = (wait, call if call != wait else None)
        counts[key] = counts.get(key, 0) + 1
    mine = {(c["wait"], c["sync"]): c["count"] for c in g["by_wait"]}
    if mine != counts:
        errors.append("%s: goroutines by wait reason\n  ours   %s\n  oracle %s" % (name, sorted(mine.items()), sorted(counts.items())))
    if g["count"] != len(want):
        errors.append("%s: hang.goroutines.count %d, the oracle printed %d" % (name, g["count"], len(want)))
    states = [w["state"].split(", ")[0] for w in want.values()]
    busy = sum(s in ("running", "runnable", "preempted") for s in states)
    wake = sum(s in ("syscall", "sleep", "IO wait") for s in states)
    if (g["busy"], g["may_wake"]) != (busy, wake):
        errors.append("%s: busy %d, may wake %d; the oracle's %d, %d" % (name, g["busy"], g["may_wake"], busy, wake))
    # The locks: the oracle's semaphore addresses (semacquire1's first argument) by call.
    groups = {}
    for gid, w in want.items():
        call, kind = oracle_sync(w)
        sema = oracle_arg(w, "runtime.semacquire1")
        if not kind or sema is None:
            continue
        address = sema - SEMA_OFFSET[call]
        slow = oracle_arg(w, "sync.(*Mutex).lockSlow")
        if slow is not None and slow != address:
            errors.append("%s: goroutine %d: lockSlow(0x%x) but semacquire1(0x%x)" % (name, gid, slow, sema))
        groups.setdefault((kind, address, call), []).append(gid)
    ours = {(l["kind"], int(l["address"], 16), l["call"]): l for l in g["locks"]}
    if set(ours) != set(groups):
        errors.append("%s: sync locks\n  ours   %s\n  oracle %s" % (
            name, sorted((k, hex(a), c) for k, a, c in ours), sorted((k, hex(a), c) for k, a, c in groups)))
    for key, ids in groups.items():
        l = ours.get(key)
        if not l:
            continue
        if l["waiters"] != len(ids) or not set(l["waiter_ids"]) <= set(ids):
            errors.append("%s: lock %s waiters %d %s, oracle %d %s" % (name, l["address"], l["waiters"], l["waiter_ids"],
                                                                    len(ids), sorted(ids)[:8]))
        if l["releasable"] != bool(busy or wake):
            errors.append("%s: lock %s releasable %s with %d busy, %d may wake" % (name, l["address"], l["releasable"], busy, wake))
    sums = rep["hang"]["summaries"]
    if not any(x.startswith("%d goroutines: " % len(want)) for x in sums):
        errors.append("%s: no summary \"%d goroutines: …\": %s" % (name, len(want), sums))
    for l in g["locks"]:
        line = [x for x in sums if l["address"] in x and x.split(" ")[0] == str(l["waiters"])]
        if not line:
            errors.append("%s: no summary line for lock %s" % (name, l["address"]))
        elif not busy and not wake and "no goroutine can release it: all %d are blocked" % len(want) not in line[0]:
            errors.append("%s: lock %s: the summary does not say no goroutine can release it: %s" % (name, l["address"], line[0]))
    if busy and not any(x.startswith("not a deadlock of goroutines: %d " % busy) for x in sums):
        errors.append("%s: %d goroutines can run, no summary says it is not a deadlock: %s" % (name, busy, sums))
    exp = HANG_EXPECT.get(name, {})
    got_locks = sorted((l["kind"], l["name"], l["waiters"]) for l in g["locks"])
    for lk in exp.get("locks", []):
        if lk not in got_locks:
            errors.append("%s: expected lock %s among %s" % (name, lk, got_locks))
    if "count" in exp and g["count"] != exp["count"]:
        errors.append("%s: %d goroutines, the program makes %d" % (name, g["count"], exp["count"]))
    if "busy" in exp and g["busy"] != exp["busy"]:
        errors.append("%s: %d busy goroutines, expected %d" % (name, g["busy"], exp["busy"]))
    if "busy_in" in exp and not any(x.startswith("not a deadlock") and exp["busy_in"] in x for x in sums):
        errors.append("%s: the busy goroutine in %s is not named: %s" % (name, exp["busy_in"], sums))
    if exp.get("unreleasable") and (g["may_wake"] or not all(not l["releasable"] for l in g["locks"])):
        errors.append("%s: every goroutine blocks, yet a lock is said releasable" % name)
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
        derr, used = check_delve(name, got, d, want)
        errors += derr
        if used:
            DELVE_USED.append(name)
    errors += check_runtime_waits(name, rep)
    errors += check_hang(name, rep, want)
    if not stripped and not name.startswith(("scale-", "tc-")):
        errors += check_same_core_stripped(binary, name, d, rep)
        SAME_CORE.append(name)
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
DELVE_LOOPS = []
DELVE_DISAGREES = []
SAME_CORE = []
NO_NATIVE_ORACLE = []
HANDLER_ONLY = []
SCHEDULER_ONLY = []
# Where a crashing M's frames start to depend on that run's scheduler state.
SCHEDULER_FRAMES = ("runtime.checkdead", "runtime.schedule")


def main():
    binary, cases, cores = sys.argv[1:4]
    if not os.path.exists(cases):
        # scripts/make-cross-go-cores writes its cases.tsv only where go and qemu-user are.
        print("no %s: its cores were not made (skipped)" % cases)
        sys.exit(77)
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
    print("same core read with a stripped copy of the executable: %s" % ", ".join(SAME_CORE))
    if DELVE_LOOPS:
        print("delve's own walk loops (not compared): %s" % ", ".join(DELVE_LOOPS))
    if DELVE_DISAGREES:
        print("delve differs where the runtime's own traceback equals ours (arm64 injected calls): %s"
              % ", ".join(DELVE_DISAGREES))
    if NO_NATIVE_ORACLE:
        print("native backtrace not compared (the unstripped walk misses the signal frame): %s" % ", ".join(NO_NATIVE_ORACLE))
    if SCHEDULER_ONLY:
        print("native backtrace compared through runtime.checkdead or runtime.schedule (outward, how that run's M came there): %s" % ", ".join(SCHEDULER_ONLY))
    if HANDLER_ONLY:
        print("native backtrace compared through Go's signal handler only (past it stale words or another run's scheduler state): %s" % ", ".join(HANDLER_ONLY))
    for e in errors:
        print("FAIL", e)
    print("%d Go cores checked, %d problems" % (checked, len(errors)))
    sys.exit(1 if errors or not checked else 0)


if __name__ == "__main__":
    main()
