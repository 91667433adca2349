#!/usr/bin/env python3
"""glibc heap state (issue 24, docs/root-cause.md): for every hs-* case of testdata/cases.tsv whose
core exists, the verdict on the plain build's core must agree with AddressSanitizer on the same
program built with -fsanitize=address by the same compiler at the same level (the oracle:
heap-use-after-free -> use-after-free, attempting double-free -> heap-corruption/double-free), and
the heap section must name the chunk: free, in the bin the program put it in (tcache for the
use-after-free modes and dfree-tcache, fastbin for dfree-fastbin), with the chunk of a double free
said to sit there already. Heap overflows (by 1 and by 100 bytes; ASan heap-buffer-overflow ->
heap-corruption/heap-overflow): the overrun chunk is `label` of run_overflow as gdb reads it on the
same core, followed by the overwritten header, with the written byte right past its end and `label`
named as its owner. tcache poisoning (ASan stops at the write after free: heap-use-after-free ->
heap-corruption/tcache-poisoning): tcache bin 1's entry is gdb's &decoy + 8, misaligned.

usage: check_heap.py CORETRIAGE CASES_TSV CORES_DIR SOURCE_DIR
Exit 0 when all pass, 1 on a failure, 77 when no hs-* core exists or no compiler builds with ASan.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ASAN_CLASS = {"heap-use-after-free": ("use-after-free", None), "double-free": ("heap-corruption", "double-free"),
              "heap-buffer-overflow": ("heap-corruption", "heap-overflow")}
# tcache-poison: ASan stops at the write into the freed chunk (heap-use-after-free, WRITE); the plain
# build runs on until malloc() meets the forged entry, which is what the core shows.
ASAN_MODE_CLASS = {("tcache-poison", "heap-use-after-free"): ("heap-corruption", "tcache-poisoning")}
BIN = {"uaf-read": "tcache", "uaf-write": "tcache", "uaf-list": "tcache", "dfree-tcache": "tcache", "dfree-fastbin": "fastbin"}
# What the byte right past the overrun chunk's usable end was written with.
OVERFLOW_BYTE = {"overflow-1": "00", "overflow-100": "41"}


def gdb_value(exe, core, expr, frame_fn=None):
    """An address from gdb on the same core (the oracle): `label` in run_overflow, &decoy."""
    if not shutil.which("gdb"):
        return None
    cmds = ["-ex", "set pagination off", "-ex", "bt"]
    r = subprocess.run(["gdb", "-nx", "-batch", *cmds, exe, core], capture_output=True, text=True, timeout=120)
    frame = None
    if frame_fn:
        m = re.search(r"^#(\d+) .* in %s \(" % re.escape(frame_fn), r.stdout, re.M)
        if not m:
            return None
        frame = m.group(1)
    cmds = ["-ex", "set pagination off"] + (["-ex", "frame %s" % frame] if frame else []) + ["-ex", "p/x (unsigned long)(%s)" % expr]
    r = subprocess.run(["gdb", "-nx", "-batch", *cmds, exe, core], capture_output=True, text=True, timeout=120)
    m = re.search(r"^\$1 = (0x[0-9a-f]+)", r.stdout, re.M)
    return int(m.group(1), 16) if m else None


def check_overflow(mode, rep, heap, exe, core, errs):
    ov = heap.get("overflow")
    if not ov:
        errs.append("no overflow named")
        return
    if heap["chunk"]["address"] != ov["chunk"]["address"] or heap["chunk"]["state"] != "in-use":
        errs.append("heap chunk %s (%s) is not the overrun chunk %s in use" % (heap["chunk"]["address"],
                    heap["chunk"]["state"], ov["chunk"]["address"]))
    if int(ov["header"], 16) != int(ov["chunk"]["address"], 16) + int(ov["chunk"]["size"], 16):
        errs.append("the overwritten header %s does not follow the chunk" % ov["header"])
    if ov["bytes_past_end"][:2] != OVERFLOW_BYTE[mode]:
        errs.append("bytes past the end %s, expected %s first" % (ov["bytes_past_end"][:8], OVERFLOW_BYTE[mode]))
    if not ov["owner"] or not ov["owner"].startswith("`label` (local of run_overflow"):
        errs.append("owner %s, expected `label` of run_overflow" % ov["owner"])
    label = gdb_value(exe, core, "label", "run_overflow")
    if label is not None and int(ov["chunk"]["address"], 16) != label - 16:
        errs.append("overrun chunk %s, gdb: label = %#x" % (ov["chunk"]["address"], label))


def check_poison(rep, heap, exe, core, errs):
    po = heap.get("poisoned")
    if not po:
        errs.append("no poisoned entry named")
        return
    if po["bin"] != "tcache" or po["index"] != 1 or po["reason"] != "not 16-byte aligned":
        errs.append("poisoned %s" % po)
    decoy = gdb_value(exe, core, "&decoy")
    if decoy is not None and int(po["pointer"], 16) != decoy + 8:
        errs.append("poisoned pointer %s, gdb: &decoy + 8 = %#x" % (po["pointer"], decoy + 8))
    if not any("tcache poisoning" in e for e in rep["crash"]["evidence"]):
        errs.append("no tcache-poisoning evidence")


def asan_verdict(cc, opt, mode, src, tmp):
    exe = os.path.join(tmp, "%s-%s" % (os.path.basename(cc), opt))
    if not os.path.exists(exe):
        r = subprocess.run([cc, "-g", opt, "-fsanitize=address", "-o", exe, src], capture_output=True, text=True)
        if r.returncode != 0:
            return None
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    r = subprocess.run([exe, mode], capture_output=True, text=True, env=env, timeout=60)
    m = re.search(r"ERROR: AddressSanitizer: (?:attempting )?([a-z-]+)", r.stderr)
    return m.group(1) if m else "none"


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    tool, tsv, cores, srcdir = sys.argv[1:]
    src = os.path.join(srcdir, "heapstate.c")
    ran = failed = 0
    tmp = tempfile.mkdtemp(prefix="ct-heap-")
    try:
        for row in open(tsv, encoding="utf-8"):
            cols = row.rstrip("\n").split("\t")
            if len(cols) < 6 or not cols[0].startswith("hs-"):
                continue
            case, flags, mode = cols[0], cols[2].split(), cols[3]
            core = os.path.join(cores, case, "core")
            if not os.path.exists(core):
                continue
            cc = next((f[3:] for f in flags if f.startswith("cc=")), "gcc")
            opt = next(f for f in flags if f.startswith("-O"))
            if not shutil.which(cc):
                continue
            oracle = asan_verdict(cc, opt, mode, src, tmp)
            if oracle is None:
                continue
            ran += 1
            out = subprocess.run([tool, "--no-abs-paths", "--format", "json", os.path.join(cores, case, "exe"), core],
                                 capture_output=True, text=True, timeout=120)
            rep = json.loads(out.stdout)
            errs = []
            want = ASAN_MODE_CLASS.get((mode, oracle), ASAN_CLASS.get(oracle))
            got = (rep["crash"]["class"], rep["crash"].get("subclass"))
            if want is None:
                errs.append("ASan says %s: no mapping" % oracle)
            elif got != want:
                errs.append("class %s/%s, ASan says %s" % (got[0], got[1], oracle))
            heap = rep.get("heap")
            exe = os.path.join(cores, case, "exe")
            if not heap:
                errs.append("no heap section")
            elif mode in OVERFLOW_BYTE:
                check_overflow(mode, rep, heap, exe, core, errs)
            elif mode == "tcache-poison":
                check_poison(rep, heap, exe, core, errs)
            else:
                if heap["chunk"]["state"] != "free":
                    errs.append("chunk state %s" % heap["chunk"]["state"])
                if not heap["bin"] or heap["bin"]["kind"] != BIN[mode]:
                    errs.append("bin %s, expected %s" % (heap["bin"], BIN[mode]))
                if heap["chunk"]["size"] not in ("0x20", "0x30"):
                    errs.append("chunk size %s" % heap["chunk"]["size"])
            if mode.startswith("dfree") and not any("already sits in" in e for e in rep["crash"]["evidence"]):
                errs.append("the double free's chunk is not named in the evidence")
            if errs:
                failed += 1
                print("FAIL %s: %s" % (case, "; ".join(errs)))
            else:
                where = "%s %s" % (heap["bin"]["kind"], heap["bin"]["index"]) if heap["bin"] else heap["role"]
                print("ok   %s: ASan %s, %s/%s, chunk %s (%s)" % (case, oracle, got[0], got[1], heap["chunk"]["address"], where))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not ran:
        print("no hs-* cores (or no compiler with ASan)")
        return 77
    print("%d hs cases, %d failures" % (ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
