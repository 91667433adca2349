#!/usr/bin/env python3
"""NT_PRSTATUS fields of every architecture against eu-readelf (docs/architectures.md).

    check_prstatus.py CORETRIAGE SHARED_DIR [CROSS_CORES_DIR] [--verbose]

For every core of the external corpus that has an eu-readelf-n.txt reference (eu-readelf -n, elfutils
0.188, recorded with the corpus) and, when given, every core made by scripts/make-cross-cores (eu-readelf
-n run here), `coretriage --format json CORE` must report, per NT_PRSTATUS note:

  tid        the threads' ids are the notes' pr_pid values
  signal     the crashing thread's signal is a note's pr_cursig (numbers that mips and sparc share with
             asm-generic only: theirs differ above 9)
  cpu time   each thread's user and system time are the note's pr_utime and pr_stime (microseconds)

eu-readelf reads the notes with elfutils' own per-architecture tables (backends/*_corenote.c), so this
checks our src/arch offsets (pr_pid, pr_cursig, pr_utime; 32/64-bit, both byte orders) against theirs.

Exit status: 0 all passed, 1 a check failed, 77 nothing to check. Last line: "N passed, N failed".
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_corpus  # noqa: E402  (decompression and file kinds shared with the corpus driver)

# Signal numbers that are the same on every Linux architecture (mips and sparc renumber the rest).
SHARED_SIGNALS = {1, 2, 3, 4, 5, 6, 8, 9, 11, 13, 14, 15}


def parse_readelf(text):
    """[(pid, cursig, utime_usec, stime_usec)] of the PRSTATUS notes (times None when not printed)."""
    out = []
    for block in re.split(r"\n\s+CORE\s+\d+\s+", text):
        if not block.startswith("PRSTATUS"):
            continue
        pid = re.search(r"\bpid: (\d+)", block)
        sig = re.search(r"\bcursig: (\d+)", block)
        tm = re.search(r"\butime: (\d+)\.(\d{6}), stime: (\d+)\.(\d{6})", block)
        if not pid:
            continue
        times = (None, None)
        if tm:
            times = (int(tm.group(1)) * 1000000 + int(tm.group(2)), int(tm.group(3)) * 1000000 + int(tm.group(4)))
        out.append((int(pid.group(1)), int(sig.group(1)) if sig else 0) + times)
    return out


def check(tool, core, notes, verbose):
    p = subprocess.run([tool, "--no-debuginfod", "--format", "json", core], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if p.returncode not in (0, 1):
        return None, []  # refused (unsupported architecture): corpus_no_crash covers it
    try:
        r = json.loads(p.stdout)
    except ValueError:
        return None, ["JSON does not parse"]
    if r.get("input", {}).get("kind") == "kdump-elf" or r.get("kernel"):
        return None, []  # a vmcore's notes are CPUs, not threads
    problems = []
    threads = {t.get("tid"): t for t in r.get("threads") or []}
    want = {n[0]: n for n in notes}
    if set(threads) != set(want):
        problems.append(f"tids {sorted(threads)}, notes say {sorted(want)}")
    for tid, n in want.items():
        t = threads.get(tid)
        if not t or n[2] is None:
            continue
        ct = t.get("cpu_time")
        if not ct:
            problems.append(f"thread {tid}: no cpu_time, notes say {n[2]}/{n[3]} us")
        elif (ct.get("user_usec"), ct.get("system_usec")) != (n[2], n[3]):
            problems.append(f"thread {tid}: cpu time {ct.get('user_usec')}/{ct.get('system_usec')} us, notes say {n[2]}/{n[3]}")
    crashed = [t for t in threads.values() if t.get("crashed")]
    sigs = {n[1] for n in notes}
    if crashed and crashed[0].get("signal") in SHARED_SIGNALS and crashed[0].get("signal") not in sigs:
        problems.append(f"crashing signal {crashed[0].get('signal')}, notes' cursig {sorted(sigs)}")
    if verbose:
        print(f"  {core}: {r.get('input', {}).get('arch')}, {len(notes)} threads")
    return r.get("input", {}).get("arch"), problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv or "--verbose" in sys.argv
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool, shared = args[0], args[1]
    cross = args[2] if len(args) > 2 else None
    root = os.path.join(shared, "corpus", "external")
    passed = failed = 0
    arches = {}
    with tempfile.TemporaryDirectory() as tmp:
        items = []
        if os.path.isdir(root):
            corpus = run_corpus.Corpus(root, tmp, 60)
            for case in corpus.cases():
                ref = os.path.join(root, case, "eu-readelf-n.txt")
                if not os.path.exists(ref):
                    continue
                d = corpus.materialize(case)
                cores = [p for p in corpus.files(case) if run_corpus.file_kind(p) == "core"]
                with open(ref, errors="replace") as f:
                    notes = parse_readelf(f.read())
                # The reference is for one core; cases with several cores are left to corpus_no_crash.
                if len(cores) == 1 and notes:
                    items.append((f"{case}/{os.path.basename(cores[0])}", cores[0], notes))
        if cross and os.path.isdir(cross):
            for name in sorted(os.listdir(cross)):
                core = os.path.join(cross, name, "core")
                if not os.path.exists(core):
                    continue
                p = subprocess.run(["eu-readelf", "-n", core], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=60)
                notes = parse_readelf(p.stdout.decode("utf-8", "replace"))
                if notes:
                    items.append((f"cross/{name}", core, notes))
        for label, core, notes in items:
            arch, problems = check(tool, core, notes, verbose)
            if arch is None and not problems:
                continue
            arches.setdefault(arch, [0, 0])
            for pr in problems:
                print(f"FAIL {label}: {pr}")
            if problems:
                failed += 1
                arches[arch][1] += 1
            else:
                passed += 1
                arches[arch][0] += 1
    if not passed and not failed:
        print("no cores with eu-readelf references: skipped")
        return 77
    print("per architecture (passed/failed): " + ", ".join(f"{a} {p}/{f}" for a, (p, f) in sorted(arches.items())))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
