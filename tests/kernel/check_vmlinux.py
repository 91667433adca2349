#!/usr/bin/env python3
"""`coretriage VMLINUX VMCORE` must refuse a vmlinux whose build-id differs from the vmcore's
VMCOREINFO BUILD-ID: symbols of another build would name the wrong functions. A real debug vmlinux is an
859 MB package (docs/vmcore.md), so the matching path is not run here; any ELF file with another build-id
stands in for the wrong vmlinux.

usage: check_vmlinux.py CORETRIAGE VMCORE_DIR
"""
import os
import subprocess
import sys


def main():
    bin_, d = sys.argv[1:3]
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    failures = []
    wrong = bin_  # the coretriage binary itself: an ELF file with a GNU build-id that is not the kernel's
    for dump in ("kdump-oops.zlib", "qemu-sysrq.elf"):
        path = os.path.join(d, dump)
        if not os.path.exists(path):
            failures.append("%s: missing (vmcore generation failed?)" % dump)
            continue
        p = subprocess.run([bin_, "--format", "json", wrong, path], capture_output=True, text=True, timeout=60)
        if p.returncode != 2:
            failures.append("%s: exit status %d with a mismatching vmlinux, want 2" % (dump, p.returncode))
        if "build-id" not in p.stderr or "does not match" not in p.stderr:
            failures.append("%s: error does not explain the build-id mismatch: %r" % (dump, p.stderr))
        print("%s %s: %s" % ("FAIL" if failures else "ok  ", dump, p.stderr.strip()))
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


sys.exit(main())
