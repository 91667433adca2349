#!/usr/bin/env python3
"""Cut and foreign vmcores from the external corpus must give a clear error or a partial report, never a
crash: the 16 KiB head of a real x86_64 /proc/vmcore (elfutils testfile62, notes only, no memory) and two
20 KiB kdump-compressed headers (libkdumpfile diskdump-v6-arm and -ia32).

usage: check_heads.py CORETRIAGE SHARED_DIR
"""
import json
import os
import subprocess
import sys

HEADS = [
    # file, input.kind, release from VMCOREINFO/utsname (None: libkdumpfile cannot read it)
    ("corpus/external/elfutils/testfile62/testfile62", "kdump-elf", "2.6.35.11-83.fc14.x86_64"),
    ("corpus/external/libkdumpfile/diskdump-v6-arm/diskdump-v6-arm", "kdump-compressed", None),
    ("corpus/external/libkdumpfile/diskdump-v6-ia32/diskdump-v6-ia32", "kdump-compressed", "6.4.3-1-pae"),
]


def main():
    bin_, shared = sys.argv[1:3]
    if not os.path.isdir(os.path.join(shared, "corpus", "external")):
        print("SKIP: no external corpus at %s (it lives in ../shared beside the checkout)" % shared)
        return 77
    failures = []
    for rel, kind, release in HEADS:
        path = os.path.join(shared, rel)
        if not os.path.exists(path):
            failures.append("%s: missing from shared/" % rel)
            continue
        for fmt in ("json", "text"):
            p = subprocess.run([bin_, "--format", fmt, path], capture_output=True, text=True, timeout=60)
            # 0 complete, 1 partial, 2 fatal with a message; a negative status is a signal (a crash).
            if p.returncode not in (0, 1, 2):
                failures.append("%s (%s): exit status %d %s" % (rel, fmt, p.returncode, p.stderr[-300:]))
                continue
            if p.returncode == 2:
                if not p.stderr.strip() or "not an ELF" in p.stderr:
                    failures.append("%s (%s): unclear error %r" % (rel, fmt, p.stderr))
                continue
            if fmt != "json":
                continue
            j = json.loads(p.stdout)
            if j["input"]["kind"] != kind:
                failures.append("%s: input.kind %r, want %r" % (rel, j["input"]["kind"], kind))
            if release and (j.get("kernel") or {}).get("release") != release:
                failures.append("%s: release %r, want %r" % (rel, (j.get("kernel") or {}).get("release"), release))
            if not j.get("warnings") and not j.get("diagnostics"):
                failures.append("%s: a head-only dump must say what is missing" % rel)
        print("%s %s" % ("FAIL" if failures else "ok  ", rel))
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


sys.exit(main())
