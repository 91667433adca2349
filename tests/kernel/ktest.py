"""Shared parts of the vmcore test drivers: failure collection, console lines, the manifest loop."""
import mmap
import os
import re
import struct

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def report(what):
    """Prints the failures and "ok WHAT" or "FAIL WHAT"; the exit status (1 on a failure)."""
    for f in failures:
        print("  " + f)
    print("FAIL" if failures else "ok", what)
    return 1 if failures else 0


def strip_ts(line):
    """A kernel log or console line without its "[    1.234567] " timestamp."""
    return re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line.rstrip("\r"))


def run_manifest(d, case, check_dump, maker):
    """Calls check_dump(name, fmt, kver) for every dump of @case in d/manifest.tsv; returns the exit status
    (77 with CT_NO_VMCORE=1, 1 on a failure or a missing manifest: the fixture @maker should have made it)."""
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    manifest = os.path.join(d, "manifest.tsv")
    if not os.path.exists(manifest):
        print("FAIL: %s missing: %s did not run or failed" % (manifest, maker))
        return 1
    kver = open(os.path.join(d, "kernel-version")).read().strip()
    rows = [l.rstrip("\n").split("\t") for l in open(manifest)][1:]
    dumps = [(r[0], r[1]) for r in rows if len(r) == 3 and r[2] == case]
    if not dumps:
        print("FAIL: no dumps for %r in %s" % (case, manifest))
        return 1
    for name, fmt in dumps:
        n = len(failures)
        check_dump(name, fmt, kver)
        print("%s %s (%s)" % ("ok  " if len(failures) == n else "FAIL", name, fmt))
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


BTF_HEADER = b"\x9f\xeb\x01\x00\x18\x00\x00\x00"  # magic 0xeb9f, version 1, flags 0, hdr_len 24


def break_vmlinux_btf(dump):
    """Clears the magic of every vmlinux .BTF section in the dump file @dump (an uncompressed ELF dump);
    returns how many. The vmlinux BTF is megabytes long: its type section length (header word 4) says
    so. RAM may hold more than one copy (the boot decompressor's): all are broken."""
    broken = 0
    with open(dump, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        pos = m.find(BTF_HEADER)
        while pos >= 0:
            if struct.unpack_from("<I", m, pos + 12)[0] > 1 << 20:
                m[pos:pos + 2] = b"\x00\x00"
                broken += 1
            pos = m.find(BTF_HEADER, pos + 1)
    return broken
