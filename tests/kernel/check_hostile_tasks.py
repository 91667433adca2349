#!/usr/bin/env python3
"""Hostile and filtered kernel dumps for the task and BTF readers (issues 21 and 22), written from nothing.

usage: check_hostile_tasks.py CORETRIAGE WORKDIR [SCHEMA]
Each case is a synthetic x86-64 ELF kdump (synth_vmcore.py: kallsyms, .BTF, init_task's task list). Every
run must end in under 2 s (ASan builds too) within 512 MiB, exit 0 or 1 with a report (JSON valid against
SCHEMA when given, and text), and carry the diagnostic that says what the reader met:

  btf-anon-self      task_struct opens with 16 anonymous members of type task_struct and has no __state
                     (a kernel before 5.14): the member search used to recurse 16^9 times looking for
                     it; the tasks are listed all the same
  task-loop          a task whose tasks.next is itself and whose thread list loops too: 65,536 x 65,536
                     nodes walked before; now a task-list-cut naming the loop, and the tasks reached
                     backwards from init_task listed
  never-returns      init_task -> t1 -> t2 -> t1: the walk used to stop at 3 tasks as if complete; now all 9
                     are listed (the rest backwards) with a task-list-cut
  filtered           the page of a D-state task that holds its list links is excluded: every task is listed,
                     the D-state one with and without --tasks, and task-unreadable names it
  filtered-two-holes a second task excluded whole: the task between the holes is not reached by the list
                     walks; the pid namespace's IDR gives it (task-list-cut says how many it gave)
  filtered-d-between the D-state task of a hung-task panic between two tasks excluded whole: reached only
                     through the IDR, listed with and without --tasks
  null-link          a task whose tasks.next is NULL (a zero-filled page): the rest walked backwards, said
  wild-link          a next link whose task_struct would wrap past 2^64, a thread list pointing there too
  module-loop        the kernel module list (struct module from the BTF, the `modules` head in kallsyms) goes
                     head -> m1 -> m2 -> m1: a module-list-cut naming the node it loops back to, two modules
  budget-btf         40 anonymous members of 40 structs of 65,535 members each: the node budget (2^21 with
                     --safe, 2^22 without) ends the member search with a budget-nodes warning naming the lookup
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth_vmcore as sv  # noqa: E402
from ktest import check, failures  # noqa: E402

TIME_LIMIT = 2.0
MEMORY_LIMIT_KB = 512 * 1024


def run(args):
    """(exit status, stdout, stderr, seconds, max RSS in KiB) of one run."""
    # CPU seconds of the run (children's rusage; runs are sequential): a busy machine does not
    # inflate them as it does wall time.
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=10 * TIME_LIMIT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return -1, out, err, 10 * TIME_LIMIT, 0
    # The child is reaped already; its peak RSS is in the children's rusage of this process, which
    # only grows: each run is checked against the limit, the first over it fails.
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    rss = r1.ru_maxrss
    return p.returncode, out, err, dt, rss


def analyze(ct, path, case, schema, extra=()):
    """Runs JSON and text reports of @path; returns the JSON report (or None)."""
    j = None
    for fmt in ("json", "text"):
        rc, out, err, dt, rss = run([ct, "--format", fmt, *extra, path])
        tag = "%s (%s%s)" % (case, fmt, " " + " ".join(extra) if extra else "")
        check(rc in (0, 1), "%s: exit %d: %s" % (tag, rc, err.decode(errors="replace")[-300:]))
        check(dt < TIME_LIMIT, "%s: %.2f s CPU (limit %.0f s)" % (tag, dt, TIME_LIMIT))
        check(rss < MEMORY_LIMIT_KB, "%s: %d KiB of memory" % (tag, rss))
        check(len(out) > 0, "%s: no report" % tag)
        print("  %s: exit %d, %.2f s" % (tag, rc, dt))
        if fmt == "json" and rc in (0, 1):
            try:
                j = json.loads(out)
            except ValueError as e:
                check(False, "%s: JSON does not parse: %s" % (tag, e))
                continue
            if schema:
                import jsonschema
                try:
                    jsonschema.validate(j, schema)
                except jsonschema.ValidationError as e:
                    check(False, "%s: report does not validate: %s at %s" % (tag, e.message, list(e.absolute_path)))
    return j


def diags(j):
    return [(d["code"], d["message"]) for d in (j or {}).get("diagnostics", [])]


def has_diag(j, code, *words):
    return any(c == code and all(w in m for w in words) for c, m in diags(j))


def tasks_of(j):
    return {t["pid"]: t for t in ((j or {}).get("kernel", {}).get("tasks") or [])}


def case_btf_anon_self(path):
    k = sv.Kernel()
    ts = sv.Tasks(k, anon_self=16, before_5_14=True)
    ts.task_list([ts.task(1, "init"), ts.task(2, "kthreadd"), ts.task(3, "worker", "D")])
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        check(sorted(t) == [0, 1, 2, 3], "btf-anon-self: tasks %r" % sorted(t))
        check(not has_diag(j, "no-task-layout"), "btf-anon-self: %r" % diags(j))
    return [("--tasks",)], verify


def case_task_loop(path):
    k = sv.Kernel()
    ts = sv.Tasks(k)
    a, b, c = ts.task(1, "init"), ts.task(2, "loop"), ts.task(3, "other")
    ts.task_list([a, b, c])
    # b's next link points at itself, and its thread list's only node at itself as well.
    k.u64(b + sv.T_TASKS, b + sv.T_TASKS)
    k.u64(b + sv.T_THREAD_NODE, b + sv.T_THREAD_NODE)
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        check(sorted(t) == [0, 1, 2, 3], "task-loop: tasks %r" % sorted(t))
        check(has_diag(j, "task-list-cut", "task list", "loops back to node 0x%016x" % (b + sv.T_TASKS)),
              "task-loop: no task-list-cut naming the loop: %r" % diags(j))
        check(has_diag(j, "task-list-cut", "thread list of task 0x%016x" % b),
              "task-loop: no task-list-cut for the thread list: %r" % diags(j))
    return [("--tasks",), ("--tasks", "--safe")], verify


def case_never_returns(path):
    k = sv.Kernel()
    ts = sv.Tasks(k)
    tasks = [ts.task(i, "t%d" % i) for i in range(1, 9)]
    ts.task_list(tasks)
    k.u64(tasks[1] + sv.T_TASKS, tasks[0] + sv.T_TASKS)  # t2 -> t1: never back to init_task
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        check(sorted(t) == list(range(9)), "never-returns: tasks %r" % sorted(t))
        check(j and j["kernel"].get("tasks_total") == 9, "never-returns: tasks_total %r" % (j or {}).get("kernel", {}).get("tasks_total"))
        check(has_diag(j, "task-list-cut", "without returning to its head"), "never-returns: %r" % diags(j))
    return [("--tasks",)], verify


def filtered(path, two_holes):
    k = sv.Kernel()
    ts = sv.Tasks(k, pids=True)
    a, d, b, c = ts.task(1, "init"), ts.task(2, "blocked", "D"), ts.task(3, "b"), ts.task(4, "c")
    order = [a, d, b, c]
    e = None
    if two_holes:
        e = ts.task(5, "gone")
        order = [a, d, b, e, c]
        k.exclude(e)
        k.exclude(e + sv.PAGE)
    ts.task_list(order)
    k.exclude(d + sv.PAGE)  # the page with d's tasks, signal and thread_node
    name = "filtered-two-holes" if two_holes else "filtered"
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        # Task 3 sits between the holes in two-holes: the list walks miss it, the IDR does not.
        want = [0, 1, 2, 3, 4]
        if "--tasks" not in extra:
            want = [2]
        check(sorted(t) == want, "%s %s: tasks %r, want %r" % (name, extra, sorted(t), want))
        check(2 in t and t[2]["state"] == "D" and t[2]["comm"] == "blocked",
              "%s %s: the D-state task: %r" % (name, extra, t.get(2)))
        check(has_diag(j, "task-unreadable", "task 0x%016x" % d, "fields tasks, signal, thread_node"),
              "%s: no task-unreadable naming the D task and its lost fields: %r" % (name, diags(j)))
        idr = has_diag(j, "task-list-cut", "1 tasks that the task and thread lists did not reach", "init_pid_ns.idr")
        if two_holes:
            check(has_diag(j, "task-unreadable", "task 0x%016x" % e, "its task_struct is not in the dump"),
                  "%s: the excluded task is not named: %r" % (name, diags(j)))
            check(has_diag(j, "task-list-cut", "may be missing"), "%s: the lost part is not said: %r" % (name, diags(j)))
            check(idr, "%s: the task found through the IDR is not said: %r" % (name, diags(j)))
            check(j["kernel"].get("tasks_total") == 5, "%s %s: tasks_total %r" % (name, extra, j["kernel"].get("tasks_total")))
        else:
            check(has_diag(j, "task-unreadable", "the list is whole"), "%s: %r" % (name, diags(j)))
            check(not has_diag(j, "task-list-cut"), "%s: the IDR gave tasks of a whole list: %r" % (name, diags(j)))
    return [("--tasks",), ()], verify


def case_d_between(path):
    """The hung task's D-state task between two tasks excluded whole (task_struct and links): neither
    list direction reaches it; the IDR does, and it is listed with and without --tasks."""
    k = sv.Kernel()
    ts = sv.Tasks(k, pids=True)
    a, x, d, y, c = (ts.task(1, "init"), ts.task(2, "gone1"), ts.task(3, "insmod", "D"), ts.task(4, "gone2"),
                     ts.task(5, "c"))
    ts.task_list([a, x, d, y, c])
    for t in (x, y):
        k.exclude(t)
        k.exclude(t + sv.PAGE)
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        want = [0, 1, 3, 5] if "--tasks" in extra else [3]
        check(sorted(t) == want, "filtered-d-between %s: tasks %r, want %r" % (extra, sorted(t), want))
        check(3 in t and t[3]["state"] == "D" and t[3]["comm"] == "insmod",
              "filtered-d-between %s: the D-state task: %r" % (extra, t.get(3)))
        check(has_diag(j, "task-list-cut", "may be missing"), "filtered-d-between: %r" % diags(j))
        check(has_diag(j, "task-list-cut", "1 tasks that the task and thread lists did not reach"),
              "filtered-d-between: the IDR's task is not said: %r" % diags(j))
        for gone in (x, y):
            check(has_diag(j, "task-unreadable", "task 0x%016x" % gone), "filtered-d-between: %r" % diags(j))
    return [("--tasks",), ()], verify


def case_null_link(path):
    k = sv.Kernel()
    ts = sv.Tasks(k)
    tasks = [ts.task(i, "t%d" % i) for i in range(1, 5)]
    ts.task_list(tasks)
    k.u64(tasks[1] + sv.T_TASKS, 0)
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        check(sorted(t) == list(range(5)), "null-link: tasks %r" % sorted(t))
        check(has_diag(j, "task-unreadable", "0x%016x is NULL" % (tasks[1] + sv.T_TASKS), "the list is whole"),
              "null-link: no diagnostic for the NULL link: %r" % diags(j))
    return [("--tasks",)], verify


def case_wild_link(path):
    k = sv.Kernel()
    ts = sv.Tasks(k)
    tasks = [ts.task(i, "t%d" % i) for i in range(1, 5)]
    ts.task_list(tasks)
    # A next link near the top of the address space: its task_struct would wrap past 2^64.
    k.u64(tasks[1] + sv.T_TASKS, 2**64 - 0x800)
    # And a thread list whose only node is there too.
    sig = k.alloc(0x40, align=64)
    k.u64(tasks[2] + sv.T_SIGNAL, sig)
    k.u64(sig + sv.SIG_THREAD_HEAD, 2**64 - 8)
    k.save(path)

    def verify(j, extra):
        t = tasks_of(j)
        check(sorted(t) == list(range(5)), "wild-link: tasks %r" % sorted(t))
        check(has_diag(j, "task-unreadable", "task 0x%016x" % (2**64 - 0x800 - sv.T_TASKS)),
              "wild-link: the wild task is not named: %r" % diags(j))
    return [("--tasks",)], verify


def case_budget_btf(path):
    k = sv.Kernel()
    b = k.btf
    u8 = b.int_("unsigned char", 1)
    wide = []
    for i in range(40):
        s = b.struct("wide%d" % i, 1)
        b.set_raw_members(s, "wide%d" % i, 1, 65535, b.member_bytes("x", u8, 0) * 65535)
        wide.append(("", s, 0))
    ts = sv.Tasks(k, task_members=wide)
    ts.task_list([ts.task(1, "init")])
    k.save(path)

    def verify(j, extra):
        limit = 2**21 if "--safe" in extra else 2**22
        check(has_diag(j, "budget-nodes", "BTF member search", "%d nodes" % limit, "task_struct."),
              "budget-btf %s: no budget-nodes warning naming the lookup and %d: %r" % (extra, limit, diags(j)))
        check(has_diag(j, "no-task-layout", "work budget"), "budget-btf %s: %r" % (extra, diags(j)))
    return [("--tasks", "--safe"), ("--tasks",)], verify


# struct module as the synthetic kernel lays it out (Linux 4.x-6.3: core_layout/init_layout).
M_SIZE, M_STATE, M_LIST, M_NAME, M_CORE, M_INIT = 0x400, 0x0, 0x8, 0x18, 0x100, 0x140


def case_module_loop(path):
    k = sv.Kernel()
    ts = sv.Tasks(k)
    ts.task_list([ts.task(1, "init")])
    b = k.btf
    u64, u32, i32, ch = b.int_("long long unsigned int", 8), b.int_("unsigned int", 4), b.int_("int", 4), b.int_("char", 1)
    lh = b.struct("list_head", 16)
    b.set_members(lh, "list_head", 16, [("next", b.ptr(lh), 0), ("prev", b.ptr(lh), 8)])
    ml = b.struct("module_layout", 0x40, [("base", u64, 0), ("size", u32, 8), ("text_size", u32, 12)])
    b.struct("module", M_SIZE, [("state", i32, M_STATE), ("list", lh, M_LIST), ("name", b.array(ch, i32, 56), M_NAME),
                                ("core_layout", ml, M_CORE), ("init_layout", ml, M_INIT)])
    head = k.alloc(16, align=64, image=True)
    k.symbol("modules", head)
    mods = []
    for name in ("m1", "m2"):
        m = k.alloc(M_SIZE)
        k.write(m + M_NAME, name.encode() + b"\0")
        mods.append(m)
    ts.link([head, mods[0] + M_LIST, mods[1] + M_LIST])
    k.u64(mods[1] + M_LIST, mods[0] + M_LIST)  # m2 -> m1: never back to the head
    k.save(path)

    def verify(j, extra):
        check(has_diag(j, "module-list-cut", "loops back to node 0x%016x" % (mods[0] + M_LIST), "after 2 modules"),
              "module-loop %s: no module-list-cut naming the loop: %r" % (extra, diags(j)))
        check(not has_diag(j, "no-kernel-modules"), "module-loop %s: %r" % (extra, diags(j)))
    return [(), ("--safe",)], verify


CASES = [
    ("btf-anon-self", case_btf_anon_self),
    ("task-loop", case_task_loop),
    ("never-returns", case_never_returns),
    ("filtered", lambda p: filtered(p, False)),
    ("filtered-two-holes", lambda p: filtered(p, True)),
    ("filtered-d-between", case_d_between),
    ("null-link", case_null_link),
    ("wild-link", case_wild_link),
    ("module-loop", case_module_loop),
    ("budget-btf", case_budget_btf),
]


def main():
    ct, work = sys.argv[1:3]
    schema = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    only = os.environ.get("CT_CASE")
    for name, make in CASES:
        if only and name != only:
            continue
        path = os.path.join(work, name + ".vmcore")
        n = len(failures)
        runs, verify = make(path)
        if not os.path.exists(path):
            check(False, "%s: not written" % name)
            continue
        for extra in runs:
            verify(analyze(ct, path, name, schema, extra), extra)
        print("%s %s" % ("ok  " if len(failures) == n else "FAIL", name))
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


sys.exit(main())
