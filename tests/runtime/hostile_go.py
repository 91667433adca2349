#!/usr/bin/env python3
"""Hostile Go runtime state (docs/runtimes.md "Go limits"): the go-deadlock core with one piece of
the runtime's state rewritten in a copy of the core (or of the executable), at the addresses gdb
finds through the binary's DWARF: runtime.allgs claiming 2^40 goroutines, a goroutine pointer
pointing nowhere, a goroutine whose saved sp points nowhere, a wait reason past the table, and an
executable whose pclntab claims 2^32-1 functions or whose function table sends one function's
entry outside the table. Each run must finish within 10 s with exit 0 or 1 (never a crash), keep
the runtime section when it can, and say what it cut with a runtime-* diagnostic.
Usage: hostile_go.py CORETRIAGE CORES_DIR WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

from corepatch import file_offset, gdb_values, patch, patch_at, section


def main():
    binary, cores, work = sys.argv[1:4]
    src = os.path.join(cores, "go-deadlock")
    exe, core = os.path.join(src, "exe"), os.path.join(src, "core")
    if not shutil.which("gdb") or not os.path.exists(core):
        print("gdb or the go-deadlock core missing: skipped")
        return 77
    allgs = "*(unsigned long*)&'runtime.allgs'"
    g4 = f"((unsigned long*){allgs})[4]"
    (allgs_at, slot4, g, sched_sp, waitreason) = gdb_values(exe, core, [
        "&'runtime.allgs'", f"&((unsigned long*){allgs})[4]", g4,
        f"&((struct 'runtime.g' *){g4})->sched.sp", f"&((struct 'runtime.g' *){g4})->waitreason"], "c")
    pcln_off, _ = section(exe, ".gopclntab")
    # (name, [(where, value, format)], patch the exe instead of the core, diagnostic, check)
    # where is a virtual address of the core, or for the exe a file offset.
    cases = [
        ("allgs-huge", [(allgs_at + 8, 1 << 40, "<Q")], False, "runtime-unreadable",
         lambda rt: rt["goroutines_truncated"]),
        ("goroutine-nowhere", [(slot4, 0x6b6b6b6b0000, "<Q")], False, "runtime-unreadable",
         lambda rt: rt["goroutines_truncated"] and sum(x["count"] for x in rt["goroutines"]) >= 7),
        ("sched-nowhere", [(sched_sp, 0x10, "<Q")], False, "runtime-unreadable",
         lambda rt: any(x["truncated"] for x in rt["goroutines"])),
        ("waitreason-past-table", [(waitreason, 200, "<B")], False, None,
         lambda rt: any(x["status"] == "waiting" and x["wait"] is None for x in rt["goroutines"])),
        ("pclntab-nfunc", [(pcln_off + 8, 0xffffffff, "<Q")], True, "runtime-no-layout", None),
        # The first function's _func offset (functab entry 0, after the 72-byte header and the
        # tables the header points to: written at the pcln offset the header gives).
        ("functab-outside", [("functab0", 0x7ffffff0, "<I")], True, None, lambda rt: True),
    ]
    with open(exe, "rb") as f:
        f.seek(pcln_off + 8 + 7 * 8)
        pcln_rel = int.from_bytes(f.read(8), "little")
    failures = []
    os.makedirs(work, exist_ok=True)
    for name, writes, in_exe, code, check in cases:
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        c, e = os.path.join(d, "core"), os.path.join(d, "exe")
        shutil.copyfile(core, c)
        shutil.copyfile(os.path.realpath(exe), e)
        for where, value, fmt in writes:
            if in_exe:
                off = pcln_off + pcln_rel + 4 if where == "functab0" else where
                patch_at(e, off, value, fmt)
            elif fmt == "<Q":
                patch(c, where, value)
            else:
                patch_at(c, file_offset(c, where), value, fmt)
        try:
            run = subprocess.run([binary, "--format=json", e, c], capture_output=True, text=True, timeout=10)
        except subprocess.TimeoutExpired:
            failures.append(f"{name}: over 10 s")
            continue
        if run.returncode not in (0, 1):
            failures.append(f"{name}: exit {run.returncode}: {run.stderr[-300:]}")
            continue
        report = json.loads(run.stdout)
        codes = [x["code"] for x in report["diagnostics"]]
        rt = report.get("runtime")
        if code and code not in codes:
            failures.append(f"{name}: no {code} diagnostic: {codes}")
        if code != "runtime-no-layout" and (not rt or rt.get("language") != "go"):
            failures.append(f"{name}: the runtime section is gone")
        elif check and rt and not check(rt):
            failures.append(f"{name}: the runtime section does not show the cut: {json.dumps(rt)[:400]}")
        n = sum(x["count"] for x in rt["goroutines"]) if rt and rt.get("goroutines") else 0
        print(f"{name}: exit {run.returncode}, {n} goroutines, {[x for x in codes if x.startswith('runtime')]}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases)} hostile variants, {len(failures)} failures")
    return 1 if failures else 0


sys.exit(main())
