#!/usr/bin/env python3
"""`coretriage VMLINUX VMCORE` with the real debug vmlinux of the dumped kernel: the build-id is
accepted and the panic CPU's kernel frames get DWARF file:line (the frames of the module that
crashed come from kallsyms: its debug file is not fetched), and inlined calls become frames of their
own: on the kdump-oops dumps at least one inlined=true frame (do_syscall_x64 in do_syscall_64,
mmap_read_unlock in do_user_addr_fault, ...) is followed by its non-inlined caller at the same pc,
every inlined frame has a function name, and no inline frame appears without a vmlinux.

With `--debug-dir VMCORE_DIR` (scripts/make-vmcores keeps the built ct_null.ko there) the frames of
the module get the .ko's DWARF too: ct_null_write (and, on kdump-oops, ct_null_init in .init.text,
which has no kallsyms name in the dump) at ct_null.c:LINE. Caches made before the .ko was kept skip
that check.

usage: check_vmlinux_dwarf.py CORETRIAGE VMCORE_DIR
"""
import json
import os
import subprocess
import sys


def main():
    bin_, d = sys.argv[1:3]
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    kver = open(os.path.join(d, "kernel-version")).read().strip()
    vmlinux = os.path.join(d, "vmlinux-" + kver)
    if not os.path.exists(vmlinux):
        print("FAIL: %s missing (scripts/fetch-debug-vmlinux failed?)" % vmlinux)
        return 1
    failures, checked = [], 0
    for dump in ("kdump-oops.zlib", "kdump-oops.vmcore", "qemu-oops.elf"):
        path = os.path.join(d, dump)
        p = subprocess.run([bin_, "--format", "json", vmlinux, path], capture_output=True, text=True, timeout=120)
        if p.returncode not in (0, 1):
            failures.append("%s: exit %d: %s" % (dump, p.returncode, p.stderr.strip()))
            continue
        r = json.loads(p.stdout)
        crashed = [t for t in r["threads"] if t["crashed"]]
        frames = crashed[0]["frames"] if crashed else []
        with_lines = [f for f in frames if f.get("module") == "vmlinux" and f.get("file") and f.get("line")]
        names = [f["function"] for f in frames]
        ok = len(with_lines) >= 3 and "do_one_initcall" in names and \
            any(f["function"] == "do_one_initcall" and f["file"].endswith("init/main.c") for f in with_lines)
        if not ok:
            failures.append("%s: kernel frames without DWARF lines: %r" % (dump, [(f["function"], f.get("file"), f.get("line")) for f in frames]))
        inl_ok = True
        for i, f in enumerate(frames):
            if f.get("inlined") and not f.get("function"):
                inl_ok = False
                failures.append("%s: inlined frame #%d without a function name" % (dump, i))
            if f.get("inlined") and (i + 1 >= len(frames) or frames[i + 1]["pc"] != f["pc"]):
                inl_ok = False
                failures.append("%s: inlined frame #%d (%s) not followed by a frame at its pc" % (dump, i, f.get("function")))
        pairs = [(f["function"], frames[i + 1]["function"]) for i, f in enumerate(frames[:-1])
                 if f.get("inlined") and not frames[i + 1].get("inlined") and frames[i + 1].get("function")]
        if dump.startswith("kdump-oops") and not pairs:
            inl_ok = False
            failures.append("%s: no inlined frame followed by its non-inlined caller: %r" %
                            (dump, [(f["function"], f.get("inlined")) for f in frames]))
        ok = ok and inl_ok
        if any("build-id" in w for w in r["warnings"]):
            failures.append("%s: build-id warning with the matching vmlinux: %r" % (dump, r["warnings"]))
        checked += 1
        print("%s %s: %d of %d frames with file:line, inlined: %s" %
              ("ok  " if ok else "FAIL", dump, len(with_lines), len(frames),
               ", ".join("%s in %s" % p for p in pairs) or "none"))
    # Without the vmlinux there is no DWARF: no inline frames may appear.
    p = subprocess.run([bin_, "--format", "json", os.path.join(d, "kdump-oops.zlib")], capture_output=True, text=True,
                       timeout=120)
    if p.returncode in (0, 1):
        r = json.loads(p.stdout)
        if any(f.get("inlined") for t in r["threads"] for f in t["frames"]):
            failures.append("kdump-oops.zlib without vmlinux: inlined frames")
    else:
        failures.append("kdump-oops.zlib without vmlinux: exit %d: %s" % (p.returncode, p.stderr.strip()))
    checked += 1
    # Module frames with --debug-dir: the .ko from the same make-vmcores run.
    if not os.path.exists(os.path.join(d, "ct_null.ko")):
        print("skip --debug-dir: %s has no ct_null.ko (cache made before make-vmcores kept it)" % d)
    else:
        for dump in ("kdump-oops.zlib", "qemu-oops.elf"):
            p = subprocess.run([bin_, "--format", "json", "--debug-dir", d, vmlinux, os.path.join(d, dump)],
                               capture_output=True, text=True, timeout=120)
            if p.returncode not in (0, 1):
                failures.append("%s --debug-dir: exit %d: %s" % (dump, p.returncode, p.stderr.strip()))
                checked += 1
                continue
            r = json.loads(p.stdout)
            crashed = [t for t in r["threads"] if t["crashed"]]
            frames = crashed[0]["frames"] if crashed else []
            mod = [f for f in frames if f.get("module") == "ct_null"]
            want = ["ct_null_write"] + (["ct_null_init"] if dump.startswith("kdump") else [])
            got = {f["function"]: f for f in mod if f.get("file", "").endswith("ct_null.c") and f.get("line", 0) > 0}
            bad = [f for f in mod if f not in got.values()]
            ok = all(w in got for w in want) and not bad
            if not ok:
                failures.append("%s --debug-dir: ct_null frames without ct_null.c:LINE: %r" %
                                (dump, [(f.get("function"), f.get("file"), f.get("line")) for f in mod]))
            checked += 1
            print("%s %s --debug-dir: %s" % ("ok  " if ok else "FAIL", dump,
                  ", ".join("%s at %s:%d" % (n, os.path.basename(f["file"]), f["line"]) for n, f in got.items())
                  or "no ct_null frame with a line"))
    for f in failures:
        print("  " + f)
    print("%d passed, %d failed" % (checked - len(failures), len(failures)))
    return 1 if failures else 0


sys.exit(main())
