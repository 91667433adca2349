#!/usr/bin/env python3
"""Property tests of coretriage on the real arm64 vmcores of scripts/make-vmcores-aarch64.

usage: check_aarch64.py CORETRIAGE VMCORE_DIR CASE
CASE is a crash of the directory's manifest.tsv (sysrq, oops). Every dump of that crash is analyzed;
the oracle is the guest's own serial console (CPU/PID/comm line, panic line, pc line, Call trace):
- ELF (QEMU dump-guest-memory): architecture, release, class, panic message, culprit, panic CPU, task,
  the log tail, and the panic CPU's stack unwound by frame records with kallsyms names, which must hold
  the console's Call trace as a run of consecutive frames.
- kdump (QEMU's kdump-zlib, flattened): QEMU 7.2 writes arm64 ones with 64 KiB blocks for the 4 KiB
  kernel, which libkdumpfile 0.5.1 cannot read memory from: the architecture (from VMCOREINFO, the
  header says "Unknown"), release and both CPUs' registers must be there, with the one warning that says why.

Exit 0 when all checks pass, 1 on a failure, 77 (skip) only when CT_NO_VMCORE=1.
"""
import json
import os
import re
import subprocess
import sys

from ktest import check, run_manifest, strip_ts

EXPECT = {
    "sysrq": {"class": "kernel-sysrq-crash"},
    "oops": {"class": "kernel-null-deref", "address": "0x10", "access": "write", "module": "ct_null"},
}
# Entries of the console's Call trace that ran before the dump and returned (the trace printer itself).
PRINTER = {"dump_backtrace", "show_stack", "dump_stack_lvl", "dump_stack"}

def console_facts(path):
    lines = [strip_ts(l) for l in open(path, errors="replace").read().splitlines()]
    facts = {"lines": set(lines), "trace": [], "cpu": None, "panic": None, "pc": None}
    for i, l in enumerate(lines):
        m = re.match(r"CPU: (\d+) PID: (\d+) Comm: (\S+)", l)
        if m and facts["cpu"] is None:
            facts["cpu"] = (int(m.group(1)), int(m.group(2)), m.group(3))
        if l.startswith("Kernel panic - not syncing: ") and facts["panic"] is None:
            facts["panic"] = l
        m = re.match(r"pc : (\S+?)\+", l)
        if m and facts["pc"] is None:
            facts["pc"] = m.group(1)
        if l == "Call trace:" and not facts["trace"]:
            for t in lines[i + 1:]:
                m = re.match(r"\s+(\S+?)\+0x[0-9a-f]+/0x[0-9a-f]+", t)
                if not m:
                    break
                facts["trace"].append(m.group(1))
    return facts


def run(bin_, path):
    p = subprocess.run([bin_, "--format", "json", path], capture_output=True, text=True)
    if not check(p.returncode in (0, 1), "%s: exit status %d: %s" % (path, p.returncode, p.stderr.strip())):
        return None
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        check(False, "%s: output is not JSON: %s" % (path, e))
        return None


def check_common(tag, j, kver):
    k = j.get("kernel") or {}
    check(j["input"].get("arch") == "aarch64", "%s: arch %r" % (tag, j["input"].get("arch")))
    check(k.get("release") == kver, "%s: release %r, want %r" % (tag, k.get("release"), kver))
    threads = j.get("threads") or []
    check(sorted(t["tid"] for t in threads) == [0, 1], "%s: CPUs %r" % (tag, [t["tid"] for t in threads]))
    for t in threads:
        regs = t.get("registers") or {}
        check(len(regs) == 34 and "x29" in regs and "pc" in regs and "sp" in regs,
              "%s: CPU %d registers %r" % (tag, t["tid"], sorted(regs)[:5]))
    return k, threads


def check_elf(tag, j, exp, con, kver):
    k, threads = check_common(tag, j, kver)
    crash = j.get("crash") or {}
    # QEMU writes no "QEMU" note for arm guests: its VMCOREINFO without CRASHTIME tells (docs/vmcore.md).
    check(j["input"]["kind"] == "qemu-elf", "%s: input.kind %r" % (tag, j["input"]["kind"]))
    check(crash.get("class") == exp["class"], "%s: class %r, want %r" % (tag, crash.get("class"), exp["class"]))
    check(k.get("panic_message") == con["panic"], "%s: panic_message %r, console %r" % (tag, k.get("panic_message"), con["panic"]))
    if "address" in exp:
        check(crash.get("address") == exp["address"], "%s: crash.address %r" % (tag, crash.get("address")))
        check(crash.get("access") == exp["access"], "%s: crash.access %r" % (tag, crash.get("access")))
        mods = [m.split("(")[0] for m in k.get("modules_linked_in") or []]
        check(exp["module"] in mods, "%s: modules_linked_in %r" % (tag, mods))
    details = crash.get("details") or {}
    if con["pc"]:
        check(details.get("culprit_function") == con["pc"], "%s: culprit %r, console pc %r" % (tag, details.get("culprit_function"), con["pc"]))
    if check(con["cpu"] is not None, "%s: no CPU line on the console" % tag):
        cpu, pid, comm = con["cpu"]
        check(k.get("panic_cpu") == cpu, "%s: panic_cpu %r, console %d" % (tag, k.get("panic_cpu"), cpu))
        check(k.get("pid") == pid and k.get("comm") == comm, "%s: pid/comm %r/%r, console %d/%s" % (tag, k.get("pid"), k.get("comm"), pid, comm))
    log = (k.get("log") or "").splitlines()
    check(len(log) > 100 and any("Linux version " + kver in l for l in log[:5]), "%s: kernel log (%d lines)" % (tag, len(log)))
    tail = [strip_ts(l) for l in log[-15:] if strip_ts(l).strip()]
    missing = [l for l in tail if l not in con["lines"] and not l.startswith("coretriage:")]
    check(not missing, "%s: log tail lines not on the console: %r" % (tag, missing[:3]))
    # The panic CPU: first, crashed, unwound through frame records with kallsyms names.
    if not check(threads and threads[0].get("crashed") and threads[0]["tid"] == k.get("panic_cpu"),
                 "%s: crashed thread %r" % (tag, [(t["tid"], t.get("crashed")) for t in threads])):
        return
    frames = threads[0].get("frames") or []
    names = [(f.get("function") or "").split(".")[0] for f in frames]
    check(frames and frames[0].get("trust") == "context", "%s: frame 0 trust" % tag)
    check(len(frames) > 5 and all(f.get("trust") == "frame-pointer" for f in frames[1:]),
          "%s: caller frames %r" % (tag, [f.get("trust") for f in frames[1:]]))
    check(threads[0].get("stop_reason") == "end of stack (final frame record)",
          "%s: stop reason %r" % (tag, threads[0].get("stop_reason")))
    # The console's Call trace, less the printer's own frames and the panic() caller the kernel names by
    # its return address (a noreturn call's return address is the next function: "+0x0/"), is a run.
    want = [n.split(".")[0] for n in con["trace"] if n not in PRINTER]
    want = [n for i, n in enumerate(want) if not (i > 0 and want[i - 1] == "panic")]
    if "panic" in want:
        want = want[want.index("panic") + 1:]
    runs = [i for i in range(len(names) - len(want) + 1) if want and names[i:i + len(want)] == want]
    check(len(want) >= 8 and runs, "%s: frames %r lack the console's Call trace %r as a run" % (tag, names, want))
    if "address" in exp:
        check(details.get("culprit_function") in names, "%s: culprit not among the frames" % tag)


def check_kdump(tag, j, kver):
    k, threads = check_common(tag, j, kver)
    check(j["input"]["kind"] == "kdump-flattened", "%s: input.kind %r" % (tag, j["input"]["kind"]))
    codes = [d.get("code") for d in j.get("diagnostics") or []]
    check("arch-from-vmcoreinfo" in codes and "kdump-block-size" in codes, "%s: diagnostics %r" % (tag, codes))


def main():
    bin_, d, case = sys.argv[1:4]

    def check_dump(name, fmt, kver):
        j = run(bin_, os.path.join(d, name))
        if j is not None and fmt.startswith("kdump"):
            check_kdump(name, j, kver)
        elif j is not None:
            check_elf(name, j, EXPECT[case], console_facts(os.path.join(d, "qemu-%s.console" % case)), kver)

    return run_manifest(d, case, check_dump, "scripts/make-vmcores-aarch64")


sys.exit(main())
