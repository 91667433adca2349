#!/usr/bin/env python3
"""Start-up maps no optional library (issue 28): `coretriage --version` and `--help` load none of
the libraries only some inputs need (they are opened on first use, src/lazy/, or linked from static
archives). The dynamic loader's own account (LD_DEBUG=files) says which files it opened.

Usage: check_startup_libs.py CORETRIAGE
"""
import os
import re
import subprocess
import sys

OPTIONAL = ["libkdumpfile", "libaddrxlat", "libsystemd", "libgcrypt", "libbpf", "libunwind", "libZydis",
            "libcapstone", "libzstd", "liblz4", "libsnappy", "liblzo2", "libdebuginfod", "libpq",
            "libssl", "libcrypto", "libgssapi_krb5", "libldap", "libsqlite3"]

binary = sys.argv[1]
failed = 0
for args in (["--version"], ["--help"]):
    p = subprocess.run([binary] + args, capture_output=True, text=True,
                       env=dict(os.environ, LD_DEBUG="files", LC_ALL="C"))
    opened = set(re.findall(r"file=(\S+)\s+\[0\];\s+needed by", p.stderr))
    if p.returncode != 0 or not opened:
        print("FAIL %s: exit %d, %d libraries seen" % (" ".join(args), p.returncode, len(opened)))
        failed += 1
        continue
    bad = sorted(f for f in opened if any(f.startswith(o) for o in OPTIONAL))
    print("%s %s: %d libraries at start-up%s" % ("FAIL" if bad else "ok  ", " ".join(args), len(opened),
                                                  ": optional ones " + ", ".join(bad) if bad else ""))
    failed += bool(bad)
sys.exit(1 if failed else 0)
