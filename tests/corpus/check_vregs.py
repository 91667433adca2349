#!/usr/bin/env python3
"""Float and vector registers read from real cores' notes against eu-readelf (docs/unwinding.md).

    check_vregs.py PRINT_VREGS SHARED_DIR [CORES_DIR]

Every core of the external corpus and of CORES_DIR (the test cores made by scripts/make-cores) whose
NT_FPREGSET eu-readelf prints (elfutils' own tables) for an architecture whose table has float registers
(aarch64 v0-v31, x86-64 xmm0-xmm15) is read by
PRINT_VREGS (tests/unit/print_vregs.c, coretriage's dump/vregs.c through the src/arch tables); each
register of each thread must hold the value eu-readelf prints (x86-64: the low 128 bits, the xmm
part of a ymm value). This checks the layout of the float argument values of frame 0 (values/).

Exit status: 0 all equal, 1 a difference, 77 nothing to check. Last line: "N cores, N registers".
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_corpus  # noqa: E402

# The architectures whose src/arch tables lay out float/vector registers (eu-readelf's "Machine:"
# line), with eu-readelf's register name prefix and the DWARF number of register 0 of that kind.
# The others (i386's xmm in NT_PRXFPREG, arm's VFP, …) are not read: their values stay unknown.
MACHINES = {"AARCH64": ("v", 64), "AMD x86-64": ("xmm", 17)}


def machine(core):
    p = subprocess.run(["eu-readelf", "-h", core], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    m = re.search(r"Machine:\s+(.*)", p.stdout.decode("utf-8", "replace"))
    return m.group(1).strip() if m else None


def readelf_vregs(core, kind):
    """{(tid, dwarf number): int} of the FPREGSET notes, each tied to the PRSTATUS before it."""
    prefix, first = kind
    p = subprocess.run(["eu-readelf", "-n", core], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    out, tid = {}, None
    block = None
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        m = re.match(r"\s+CORE\s+\d+\s+(\w+)", line)
        if m:
            block = m.group(1)
            continue
        if block == "PRSTATUS":
            m = re.search(r"\bpid: (\d+)", line)
            if m:
                tid = int(m.group(1))
        elif block == "FPREGSET" and tid is not None:
            for num, value in re.findall(r"\b%s(\d+):\s+0x([0-9a-f]+)" % prefix, line):
                out[(tid, first + int(num))] = int(value, 16)
    return out


def ours(printer, core):
    p = subprocess.run([printer, core], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    regs = {}
    for line in p.stdout.decode().splitlines():
        tid, regno, value = line.split()
        regs.setdefault((int(tid), int(regno)), int(value, 16))
    return regs


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    printer, shared = sys.argv[1], sys.argv[2]
    cores_dir = sys.argv[3] if len(sys.argv) > 3 else None
    root = os.path.join(shared, "corpus", "external")
    failures, cores, compared = [], 0, 0
    per_machine = {}
    with tempfile.TemporaryDirectory() as tmp:
        items = []
        if os.path.isdir(root):
            corpus = run_corpus.Corpus(root, tmp, 60)
            for case in corpus.cases():
                corpus.materialize(case)
                items += [(f"{case}/{os.path.basename(c)}", c) for c in corpus.files(case)
                          if run_corpus.file_kind(c) == "core"]
        if cores_dir and os.path.isdir(cores_dir):
            for name in sorted(os.listdir(cores_dir)):
                core = os.path.join(cores_dir, name, "core")
                if os.path.isfile(core):
                    items.append((f"cores/{name}", core))
        for label, core in items:
            kind = MACHINES.get(machine(core))
            if not kind:
                continue
            want = readelf_vregs(core, kind)
            if not want:
                continue
            have = ours(printer, core)
            cores += 1
            per_machine[kind[0]] = per_machine.get(kind[0], 0) + 1
            for key, value in sorted(want.items()):
                compared += 1
                got = have.get(key)
                if got is None:
                    failures.append(f"{label}: thread {key[0]} register {key[1]} not read, eu-readelf {value:#x}")
                elif got & ((1 << 128) - 1) != value:
                    failures.append(f"{label}: thread {key[0]} register {key[1]} = {got:#x}, eu-readelf {value:#x}")
    for f in failures[:50]:
        print("FAIL " + f)
    print("cores per register kind: " + ", ".join(f"{k} {n}" for k, n in sorted(per_machine.items())))
    print(f"{cores} cores, {compared} registers compared with eu-readelf, {len(failures)} differences")
    if not cores:
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
