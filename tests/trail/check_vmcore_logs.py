#!/usr/bin/env python3
"""The trail of a kernel dump: a real kdump vmcore's crash time comes from VMCOREINFO CRASHTIME,
its boot time is CRASHTIME minus the panic's uptime, and the guest's own serial console (the
host's log shipped beside the vmcore, kernel "[ seconds]" times) is placed in time by it: the
Oops lines naming the panicking task come out just before the crash.

Usage: check_vmcore_logs.py CORETRIAGE VMCORE_DIR
"""
import json
import os
import subprocess
import sys

BIN, VDIR = sys.argv[1], sys.argv[2]
vmcore, console = os.path.join(VDIR, "kdump-oops.vmcore"), os.path.join(VDIR, "kdump-oops.console")
if not (os.path.exists(vmcore) and os.path.exists(console)):
    print("SKIP: no kdump-oops vmcore in %s (CT_NO_VMCORE=1 or no kernel support)" % VDIR)
    sys.exit(77)
p = subprocess.run([BIN, "--format", "json", "--logs", console, vmcore], capture_output=True, text=True, timeout=300,
                   env=dict(os.environ, TZ="UTC", LC_ALL="C"))
ok = []


def check(name, cond, detail=""):
    ok.append(bool(cond))
    print("%s %s %s" % ("ok  " if cond else "FAIL", name, detail if not cond else ""))


check("report written", p.returncode in (0, 1), p.stderr)
r = json.loads(p.stdout)
check("crash time from CRASHTIME", r["crash_time"]["source"] == "vmcoreinfo", r["crash_time"])
check("boot time from CRASHTIME and uptime", r["trail"]["boot_time"] and r["trail"]["boot_time"]["source"] == "vmcoreinfo")
src = r["trail"]["log_sources"]
check("console read as a kernel log", src and src[0]["format"] == "kernel", src)
comm = r["kernel"]["comm"]
named = [l for l in r["logs"] if "command" in l["matches"] and comm in l["line"]]
check("a console line naming the panicking task", named, [l["line"] for l in r["logs"]][:5])
before = [l["line"] for l in r["logs"] if l["before_crash"]]
check("the Oops just before the crash", any("Call Trace" in l or "RIP:" in l or "CR2" in l for l in before), before)
print("%d passed, %d failed" % (sum(ok), len(ok) - sum(ok)))
sys.exit(0 if all(ok) else 1)
