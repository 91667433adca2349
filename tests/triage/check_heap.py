#!/usr/bin/env python3
"""glibc heap state (issue 24, docs/root-cause.md): for every hs-* case of testdata/cases.tsv whose
core exists, the verdict on the plain build's core must agree with AddressSanitizer on the same
program built with -fsanitize=address by the same compiler at the same level (the oracle:
heap-use-after-free -> use-after-free, attempting double-free -> heap-corruption/double-free), and
the heap section must name the chunk: free, in the bin the program put it in (tcache for the
use-after-free modes and dfree-tcache, fastbin for dfree-fastbin), with the chunk of a double free
said to sit there already.

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

ASAN_CLASS = {"heap-use-after-free": ("use-after-free", None), "double-free": ("heap-corruption", "double-free")}
BIN = {"uaf-read": "tcache", "uaf-list": "tcache", "dfree-tcache": "tcache", "dfree-fastbin": "fastbin"}


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
            want = ASAN_CLASS.get(oracle)
            got = (rep["crash"]["class"], rep["crash"].get("subclass"))
            if want is None:
                errs.append("ASan says %s: no mapping" % oracle)
            elif got != want:
                errs.append("class %s/%s, ASan says %s" % (got[0], got[1], oracle))
            heap = rep.get("heap")
            if not heap:
                errs.append("no heap section")
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
                print("ok   %s: ASan %s, %s, chunk %s in %s %s" % (case, oracle, got[0], heap["chunk"]["address"],
                                                              heap["bin"]["kind"], heap["bin"]["index"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not ran:
        print("no hs-* cores (or no compiler with ASan)")
        return 77
    print("%d hs cases, %d failures" % (ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
