#!/usr/bin/env python3
"""Every way a kernel dies, on real dumps of scripts/make-vmcores (ct_panic.ko, one guest per kind).

usage: check_kinds.py CORETRIAGE VMCORE_DIR KIND
For the dump of KIND: the class, the culprit function and module (named outside the raw log: summary,
details, evidence, the blamed frame of the panic CPU, unwound through the module with its own ORC
tables), the exception of the die() header, the task and CPU against the guest's serial console (an
oracle independent of the dump), the signature, and the D-state tasks listed with their stacks.
Exit 0 when all checks pass, 1 on a failure, 77 (skip) only when CT_NO_VMCORE=1.
"""
import json
import os
import re
import subprocess
import sys

from ktest import check, failures, strip_ts

# kind: class, culprit function, die() exception (None: no die header), the console line that starts
# the event (its CPU line gives the panic task and CPU).
EXPECT = {
    "softlockup": ("kernel-soft-lockup", "ct_spin_forever", None, r"watchdog: BUG: soft lockup"),
    "rcu": ("kernel-rcu-stall", "ct_spin_forever", None, r"rcu: INFO: .*stall"),
    "hung": ("kernel-hung-task", "ct_sleep_forever", None, r"INFO: task insmod:\d+ blocked"),
    "bug": ("kernel-bug", "ct_bug", "invalid opcode", r"kernel BUG at .*ct_panic\.c"),
    "gpf": ("kernel-general-protection", "ct_noncanonical_read", "general protection fault",
            r"general protection fault, probably for non-canonical address 0xdead000000000100"),
    "warn": ("kernel-warning-panic", "ct_warn", None, r"WARNING: CPU: \d+ PID: \d+ at .*ct_panic\.c"),
    "overflow": ("kernel-stack-overflow", "ct_recurse", "stack guard page", r"BUG: TASK stack guard page was hit"),
    "divide": ("kernel-divide-error", "ct_divide", "divide error", r"divide error: 0000 \[#1\]"),
    "canary": ("kernel-stack-protector", "ct_smash_canary", None,
               r"Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: ct_smash_canary"),
}


def console_event(path, pattern):
    """(event line, (cpu, pid, comm) of the first CPU line from 60 lines before the event on)."""
    lines = [strip_ts(l) for l in open(path, errors="replace").read().splitlines()]
    for i, l in enumerate(lines):
        if re.search(pattern, l):
            # A WARN/BUG prints its CPU line after the headline; a stack-protector panic before it.
            window = lines[i:i + 60] if not pattern.startswith("Kernel panic") else lines[i:i + 5]
            for l2 in window:
                m = re.match(r"CPU: (\d+) PID: (\d+) Comm: (\S+)", l2)
                if m:
                    return l, (int(m.group(1)), int(m.group(2)), m.group(3))
            return l, None
    return None, None


def main():
    bin_, d, kind = sys.argv[1:4]
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    cls, culprit, exception, pattern = EXPECT[kind]
    path = os.path.join(d, "qemu-%s.kdump" % kind)
    if not os.path.exists(path):
        print("FAIL: %s missing: scripts/make-vmcores did not run or failed" % path)
        return 1
    p = subprocess.run([bin_, "--format", "json", path], capture_output=True, text=True)
    if not check(p.returncode in (0, 1), "exit status %d: %s" % (p.returncode, p.stderr.strip())):
        return report()
    j = json.loads(p.stdout)
    c, k = j["crash"], j["kernel"]
    det = c.get("details") or {}
    check(c["class"] == cls, "class %r, want %r" % (c["class"], cls))
    check(c["confidence"] == "high", "confidence %r" % c["confidence"])
    # The culprit outside the raw log: summary, details, evidence.
    check(culprit in (c["summary"] or "") and "ct_panic" in c["summary"], "summary %r lacks %s [ct_panic]" % (c["summary"], culprit))
    check(det.get("culprit_function") == culprit and det.get("culprit_module") == "ct_panic",
          "details culprit %r [%r]" % (det.get("culprit_function"), det.get("culprit_module")))
    check(any(e.startswith("culprit: %s [ct_panic]" % culprit) for e in c["evidence"]), "no culprit evidence in %r" % c["evidence"])
    check(any(e.startswith("log: ") for e in c["evidence"]), "no log lines as evidence")
    if exception:
        check(det.get("exception") == exception, "exception %r, want %r" % (det.get("exception"), exception))
    # The event line and the task/CPU, against the console.
    event, cpu_line = console_event(os.path.join(d, "qemu-%s.console" % kind), pattern)
    if check(event is not None, "console has no line matching %r" % pattern):
        log = [strip_ts(l) for l in (k.get("log") or "").splitlines()]
        check(event in log, "the dump's log lacks the console's event line %r" % event)
        if kind != "canary":
            check(any(event in e for e in c["evidence"]), "event line %r not in the evidence %r" % (event, c["evidence"]))
    if check(cpu_line is not None, "no CPU line after the event on the console"):
        cpu, pid, comm = cpu_line
        check(k.get("panic_cpu") == cpu and det.get("cpu") == cpu, "panic CPU %r/%r, console %d" % (k.get("panic_cpu"), det.get("cpu"), cpu))
        check(det.get("pid") == pid and det.get("comm") == comm, "task %r/%r, console %d %s" % (det.get("pid"), det.get("comm"), pid, comm))
        if kind != "hung":
            check(comm == "insmod" and "task insmod, pid %d, CPU %d" % (pid, cpu) in c["summary"],
                  "summary %r lacks the task and CPU" % c["summary"])
    # The blamed frame on the panic CPU: the culprit, in the module, reached through the module's ORC.
    threads = j["threads"]
    frames = threads[0]["frames"] if threads and threads[0].get("crashed") else []
    if kind == "hung":
        check(c["blame_frame"] is None, "hung task: blame_frame %r on khungtaskd's CPU" % c["blame_frame"])
        m = re.search(r"INFO: task insmod:(\d+)", event or "")
        check(m and det.get("blocked_pid") == int(m.group(1)) and det.get("blocked_comm") == "insmod",
              "blocked task %r %r" % (det.get("blocked_comm"), det.get("blocked_pid")))
    elif check(c["blame_frame"] is not None, "no blamed frame; panic CPU frames %r" % [f["function"] for f in frames]):
        f = frames[c["blame_frame"]]
        check(f["function"] == culprit and f["module"] == "ct_panic" and f["trust"] == "cfi",
              "blamed frame %r" % f)
        # Unwound through module code with the module's ORC: the caller after the culprit is named too.
        after = [g for g in frames[c["blame_frame"] + 1:] if g["function"] != culprit]
        if kind != "canary":  # the smashed frame's return address is gone: a scan recovers the caller
            check(after and after[0]["trust"] == "cfi" and after[0]["function"] == "ct_panic_init",
                  "frame after the culprit %r" % (after[:1],))
        check(any(g["function"] == "do_one_initcall" for g in after) or kind == "canary",
              "do_one_initcall not among the frames after the culprit %r" % [g["function"] for g in after])
    sig = (j.get("signature") or {}).get("text") or ""
    check(sig.startswith("%s|%s|" % (cls, culprit)) or (kind == "overflow" and sig == "%s|%s" % (cls, culprit)),
          "signature %r" % sig)
    # D-state tasks are in every report; the hung one is insmod, its stack unwound from its saved context.
    tasks = k.get("tasks") or []
    check(k.get("tasks_listed") == "D-state" and k.get("tasks_total", 0) >= 50, "tasks_listed %r total %r" % (k.get("tasks_listed"), k.get("tasks_total")))
    check(all(t["state"] == "D" for t in tasks), "non-D tasks listed without --tasks")
    if kind == "hung":
        ins = [t for t in tasks if t["comm"] == "insmod"]
        if check(len(ins) == 1, "D-state tasks %r" % [(t["pid"], t["comm"]) for t in tasks]):
            t = ins[0]
            names = [f["function"] for f in t["frames"]]
            check(t["pid"] == det.get("blocked_pid"), "D task pid %r" % t["pid"])
            check(names[:1] == ["__schedule"] and culprit in names and "do_one_initcall" in names,
                  "D task stack %r" % names)
            check(t["wchan"] == culprit, "wchan %r" % t["wchan"])
            check(all(f["trust"] in ("context", "cfi") for f in t["frames"]), "D task frames not all from ORC %r"
                  % [f["trust"] for f in t["frames"]])
    else:
        check(not tasks, "D-state tasks %r" % [(t["pid"], t["comm"]) for t in tasks])
    # The text report names the class and the culprit too.
    t = subprocess.run([bin_, path], capture_output=True, text=True)
    check(cls in t.stdout and culprit in t.stdout, "text report lacks %s / %s" % (cls, culprit))
    return report()


def report():
    for f in failures:
        print("  " + f)
    print("FAIL" if failures else "ok", sys.argv[3])
    return 1 if failures else 0


sys.exit(main())
