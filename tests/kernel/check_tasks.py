#!/usr/bin/env python3
"""--tasks against the guest's own view of its tasks.

usage: check_tasks.py CORETRIAGE VMCORE_DIR KIND [SCHEMA]
KIND is a QEMU-dumped guest (qemu-KIND.kdump) or kdump-hung: the genuine kdump capture of the hung-task
guest kept as `makedumpfile -c -d 31` keeps it (kdump-hung.zlib), where user, cache and free pages are
not in the dump; its D-state task must be listed all the same, with --tasks and without.
The guest's init wrote /proc/PID/task/TID/stat of every task into the kernel log ("ct-ps: " lines)
just before crashing; the dump's log and the serial console hold them. coretriage --tasks must list each
of those tasks with the same pid, comm, parent, state (as ps spells it) and CPU, and unwind every
sleeping task's stack from its saved context with ORC. The hung-task guest holds 300 sleeping `sleep`
processes: their identical stacks are grouped in the text report.
Exit 0 when all checks pass, 1 on a failure, 77 (skip) only when CT_NO_VMCORE=1.
"""
import json
import os
import re
import subprocess
import sys

from ktest import check, failures


def guest_tasks(console):
    """tid -> (comm, state, ppid, cpu) from the ct-ps lines of the console (not from the dump)."""
    out = {}
    for line in open(console, errors="replace"):
        m = re.search(r"ct-ps: (\d+) \((.*)\) (\S) (.*)$", line.rstrip("\r\n"))
        if not m:
            continue
        rest = m.group(4).split()
        # After the state: ppid is field 4 of proc(5), processor field 39.
        out[int(m.group(1))] = (m.group(2), m.group(3), int(rest[0]), int(rest[35]))
    return out


def main():
    bin_, d, kind = sys.argv[1:4]
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    stem = kind if kind.startswith("kdump-") else "qemu-" + kind
    path = os.path.join(d, stem + (".zlib" if kind.startswith("kdump-") else ".kdump"))
    if not os.path.exists(path):
        print("FAIL: %s missing: scripts/make-vmcores did not run or failed" % path)
        return 1
    guest = guest_tasks(os.path.join(d, stem + ".console"))
    check(len(guest) >= 40, "only %d ct-ps lines on the console" % len(guest))
    p = subprocess.run([bin_, "--tasks", "--format", "json", path], capture_output=True, text=True)
    if not check(p.returncode in (0, 1), "exit status %d: %s" % (p.returncode, p.stderr.strip())):
        return report(kind)
    j = json.loads(p.stdout)
    if len(sys.argv) > 4:
        import jsonschema
        try:
            jsonschema.validate(j, json.load(open(sys.argv[4])))
        except jsonschema.ValidationError as e:
            check(False, "report does not validate against the schema: %s at %s" % (e.message, list(e.absolute_path)))
    k = j["kernel"]
    tasks = k.get("tasks") or []
    check(k.get("tasks_listed") == "all" and k.get("tasks_total") == len(tasks), "tasks_listed %r, total %r, %d listed"
          % (k.get("tasks_listed"), k.get("tasks_total"), len(tasks)))
    # The dump's own log holds the same listing (it is where the console got it from).
    in_log = sum(1 for l in (k.get("log") or "").splitlines() if "ct-ps: " in l)
    check(in_log == len(guest), "the dump's log has %d ct-ps lines, the console %d" % (in_log, len(guest)))
    by_pid = {}
    for t in tasks:
        if t["pid"] != 0:
            by_pid[t["pid"]] = t
    idle = [t for t in tasks if t["pid"] == 0]
    check(len(idle) == len(j["threads"]), "%d idle tasks for %d CPUs" % (len(idle), len(j["threads"])))
    running = [t for t in tasks if t["on_cpu"]]
    check(len(running) == len(j["threads"]), "%d tasks on a CPU for %d CPUs" % (len(running), len(j["threads"])))
    same_state = same_cpu = 0
    for tid, (comm, state, ppid, cpu) in sorted(guest.items()):
        t = by_pid.get(tid)
        if not check(t is not None, "guest task %d (%s) not in --tasks" % (tid, comm)):
            continue
        # /proc shows a kernel thread's full name (task->comm holds 15 bytes of it) and a workqueue
        # worker's current queue after a '-' ("kworker/0:0-events").
        ours = t["comm"]
        check(comm == ours or (comm.startswith(ours) and (len(ours) == 15 or comm[len(ours)] == "-")),
              "task %d: comm %r, guest %r" % (tid, ours, comm))
        check(t["ppid"] == ppid, "task %d (%s): ppid %d, guest %d" % (tid, comm, t["ppid"], ppid))
        same_state += t["state"] == state
        same_cpu += t["cpu"] == cpu
        if comm == "sleep":
            check(t["state"] == "S" == state, "sleep %d: state %r, guest %r" % (tid, t["state"], state))
    # States and CPUs move between the listing and the panic (init itself was running, kworkers wake).
    check(same_state >= 0.9 * len(guest), "only %d of %d states agree" % (same_state, len(guest)))
    check(same_cpu >= 0.85 * len(guest), "only %d of %d CPUs agree" % (same_cpu, len(guest)))
    extra = [t["comm"] for t in tasks if t["pid"] and t["pid"] not in guest]
    check(all(c == "insmod" or c.startswith("kworker/") for c in extra), "tasks the guest did not list: %r" % extra)
    # Every sleeping task's stack, from its saved context: __schedule first, ORC all the way.
    sleeping = [t for t in tasks if not t["on_cpu"] and t["state"] not in "ZX"]
    for t in sleeping:
        names = [f["function"] for f in t["frames"]]
        check(len(names) >= 3 and names[0] == "__schedule", "task %d (%s): stack %r" % (t["pid"], t["comm"], names[:6]))
        check(t["stop_reason"] in ("reached the user-mode registers of the kernel entry", "end of stack (ORC end marker)"),
              "task %d (%s): stop reason %r" % (t["pid"], t["comm"], t["stop_reason"]))
        check(all(f["trust"] in ("context", "cfi") for f in t["frames"]), "task %d (%s): trusts %r"
              % (t["pid"], t["comm"], [f["trust"] for f in t["frames"]]))
        check(t["wchan"] is not None and t["wchan"] != "__schedule", "task %d: wchan %r" % (t["pid"], t["wchan"]))
    user = [t for t in sleeping if t["comm"] in ("sleep", "init")]
    check(all(any(f["function"] == "entry_SYSCALL_64_after_hwframe" for f in t["frames"]) for t in user),
          "user tasks whose stacks do not reach the system call entry")
    if kind in ("hung", "kdump-hung"):
        # The blocked task of the hung-task panic: listed in D state, with --tasks and without.
        blocked = [t for t in tasks if t["comm"] == "insmod"]
        check(len(blocked) == 1 and blocked[0]["state"] == "D", "the blocked insmod: %r"
              % [(t["pid"], t["state"]) for t in blocked])
        p = subprocess.run([bin_, "--format", "json", path], capture_output=True, text=True)
        d_only = json.loads(p.stdout)["kernel"].get("tasks") or [] if p.returncode in (0, 1) else []
        check([t["comm"] for t in d_only if t["state"] == "D"] == ["insmod"],
              "without --tasks, the D-state tasks are %r" % [(t["pid"], t["comm"], t["state"]) for t in d_only])
        check(len(tasks) >= 300, "only %d tasks" % len(tasks))
        sleeps = [t for t in tasks if t["comm"] == "sleep"]
        check(len(sleeps) == 300, "%d sleep tasks" % len(sleeps))
        txt = subprocess.run([bin_, "--tasks", path], capture_output=True, text=True).stdout
        m = re.search(r"\(sleep, S\).*: (\d+) tasks with this stack", txt)
        check(m and int(m.group(1)) >= 300, "text report does not group the 300 sleep stacks")
    return report(kind)


def report(kind):
    for f in failures[:40]:
        print("  " + f)
    if len(failures) > 40:
        print("  … %d more" % (len(failures) - 40))
    print("FAIL" if failures else "ok", kind)
    return 1 if failures else 0


sys.exit(main())
