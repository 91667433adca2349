#!/usr/bin/env python3
"""Property tests of coretriage on real cross-architecture cores (docs/architectures.md).

    check_cross.py CORETRIAGE CORES_DIR ARCH [--verbose]

For every case of tests/cross/cases.tsv, CORES_DIR/<ARCH>-<case>/{exe,core} (made by
scripts/make-cross-cores) is analyzed with `coretriage --format json` and as text, and:

  load       exit status 0 or 1, the JSON parses, input.arch is ARCH
  class      the crash class is one of the case's classes (an "arch:class" entry applies to ARCH only)
  unwind     the crashme.c functions of the crashing thread start with the case's chain, in order
             (the "qemu_chain" column when the core was written by qemu-user)
  symbolize  frame #0 has a function and a crashme.c line
  triage     the faulting instruction was decoded (architectures with a capstone decoder)
  width      text frames print 2 hex digits per byte of the architecture's pointer
Expectations come from the program's source (testdata/src/crashme.c), not from coretriage.

Exit status: 0 all passed, 1 a check failed, 77 no core of ARCH (its cross compiler or qemu-user is
missing, as make-cross-cores said). The last line is "ARCH: N passed, N failed".
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
POINTER_BYTES = {"ppc": 4, "aarch64": 8, "arm": 4, "s390x": 8, "ppc64le": 8, "ppc64": 8, "mips": 4, "i386": 4}
NO_DECODER = {"riscv64"}  # capstone 4 has no RISC-V


def table(name):
    rows = []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                rows.append(line.split("\t"))
    return rows


def cc_of(arch):
    for row in table("arches.tsv"):
        if row[0] == arch:
            return row[1]
    return ""


def runner_of(arch):
    for row in table("arches.tsv"):
        if row[0] == arch:
            return row[2]
    return None


def accepted(classes, arch):
    out = set()
    for c in classes.split(","):
        if ":" in c:
            a, c = c.split(":", 1)
            if a != arch:
                continue
        out.add(c)
    return out


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def qemu_chain_of(row, arch, chain):
    """The qemu_chain column: "-" (= chain), a chain, or "arch=chain" entries for single architectures."""
    col = row[4] if len(row) > 4 else "-"
    default = chain
    for entry in col.split(";"):
        entry = entry.strip()
        if "=" in entry:
            a, c = entry.split("=", 1)
            if a == arch:
                return c
        elif entry and entry != "-":
            default = entry
    return default


def check_case(tool, d, arch, row, verbose):
    name, _mode, classes, chain = row[:4]
    qemu_chain = qemu_chain_of(row, arch, chain)
    source = (row[5] if len(row) > 5 and row[5] else "crashme") + ".c"
    dynamic = len(row) > 6 and row[6] == "dynamic"
    if dynamic and runner_of(arch) == "native":
        return None  # the host kernel's core has NT_FILE: not what the dynamic cases test
    exe, core = os.path.join(d, "exe"), os.path.join(d, "core")
    problems = []
    sysroot = ["--sysroot", "/usr/" + cc_of(arch)[: -len("-gcc")]] if dynamic else []
    rc, out = run([tool, "--no-debuginfod", "--format", "json"] + sysroot + [exe, core])
    if rc not in (0, 1):
        return [f"load: exit status {rc}"]
    try:
        r = json.loads(out)
    except ValueError as e:
        return [f"load: JSON does not parse ({e})"]
    if r.get("input", {}).get("arch") != arch:
        problems.append(f"load: input.arch is {r.get('input', {}).get('arch')!r}")
    cls = (r.get("crash") or {}).get("class")
    if cls not in accepted(classes, arch):
        problems.append(f"class: {cls!r}, expected one of {sorted(accepted(classes, arch))}")
    threads = r.get("threads") or []
    crashed = [t for t in threads if t.get("crashed")] or threads
    frames = crashed[0].get("frames", []) if crashed else []
    own = [f.get("function") for f in frames if (f.get("file") or "").endswith(source)]
    want = [x.strip() for x in (qemu_chain if runner_of(arch) != "native" else chain).split("<-")]
    if want != ["?"] and own[: len(want)] != want:
        problems.append(f"unwind: {source} frames {' <- '.join(map(str, own[:6]))}, expected {' <- '.join(want)}")
    if dynamic:
        # The libraries come from the link_map in the dump, opened under --sysroot (no NT_FILE).
        libc = [f.get("function") for f in frames if f.get("module") == "libc.so.6"]
        if "abort" not in libc:
            problems.append(f"sysroot: libc.so.6 frames {libc[:6]}, expected abort among them")
        mods = [m for m in r.get("modules") or [] if m.get("name") == "libc.so.6"]
        if not mods or not (mods[0].get("file") or "").startswith(sysroot[1] + "/"):
            problems.append(f"sysroot: libc.so.6 file {mods[0].get('file') if mods else None!r}, expected under {sysroot[1]}")
    top = [f for f in frames if (f.get("file") or "").endswith(source)]
    if not top or not top[0].get("line"):
        problems.append(f"symbolize: no {source} frame with a line")
    if arch not in NO_DECODER and name in ("null-read", "null-write"):
        if not any(l.get("is_pc") and l.get("text") for l in r.get("disassembly") or []):
            problems.append("triage: the faulting instruction was not decoded")
    rc, text = run([tool, "--no-debuginfod"] + sysroot + [exe, core])
    m = re.search(r"^\s+#0\s+0x([0-9a-f]+) ", text, re.M)
    width = 2 * POINTER_BYTES.get(arch, 8)
    if not m or len(m.group(1)) != width:
        problems.append(f"width: frame #0 address {m.group(1) if m else None!r}, expected {width} hex digits")
    if verbose:
        print(f"  {arch}-{name}: class {cls}; frames {' '.join(str(f.get('function')) for f in frames[:8])}")
    return problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "--verbose" in sys.argv or "-v" in sys.argv
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, cores, arch = args
    cases = table("cases.tsv")
    dirs = [(row, os.path.join(cores, f"{arch}-{row[0]}")) for row in cases
            if not (len(row) > 6 and row[6] == "dynamic" and runner_of(arch) == "native")]
    if not any(os.path.exists(os.path.join(d, "core")) for _, d in dirs):
        print(f"{arch}: no cross cores in {cores} (cross compiler or qemu-user missing?): skipped")
        return 77
    passed = failed = 0
    for row, d in dirs:
        if not os.path.exists(os.path.join(d, "core")):
            print(f"FAIL {arch}-{row[0]}: no core (make-cross-cores could not make it)")
            failed += 1
            continue
        problems = check_case(tool, d, arch, row, verbose)
        if problems is None:
            continue
        for p in problems:
            print(f"FAIL {arch}-{row[0]}: {p}")
        if problems:
            failed += 1
        else:
            passed += 1
    print(f"{arch}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
