#!/usr/bin/env python3
"""Runs coretriage over every core file of the external corpus (hostile-input check).

    run_corpus.py CORETRIAGE SHARED_DIR WORKDIR [--per-file-limit S]

Every file under SHARED_DIR/corpus/external that is an ELF core (e_type ET_CORE), a kdump/diskdump
or a core without ELF headers named like one (*.core, core.*) is analyzed once with --safe (the
dump's own paths are never opened), once as `coretriage EXE CORE` when the case ships an executable.
A file kept only compressed (.bz2/.zst/.gz) is decompressed into WORKDIR first.
Pass: exit status 0, 1 or 2; exit 2 prints exactly one line starting "coretriage: "; no
sanitizer report; each run finishes within the limit (2 s by default; more under sanitizers).
Exit 77 (skip) when the corpus is absent.
"""
import os
import resource
import subprocess
import sys
import time

COMPRESSED = {".bz2": ["bzip2", "-dc"], ".zst": ["zstd", "-dcq"], ".gz": ["gzip", "-dc"]}
SKIP_SUFFIXES = (".txt", ".md", ".expect", ".uu", ".py", ".c", ".h", ".S", ".cpp", ".json")
SANITIZER_MARKS = (b"ERROR: AddressSanitizer", b"ERROR: LeakSanitizer", b"runtime error:",
                   b"ERROR: UndefinedBehaviorSanitizer", b"AddressSanitizer:DEADLYSIGNAL")


def kind(path):
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return None
    if head[:4] == b"\x7fELF" and len(head) >= 18:
        be = head[5] == 2
        e_type = int.from_bytes(head[16:18], "big" if be else "little")
        return "core" if e_type == 4 else ("exe" if e_type in (2, 3) else None)
    if head[:8] in (b"KDUMP   ", b"DISKDUMP"):
        return "core"
    name = os.path.basename(path)
    if name.endswith(".core") or name.startswith("core.") or name == "core":
        return "core"  # e.g. a core cut before its ELF header: must still get a clear error
    return None


def decompress(path, workdir):
    for suf, cmd in COMPRESSED.items():
        if path.endswith(suf):
            plain = path[: -len(suf)]
            if os.path.exists(plain):
                return None  # the corpus already holds the plain copy
            out = os.path.join(workdir, os.path.relpath(plain, CORPUS).replace(os.sep, "__"))
            if not os.path.exists(out):
                try:
                    with open(out, "wb") as f:
                        subprocess.run(cmd + [path], stdout=f, check=True, timeout=120)
                except (OSError, subprocess.SubprocessError) as e:
                    print(f"note: cannot decompress {path}: {e}")
                    return None
            return out
    return None


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(argv, limit):
    # The limit is on the run's CPU time (the children's rusage; runs are sequential), which other
    # work on the machine does not inflate; a hang is still caught by the wall-clock timeout.
    c0 = child_cpu()
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=limit * 5)
    except subprocess.TimeoutExpired:
        return None, b"", b"", limit * 5
    return p.returncode, p.stdout, p.stderr, child_cpu() - c0


def check(argv, limit, label):
    rc, out, err, dt = run(argv, limit)
    problems = []
    if rc is None:
        problems.append(f"hang: killed after {dt:.0f} s")
    else:
        if rc not in (0, 1, 2):
            problems.append(f"exit status {rc}")
        if any(m in err for m in SANITIZER_MARKS):
            problems.append("sanitizer report")
        if rc == 2:
            lines = err.decode(errors="replace").splitlines()
            if len(lines) != 1 or not lines[0].startswith("coretriage: "):
                problems.append("exit 2 without exactly one 'coretriage: ' line on stderr")
        if dt > limit:
            problems.append(f"took {dt:.2f} s (limit {limit} s)")
    status = "FAIL" if problems else "ok"
    print(f"{status:4} rc={rc} {dt:5.2f}s {label}" + (": " + "; ".join(problems) if problems else ""))
    if problems:
        sys.stdout.write(err.decode(errors="replace")[-3000:])
    return not problems


def main():
    global CORPUS
    args = sys.argv[1:]
    limit = 2.0
    if "--per-file-limit" in args:
        i = args.index("--per-file-limit")
        limit = float(args[i + 1])
        del args[i : i + 2]
    if len(args) != 3:
        print(__doc__)
        return 2
    bin_, shared, workdir = args
    CORPUS = os.path.join(shared, "corpus", "external")
    if not os.path.isdir(CORPUS):
        print(f"SKIP: external corpus not found at {CORPUS} (set CT_SHARED_DIR)")
        return 77
    os.makedirs(workdir, exist_ok=True)
    cores, failures = 0, 0
    for root, dirs, files in os.walk(CORPUS):
        dirs.sort()
        files.sort()
        exes = [os.path.join(root, f) for f in files if kind(os.path.join(root, f)) == "exe"]
        for f in files:
            path = os.path.join(root, f)
            if f.endswith(SKIP_SUFFIXES):
                continue
            plain = decompress(path, workdir) if f.endswith(tuple(COMPRESSED)) else path
            if not plain or kind(plain) != "core":
                continue
            cores += 1
            rel = os.path.relpath(path, CORPUS)
            env_argv = [bin_, "--safe", "--format=json", plain]
            failures += not check(env_argv, limit, rel + " (--safe)")
            if exes:
                failures += not check([bin_, "--no-debuginfod", exes[0], plain], limit, rel + " + " + os.path.basename(exes[0]))
    print(f"{cores} core files, {failures} failures")
    if cores == 0:
        print("SKIP: no core files found in the corpus")
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
