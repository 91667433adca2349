#!/usr/bin/env python3
"""Hang analysis end to end (docs/hangs.md): for the hang-* and gcore-hang-* cores of testdata/cases.tsv,
check the wait-for cycles (their threads by function, their locks by name), the owners, lock types and
blocking calls, and that no case without a cycle gets one. Also: a deadlock and its gcore snapshot share
one signature, the text report has a Waiting section and the markdown report one too.

usage: check_hangs.py CORETRIAGE CORES_DIR
Exit 0 when all pass, 1 on a failure, 77 when no hang core exists.
"""
import json
import os
import subprocess
import sys

# case -> expectations. cycle: (functions taking the locks, lock names), as sets, in any rotation.
# case -> (functions, lock names, cycle length)
DEADLOCKS = {
    "abba": ({"transfer_funds", "restock"}, {"accounts", "orders"}, 2),
    "cycle3": ({"take_next"}, {"stage_locks[0]", "stage_locks[1]", "stage_locks[2]"}, 3),
    "heap": ({"relay"}, {"&to->lock"}, 2),
    "self": ({"refresh_entry"}, {"cache_lock"}, 1),
}


def run(tool, d, fmt, hide_debug=None):
    cmd = [tool, "--format", fmt, "--no-debuginfod", "./exe", "core"]
    if hide_debug:
        # libc without its debug information: /usr/lib/debug hidden in a private mount namespace.
        cmd = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" /usr/lib/debug && exec "$@"', hide_debug] + cmd
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=120, check=False)
    return p


def can_hide_debug(empty):
    """True when a private mount namespace can hide /usr/lib/debug (root, unshare allowed)."""
    if not os.path.isdir("/usr/lib/debug"):
        return False
    p = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind "$0" /usr/lib/debug', empty],
                       capture_output=True, text=True, check=False)
    return p.returncode == 0


def frames_have(thread, fn):
    return any(f.get("function") == fn for f in thread.get("frames", []))


def thread_with(report, fn):
    return [t for t in report["threads"] if frames_have(t, fn)]


def lock_named(hang, name):
    return [l for l in hang["locks"] if l.get("name") == name]


def check_holder(problems, report, lock, fn):
    """The lock's owner is the thread whose stack holds fn."""
    holders = thread_with(report, fn)
    if len(holders) != 1:
        problems.append(f"expected one thread in {fn}, found {len(holders)}")
    elif lock.get("owner") != holders[0]["tid"]:
        problems.append(f"owner of {lock.get('name')} is {lock.get('owner')}, expected {holders[0]['tid']} ({fn})")
    elif not lock.get("owner_in_dump"):
        problems.append("owner not marked as in the dump")


def check_case(mode, report, problems, bare=False):
    """bare: libc without its debug information (its local symbols are unknown)."""
    hang = report.get("hang") or {}
    crash = report.get("crash") or {}
    cycles = hang.get("cycles", [])
    if mode in DEADLOCKS:
        fns, locks, length = DEADLOCKS[mode]
        self = length == 1
        if len(cycles) != 1:
            problems.append(f"{len(cycles)} cycles, expected 1")
            return
        c = cycles[0]
        if set(c["functions"]) != fns:
            problems.append(f"cycle functions {c['functions']}, expected {sorted(fns)}")
        names = {hang["locks"][i]["name"] for i in c["locks"]}
        if names != locks:
            problems.append(f"cycle locks {sorted(names)}, expected {sorted(locks)}")
        if mode == "heap" and set(c["holds_as"]) != {"&from->lock"}:
            problems.append(f"held locks as the frames name them: {c['holds_as']}, expected &from->lock")
        if len(c["threads"]) != length or c["self"] != self:
            problems.append(f"cycle of {len(c['threads'])} threads (self {c['self']})")
        for i in c["locks"]:
            l = hang["locks"][i]
            if l["kind"] != "mutex" or l.get("type") != "normal" or l.get("owner_field") != "__owner":
                problems.append(f"lock {l.get('name')}: {l['kind']} {l.get('type')} owner from {l.get('owner_field')}")
        # Member i waits for locks[i], held by member i+1.
        for i, tid in enumerate(c["threads"]):
            nxt = c["threads"][(i + 1) % len(c["threads"])]
            if hang["locks"][c["locks"][i]].get("owner") != nxt:
                problems.append(f"cycle edge {tid} -> {nxt} not backed by the lock's owner")
        if crash.get("class") != "deadlock" or (crash.get("subclass") == "self-deadlock") != self:
            problems.append(f"class {crash.get('class')}/{crash.get('subclass')}")
        if not (report.get("signature") or {}).get("text", "").startswith("deadlock"):
            problems.append("signature is not a deadlock signature")
        return
    if cycles:
        problems.append(f"false deadlock: {cycles}")
    if crash.get("class") == "deadlock":
        problems.append("class deadlock without a cycle")
    summaries = hang.get("summaries", [])
    if mode == "recursive":
        l = lock_named(hang, "registry_lock")
        if not l or l[0].get("type") != "recursive" or l[0].get("count") != 2:
            problems.append(f"registry_lock: {l}")
        else:
            check_holder(problems, report, l[0], "rebuild_registry")
    elif mode == "errorcheck":
        l = lock_named(hang, "config_lock")
        if not l or l[0].get("type") != "error-checking":
            problems.append(f"config_lock: {l}")
        else:
            check_holder(problems, report, l[0], "reload_config")
        holder = thread_with(report, "reload_config")
        w = holder[0].get("wait") if holder else None
        if not w or w["syscall"] != "read" or "fd" not in w:
            problems.append(f"holder's wait: {w}")
    elif mode == "robust":
        l = lock_named(hang, "shm_lock")
        if not l or not l[0].get("robust") or l[0].get("owner_field") != "lock word":
            problems.append(f"shm_lock: {l}")
        else:
            check_holder(problems, report, l[0], "hold_segment")
    elif mode == "rwlock":
        l = lock_named(hang, "table_lock")
        if not l or l[0]["kind"] != "rwlock" or l[0].get("owner") is not None or l[0].get("readers") != 1:
            problems.append(f"table_lock: {l}")
        writer = thread_with(report, "compact_table")
        w = writer[0].get("wait") if writer else None
        if not w or w.get("object") != "rwlock" or not w.get("wants_write"):
            problems.append(f"writer's wait: {w}")
    elif mode == "io-held":
        l = lock_named(hang, "journal")
        if not l or l[0].get("waiters") != 3:
            problems.append(f"journal: {l}")
        else:
            check_holder(problems, report, l[0], "slow_flush")
        if not any("3 threads wait for mutex `journal`" in s and "slow_flush" in s for s in summaries):
            problems.append(f"no contention summary: {summaries}")
    elif mode == "condvar":
        l = lock_named(hang, "queue_ready")
        if not l or l[0]["kind"] != "condition" or l[0].get("waiters") != 4 or l[0].get("owner") is not None:
            problems.append(f"queue_ready: {l}")
        if not any("4 threads wait on condition `queue_ready`" in s for s in summaries):
            problems.append(f"no idle summary: {summaries}")
    elif mode == "stdio":
        l = [x for x in hang["locks"] if x["kind"] == "glibc-internal"]
        named = (l[0].get("name") or "").startswith("_IO_stdfile_1_lock") if l else False
        if len(l) != 1 or l[0].get("owner") is not None or not (named or (bare and l[0].get("name") is None)):
            problems.append(f"stdio lock: {l}")
        writer = thread_with(report, "log_line")
        w = writer[0].get("wait") if writer else None
        if not w or w.get("object") != "glibc-internal":
            problems.append(f"log_line's wait: {w}")
    elif mode == "io":
        for fn, call in (("read_commands", "read"), ("serve_clients", "accept")):
            t = thread_with(report, fn)
            w = t[0].get("wait") if t else None
            if not w or w["syscall"] != call or "fd" not in w or w.get("function") != fn:
                problems.append(f"{fn}: wait {w}")
    # The verdict names what the signalled (or first) thread was blocked in.
    if "while blocked in" not in crash.get("summary", "") and "blocked in" not in crash.get("summary", ""):
        problems.append(f"summary does not say what the thread was blocked in: {crash.get('summary')}")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tool, cores = sys.argv[1:]
    ran = failed = 0
    empty = os.path.abspath(os.path.join(cores, ".empty-debug-dir"))
    os.makedirs(empty, exist_ok=True)
    hide = empty if can_hide_debug(empty) else None
    if not hide:
        print("note: cannot hide /usr/lib/debug (needs unshare -m): the pass without libc debug info is skipped")
    signatures = {}
    for case in sorted(os.listdir(cores)) if os.path.isdir(cores) else []:
        if not (case.startswith("hang-") or case.startswith("gcore-hang-")):
            continue
        d = os.path.join(cores, case)
        if not os.path.exists(os.path.join(d, "core")):
            continue
        ran += 1
        mode = case.split("hang-", 1)[1]
        if mode.startswith("i386-"):
            mode = mode[len("i386-"):]  # the same program built for i386
        problems = []
        p = run(tool, d, "json")
        try:
            report = json.loads(p.stdout)
        except ValueError as e:
            print(f"FAIL {case}: no JSON (exit {p.returncode}): {e}")
            failed += 1
            continue
        check_case(mode, report, problems)
        signatures.setdefault(mode, set()).add((report.get("signature") or {}).get("hash"))
        text = run(tool, d, "text").stdout
        if "\nWaiting" not in text or "blocked in: " not in text:
            problems.append("text report has no Waiting section or blocked-in lines")
        if "#### Waiting" not in run(tool, d, "markdown").stdout:
            problems.append("markdown report has no Waiting section")
        if hide:
            # The same verdict from libc's exported symbols alone (and the futex addresses).
            try:
                bare = json.loads(run(tool, d, "json", hide).stdout)
                more = []
                check_case(mode, bare, more, bare=True)
                if any(m.get("debug_info") and "libc" in (m.get("name") or "") for m in bare["modules"]):
                    more.append("libc debug info was not hidden")
                problems += [f"without libc debug info: {m}" for m in more]
            except ValueError as e:
                problems.append(f"without libc debug info: no JSON: {e}")
        if problems:
            print(f"FAIL {case}: {'; '.join(problems)}")
            failed += 1
        else:
            print(f"ok   {case}: {report['crash']['class']}, {len(report['hang']['cycles'])} cycle(s), "
                  f"{len(report['hang']['locks'])} lock(s)")
    for mode in DEADLOCKS:
        if len(signatures.get(mode, ())) > 1:
            print(f"FAIL {mode}: the core and its gcore snapshot have different signatures")
            failed += 1
    if ran == 0:
        print("no hang cores found (run scripts/make-cores)")
        return 77
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
