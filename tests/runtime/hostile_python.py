#!/usr/bin/env python3
"""Hostile CPython state (docs/runtimes.md "Limits"): the py-sleep-d core (21 thread states, python3.11d)
with one of its Python structures rewritten in a copy of the core, at the addresses gdb finds through
the interpreter's DWARF: a frame whose `previous` is itself, a thread-state list that loops, a line
table claiming 2^40 bytes, a name claiming 2^40 characters, an interpreter list pointing nowhere, and
a copy of the interpreter whose Py_Version says 3.12. Each run must finish within 10 s with exit 0 or
1 (never a crash), keep the runtime section when it can, and say what it cut with a runtime-* diagnostic.
Usage: hostile_python.py CORETRIAGE CORES_DIR WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

from corepatch import gdb_values, patch

TS = "_PyRuntime.interpreters.head->threads.head"
FRAME = TS + "->cframe->current_frame"


def main():
    binary, cores, work = sys.argv[1:4]
    src = os.path.join(cores, "py-sleep-d")
    exe, core = os.path.join(src, "exe"), os.path.join(src, "core")
    if not shutil.which("gdb") or not os.path.exists(core):
        print("gdb or the py-sleep-d core missing: skipped")
        return 77
    (runtime, ts, ts_next, frame, frame_prev, linetable_size, name_len, head,
     version) = gdb_values(exe, core, ["&_PyRuntime", TS, "&" + TS + "->next", FRAME, "&" + FRAME + "->previous",
                                       f"&((PyVarObject*){FRAME}->f_code->co_linetable)->ob_size",
                                       f"&((PyASCIIObject*){FRAME}->f_code->co_name)->length",
                                       "&_PyRuntime.interpreters.head", "&Py_Version"])
    # (name, [(address, value)], patch the exe instead of the core, what the report must say)
    cases = [
        ("frame-loop", [(frame_prev, frame)], False, "runtime-unreadable"),
        ("thread-loop", [(ts_next, ts)], False, "runtime-unreadable"),
        ("huge-linetable", [(linetable_size, 1 << 40)], False, "runtime-unreadable"),
        ("huge-name", [(name_len, 1 << 40)], False, "runtime-unreadable"),
        ("interpreters-nowhere", [(head, 0x6b6b6b6b6b6b0000)], False, "runtime-unreadable"),
        ("thread-state-nowhere", [(ts_next, 0x10)], False, "runtime-unreadable"),
        ("version-3.12", [(version, 0x030C00F0)], True, "runtime-no-layout"),
    ]
    failures = []
    os.makedirs(work, exist_ok=True)
    for name, writes, in_exe, code in cases:
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        c, e = os.path.join(d, "core"), os.path.join(d, "exe")
        shutil.copyfile(core, c)
        shutil.copyfile(os.path.realpath(exe), e)
        for addr, value in writes:
            patch(e if in_exe else c, addr, value)
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
        if code != "runtime-no-layout" and (not rt or (not rt["threads"] and name != "interpreters-nowhere")):
            failures.append(f"{name}: the runtime section is gone")
        if name == "thread-loop" and rt and len(rt["threads"]) > 21:
            failures.append(f"{name}: {len(rt['threads'])} thread states from a list of 21")
        if name == "frame-loop" and rt and not any(t["truncated"] for t in rt["threads"]):
            failures.append(f"{name}: no thread's Python stack is marked cut")
        if name == "huge-name" and rt and any(len(f["function"] or "") > 4096 for t in rt["threads"] for f in t["frames"]):
            failures.append(f"{name}: a name longer than 4096 bytes")
        print(f"{name}: exit {run.returncode}, {len(rt['threads']) if rt else 0} thread states, "
              f"{[x for x in codes if x.startswith('runtime')]}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases)} hostile variants, {len(failures)} failures")
    return 1 if failures else 0


sys.exit(main())
