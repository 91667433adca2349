#!/usr/bin/env python3
"""Property tests of coretriage on the real vmcores of scripts/make-vmcores.

usage: check_vmcore.py CORETRIAGE VMCORE_DIR CASE
CASE is a crash of manifest.tsv (sysrq, oom, init, oops, oops-kdump); every dump of that crash, in every
format, is analyzed and checked: input kind, release, class, panic reason, CPU/PID/comm (against the
serial console the guest printed, an oracle independent of the dump), the log tail, the log's Call Trace
and the kallsyms-symbolized frames of the panic CPU.

Exit 0 when all checks pass, 1 on a failure, 77 (skip) only when CT_NO_VMCORE=1. A missing dump is a
failure: the vmcores fixture is expected to have made them.
"""
import json
import os
import re
import subprocess
import sys
import time

from ktest import check, run_manifest, strip_ts

# What each crash must look like: class, words of the panic message, functions expected on the panic
# CPU's stack (kallsyms names; ".cold" parts match their prefix), pid/comm when fixed by the recipe.
EXPECT = {
    "sysrq": {"class": "kernel-sysrq-crash", "panic": "sysrq triggered crash",
              "frames": ["panic", "sysrq_handle_crash", "write_sysrq_trigger"], "pid": 1},
    "oom": {"class": "kernel-oom-panic", "panic": "Out of memory",
            "frames": ["panic", "out_of_memory"], "comm": "dd"},
    "init": {"class": "kernel-panic", "panic": "Attempted to kill init! exitcode=0x00002a00",
             "frames": ["panic", "do_exit"], "pid": 1},
    "oops": {"class": "kernel-null-deref", "panic": "Fatal exception", "address": "0x10", "access": "write",
             "frames": ["ct_null_write", "do_one_initcall"], "comm": "insmod", "taint": "OE",
             "module": "ct_null"},
    "oops-kdump": {"class": "kernel-null-deref", "panic": None, "address": "0x10", "access": "write",
                   "frames": ["ct_null_write", "do_one_initcall", "do_init_module"], "comm": "insmod",
                   "taint": "OE", "module": "ct_null", "kdump": True},
}


def base_name(fn):
    return fn.split(".")[0] if fn else fn


def console_facts(path):
    """The panic CPU line the guest printed on its serial console, and all console message texts."""
    text = open(path, errors="replace").read()
    # The capture kernel of a kdump run boots after the crash: keep only the first kernel's lines.
    first = text.split("coretriage: capture kernel")[0]
    lines = [strip_ts(l.rstrip("\r")) for l in first.splitlines()]
    cpu_line = None
    for i, l in enumerate(lines):
        if (l.startswith("BUG: ") or l.startswith("Kernel panic - not syncing") or
                " invoked oom-killer" in l or l.startswith("sysrq: Trigger")):
            for l2 in lines[i:i + 60]:
                m = re.match(r"CPU: (\d+) PID: (\d+) Comm: (\S+)", l2)
                if m:
                    cpu_line = (int(m.group(1)), int(m.group(2)), m.group(3))
                    break
            if cpu_line:
                break
    return cpu_line, set(lines)


def check_dump(bin_, d, name, fmt, case, kver):
    exp = EXPECT[case]
    path = os.path.join(d, name)
    if not check(os.path.exists(path), "%s: missing (vmcore generation failed?)" % name):
        return
    # CPU seconds (children's rusage; dumps are checked one after another): a 272 MB dump read cold
    # on a busy machine takes seconds of wall time that are not the analysis'.
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([bin_, "--format", "json", path], capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    tag = name
    if not check(p.returncode in (0, 1), "%s: exit status %d: %s" % (tag, p.returncode, p.stderr.strip())):
        return
    try:
        j = json.loads(p.stdout)
    except ValueError as e:
        check(False, "%s: output is not JSON: %s" % (tag, e))
        return
    # Generous: the benchmark (scripts/bench-vmcore) holds the real bar of 1 s on an idle machine.
    check(elapsed < 10, "%s: took %.2f s of CPU" % (tag, elapsed))
    k = j.get("kernel") or {}
    crash = j.get("crash") or {}
    check(j["input"]["kind"] == fmt, "%s: input.kind %r, want %r" % (tag, j["input"]["kind"], fmt))
    check(j["input"].get("arch") == "x86_64", "%s: arch %r" % (tag, j["input"].get("arch")))
    check(k.get("release") == kver, "%s: release %r, want %r" % (tag, k.get("release"), kver))
    check(re.fullmatch(r"[0-9a-f]{40}", k.get("build_id") or "") is not None, "%s: build_id %r" % (tag, k.get("build_id")))
    check(k.get("page_size") == 4096, "%s: page_size %r" % (tag, k.get("page_size")))
    # KASLR may pick offset 0 (seen: KERNELOFFSET=0 in a QEMU dump); the kernel is placed in 2 MiB steps.
    off = k.get("kaslr_offset")
    check(off is not None and int(off, 16) % 0x200000 == 0, "%s: kaslr_offset %r" % (tag, off))
    if exp.get("kdump"):
        check(isinstance(k.get("crash_time"), int) and k["crash_time"] > 1.6e9, "%s: crash_time %r" % (tag, k.get("crash_time")))
    check(crash.get("class") == exp["class"], "%s: class %r, want %r" % (tag, crash.get("class"), exp["class"]))
    check(crash.get("confidence") in ("high", "medium"), "%s: confidence %r" % (tag, crash.get("confidence")))
    pm = k.get("panic_message") or ""
    if exp["panic"]:
        check(pm.startswith("Kernel panic - not syncing: ") and exp["panic"] in pm, "%s: panic_message %r" % (tag, pm))
    else:
        # kdump loaded: the Oops went to crash_kexec, no "Kernel panic" line exists.
        check(pm.startswith("BUG: kernel NULL pointer dereference"), "%s: panic_message %r" % (tag, pm))
    if "address" in exp:
        check(crash.get("address") == exp["address"], "%s: crash.address %r" % (tag, crash.get("address")))
        check(crash.get("access") == exp["access"], "%s: crash.access %r" % (tag, crash.get("access")))
    if "taint" in exp:
        check(all(c in (k.get("taint") or "") for c in exp["taint"]), "%s: taint %r" % (tag, k.get("taint")))
    if "module" in exp:
        mods = [m.split("(")[0] for m in k.get("modules_linked_in") or []]
        check(exp["module"] in mods, "%s: modules_linked_in %r" % (tag, mods))

    # CPU, PID and comm against the serial console (the guest's own output, not the dump).
    console = os.path.join(d, name.split(".")[0] + ".console")
    cpu_line, console_lines = console_facts(console)
    if check(cpu_line is not None, "%s: no CPU line in %s" % (tag, console)):
        cpu, pid, comm = cpu_line
        check(k.get("panic_cpu") == cpu, "%s: panic_cpu %r, console says %d" % (tag, k.get("panic_cpu"), cpu))
        check(k.get("pid") == pid, "%s: pid %r, console says %d" % (tag, k.get("pid"), pid))
        check(k.get("comm") == comm, "%s: comm %r, console says %r" % (tag, k.get("comm"), comm))
    if "pid" in exp:
        check(k.get("pid") == exp["pid"], "%s: pid %r, want %r" % (tag, k.get("pid"), exp["pid"]))
    if "comm" in exp:
        check(k.get("comm") == exp["comm"], "%s: comm %r, want %r" % (tag, k.get("comm"), exp["comm"]))

    # The log tail: the last lines decoded from the dump are lines the console printed.
    log = (k.get("log") or "").splitlines()
    check(len(log) > 100, "%s: kernel log has %d lines" % (tag, len(log)))
    tail = [strip_ts(l) for l in log[-15:] if strip_ts(l).strip()]
    missing = [l for l in tail if l not in console_lines and not l.startswith("coretriage:")]
    check(not missing, "%s: log tail lines not on the console: %r" % (tag, missing[:3]))
    check(any("Linux version " + kver in l for l in log[:5]), "%s: log does not start with the boot banner" % tag)

    # Threads: one per CPU, tid = CPU number, the panic CPU first and the only one crashed.
    threads = j.get("threads") or []
    check(sorted(t["tid"] for t in threads) == list(range(len(threads))) and len(threads) == 2,
          "%s: thread tids %r" % (tag, [t["tid"] for t in threads]))
    crashed = [t for t in threads if t.get("crashed")]
    if not check(len(crashed) == 1 and threads[0].get("crashed"), "%s: crashed threads %r" % (tag, [t["tid"] for t in crashed])):
        return
    check(crashed[0]["tid"] == k.get("panic_cpu") and j.get("crashing_thread") == crashed[0]["tid"],
          "%s: crashing_thread %r, panic_cpu %r" % (tag, j.get("crashing_thread"), k.get("panic_cpu")))
    frames = crashed[0].get("frames") or []
    names = [base_name(f.get("function")) for f in frames]
    check(frames and frames[0].get("trust") == "context", "%s: frame 0 trust %r" % (tag, frames and frames[0].get("trust")))
    check(all(f.get("trust") in ("cfi", "scan") for f in frames[1:]), "%s: caller frames not marked cfi/scan %r"
          % (tag, [f.get("trust") for f in frames[1:]]))
    # ORC (the kernel's own unwind tables, read from the dump, and each module's from struct module):
    # 6.1 x86-64 kernels have them, so most caller frames are "cfi".
    check(sum(f.get("trust") == "cfi" for f in frames[1:]) * 2 >= len(frames[1:]),
          "%s: fewer than half the caller frames from ORC %r" % (tag, [f.get("trust") for f in frames[1:]]))
    if exp.get("kdump"):
        # The Oops registers start the walk: every frame is "cfi", module frames too (module ORC).
        bad = [i for i in range(1, len(frames)) if frames[i].get("trust") != "cfi"]
        check(not bad, "%s: frames %r not from ORC" % (tag, bad))
        check(crashed[0].get("stop_reason") == "reached the user-mode registers of the kernel entry",
              "%s: unwind stopped with %r" % (tag, crashed[0].get("stop_reason")))
    for fn in exp["frames"]:
        check(fn in names, "%s: %s not among the panic CPU's frames %r" % (tag, fn, names[:20]))
    if exp.get("kdump"):
        # kdump saves the Oops exception registers: frame 0 is the faulting instruction.
        check(names[:1] == ["ct_null_write"], "%s: frame 0 %r" % (tag, names[:1]))
    for t in threads:
        check(len(t.get("registers") or []) >= 20 if "registers" in t else True, "%s: CPU %d registers" % (tag, t["tid"]))

    # The kernel's own Call Trace, and how much of it the dump's stack scan found.
    trace = k.get("log_call_trace") or []
    check(len(trace) >= 3, "%s: log_call_trace %r" % (tag, trace))
    reliable = [base_name(re.split(r"[+ ]", l)[0]) for l in trace if not l.startswith("? ")]
    found = [fn for fn in reliable if fn in names]
    # ORC order: the log's reliable entries (module ones are unnamed frames here), less the leading ones
    # that had returned before the dump (dump_stack_lvl, dump_header), are a run of consecutive frames,
    # in order. Usually the outermost ones; but when the panic came from an exception taken in kernel
    # mode (an OOM raised by a page fault inside read_zero), the log prints the interrupted code as a
    # separate block, and the unwind rightly continues through the pt_regs frame into it.
    # Module frames are named from the module's own symbol table (struct module, through the dump's BTF).
    rel = [base_name(re.split(r"[+ ]", l)[0]) for l in trace if not l.startswith("? ")]
    while rel and rel[0] not in names[1:]:
        rel.pop(0)
    runs = [i for i in range(len(names) - len(rel) + 1) if rel and names[i:i + len(rel)] == rel]
    check(len(rel) >= 3 and runs, "%s: frames %r lack the log's Call Trace %r as a run" % (tag, names, rel))
    if exp.get("kdump"):
        check(names[1:] == rel, "%s: frames after frame 0 %r, log's Call Trace %r" % (tag, names[1:], rel))
    check(len(found) >= 0.7 * len(reliable), "%s: only %d of %d Call Trace functions in the unwound stack %r"
          % (tag, len(found), len(reliable), names[:25]))


def main():
    bin_, d, case = sys.argv[1:4]
    return run_manifest(d, case, lambda name, fmt, kver: check_dump(bin_, d, name, fmt, case, kver),
                        "scripts/make-vmcores")


sys.exit(main())
