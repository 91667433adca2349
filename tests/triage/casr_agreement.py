#!/usr/bin/env python3
"""coretriage against CASR's verdicts on the CASR cores (docs/casr-agreement.md).

usage: casr_agreement.py CORETRIAGE CASR_DIR [--markdown]
For each <arch>/<case>/ with expected.txt, runs coretriage --format json and maps CASR's
ShortDescription to the classes that mean the same (MAPPING below). Exits 1 when agreement falls
below MIN_AGREE (the number documented in docs/casr-agreement.md), 77 when the corpus is missing.
"""
import glob
import json
import os
import re
import subprocess
import sys

# CASR ShortDescription -> our classes that agree, and the access they imply (None: any).
MAPPING = {
    "AbortSignal": ({"abort"}, None),
    "BadInstruction": ({"illegal-instruction", "trap"}, None),
    "CallAv": ({"null-call", "exec-non-executable", "wild-pointer"}, "call"),
    "CallAvTainted": ({"null-call", "exec-non-executable", "wild-pointer"}, "call"),
    "DestAv": ({"wild-pointer", "write-to-readonly"}, "write"),
    "DestAvTainted": ({"wild-pointer", "write-to-readonly"}, "write"),
    "DestAvNearNull": ({"null-deref"}, "write"),
    "SourceAv": ({"wild-pointer"}, "read"),
    "SourceAvNearNull": ({"null-deref"}, "read"),
    "FPE": ({"divide-by-zero", "integer-overflow", "floating-point-exception"}, None),
    "StackGuard": ({"stack-buffer-overflow"}, None),
    "SafeFunctionCheck": ({"fortify-failure"}, None),
    "ReturnAv": ({"stack-corruption"}, None),
    "SegFaultOnPc": ({"stack-corruption", "wild-pointer", "exec-non-executable", "null-call"}, "exec"),
}
MIN_AGREE = 42


def access_ok(crash, want):
    """Class-level agreement is required; the access is checked only where we report one."""
    if want is None:
        return True
    details = crash.get("details") or {}
    if want == "call":
        return crash.get("access") in (None, "exec") or details.get("indirect_branch") is True
    if want == "exec":
        return crash.get("access") in (None, "exec")
    return crash.get("access") in (None, want)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tool, root = sys.argv[1], sys.argv[2]
    markdown = "--markdown" in sys.argv
    cases = sorted(glob.glob(os.path.join(root, "*", "*", "expected.txt")))
    if not cases:
        print("CASR corpus not found")
        return 77
    agree = total = 0
    rows = []
    for exp in cases:
        d = os.path.dirname(exp)
        name = os.path.relpath(d, root)
        text = open(exp, encoding="utf-8", errors="replace").read()
        m = re.search(r'ShortDescription"\] == "(\w+)"', text)
        casr = m.group(1) if m else None
        cores = glob.glob(os.path.join(d, "core.*"))
        exe = os.path.join(d, os.path.basename(d))
        if not cores:
            continue
        proc = subprocess.run([tool, "--format", "json", exe, cores[0]], capture_output=True, text=True,
                              timeout=120, check=False)
        try:
            crash = json.loads(proc.stdout)["crash"]
        except (ValueError, KeyError):
            crash = {"class": "(no report)", "confidence": "-", "summary": proc.stderr.strip()[:80]}
        if casr is None:
            verdict = "no CASR verdict"
        else:
            total += 1
            classes, want = MAPPING.get(casr, (set(), None))
            ok = crash.get("class") in classes and access_ok(crash, want)
            agree += ok
            verdict = "agree" if ok else "DISAGREE"
        rows.append((name, casr or "-", crash.get("class"), crash.get("access") or "-", crash.get("confidence"),
                     verdict, crash.get("summary", "")))
    if markdown:
        print("| case | CASR | coretriage | access | confidence | verdict |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print(f"| `{r[0]}` | {r[1]} | `{r[2]}` | {r[3]} | {r[4]} | {r[5]} |")
    else:
        for r in rows:
            print(f"{r[5]:16} {r[0]:34} CASR {r[1]:18} ours {r[2]:22} {r[3]:6} {r[4]:7} {r[6]}")
    print(f"agreement: {agree}/{total} cases with a CASR verdict")
    return 0 if agree >= MIN_AGREE else 1


if __name__ == "__main__":
    sys.exit(main())
