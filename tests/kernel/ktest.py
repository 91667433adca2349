"""Shared parts of the vmcore test drivers: failure collection, console lines, the manifest loop."""
import os
import re

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


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
