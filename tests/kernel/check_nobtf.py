#!/usr/bin/env python3
"""The fallback when the dump's BTF does not parse: today's report plus a diagnostic.

usage: check_nobtf.py CORETRIAGE VMCORE_DIR
Copies the QEMU ELF dump of the NULL-pointer Oops (qemu-oops.elf), breaks the magic of the kernel's
.BTF section in the copy (found by its header: magic 0xeb9f, version 1, hdr_len 24), and checks that
the class, culprit and panic CPU stack are still there, a `no-btf` warning says why, no tasks are
listed, and the module frame is stepped over by a scan instead of the module's ORC.
Exit 0 when all checks pass, 1 on a failure, 77 (skip) only when CT_NO_VMCORE=1.
"""
import json
import ktest
import os
import shutil
import subprocess
import sys
import tempfile


check = ktest.check


def main():
    bin_, d = sys.argv[1:3]
    if os.environ.get("CT_NO_VMCORE") == "1":
        print("CT_NO_VMCORE=1: vmcore tests skipped")
        return 77
    src = os.path.join(d, "qemu-oops.elf")
    if not os.path.exists(src):
        print("FAIL: %s missing: scripts/make-vmcores did not run or failed" % src)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "nobtf.elf")
        shutil.copyfile(src, dump)
        broken = ktest.break_vmlinux_btf(dump)
        if not check(broken >= 1, "no vmlinux BTF header found in the dump"):
            return report()
        p = subprocess.run([bin_, "--tasks", "--format", "json", dump], capture_output=True, text=True)
        if not check(p.returncode in (0, 1), "exit status %d: %s" % (p.returncode, p.stderr.strip())):
            return report()
        j = json.loads(p.stdout)
    c, k = j["crash"], j["kernel"]
    diags = {x["code"]: x for x in j["diagnostics"]}
    check("no-btf" in diags and diags["no-btf"]["severity"] == "warning" and "does not parse" in diags["no-btf"]["message"],
          "no no-btf warning: %r" % list(diags))
    check("no-tasks" in diags, "--tasks without BTF gives no no-tasks warning: %r" % list(diags))
    check(c["class"] == "kernel-null-deref", "class %r" % c["class"])
    check((c.get("details") or {}).get("culprit_function") == "ct_null_write", "culprit %r" % c.get("details"))
    check(not k.get("tasks"), "tasks listed without BTF")
    frames = j["threads"][0]["frames"]
    names = [f["function"] for f in frames]
    check("do_one_initcall" in names and "panic" in names, "panic CPU frames %r" % names)
    # Without struct module's layout, frames in module text are stepped over by a scan, unnamed, or
    # named from the log's Call Trace (its module entries in order, diagnostic frame-from-log).
    mod = [f for f in frames if int(f["pc"], 16) >= 0xffffffffc0000000 and f["trust"] != "context"]
    trace = k.get("log_call_trace") or []
    from_log = [f for f in mod if f["function"] and any(l.startswith("%s+0x%x/" % (f["function"], int(f["offset"], 16)))
                                                       and l.endswith("[%s]" % f["module"]) for l in trace)]
    check(all(f["trust"] == "scan" or f["module"] is None or f in from_log for f in mod) or not mod,
          "module frames %r" % mod)
    check(not from_log or "frame-from-log" in diags, "module frames named from the log without a diagnostic")
    return report()


def report():
    return ktest.report("no-btf fallback")


sys.exit(main())
