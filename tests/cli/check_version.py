#!/usr/bin/env python3
"""coretriage --version: its own version, then one line per linked library whose version is the one
the library reports (checked against pkg-config's record of the installed package, and against the
libraries the binary loads: each library named must be one ldd shows, or be marked "built with").

    check_version.py CORETRIAGE PROJECT_VERSION
"""
import re
import subprocess
import sys

# --version's name -> (pkg-config module, shared object ldd shows)
LIBS = {"elfutils": ("libdw", "libdw.so"), "capstone": ("capstone", "libcapstone.so"),
        "jansson": ("jansson", "libjansson.so"), "zlib": ("zlib", "libz.so"), "zstd": ("libzstd", "libzstd.so"),
        "xz": ("liblzma", "liblzma.so"), "lz4": ("liblz4", "liblz4.so"), "libbpf": ("libbpf", "libbpf.so"),
        "bzip2": (None, "libbz2.so"), "zydis": (None, "libZydis.so"), "libunwind": ("libunwind-generic", None),
        "libkdumpfile": ("libkdumpfile", None), "libsystemd": ("libsystemd", None), "libdebuginfod": ("libdebuginfod", None)}
# Libraries CMakeLists.txt links from their static archive when it has one: their version call.
STATIC = {"libzstd": "ZSTD_versionString", "liblz4": "LZ4_versionString", "libbpf": "libbpf_version_string"}
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL: " + msg)


def main():
    binary, version = sys.argv[1:3]
    p = subprocess.run([binary, "--version"], capture_output=True, text=True)
    check(p.returncode == 0, f"--version: exit {p.returncode}")
    lines = p.stdout.splitlines()
    check(lines and lines[0] == f"coretriage {version}", f"first line {lines[:1]}")
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    syms = set(subprocess.run(["nm", binary], capture_output=True, text=True).stdout.split())
    seen = {}
    for line in lines[1:]:
        m = re.fullmatch(r"  (\S+)\s+(\S+)( \(built with\))?", line)
        check(m is not None, f"line {line!r}")
        if not m:
            continue
        name, ver, built = m.group(1), m.group(2), bool(m.group(3))
        seen[name] = ver
        check(name in LIBS, f"unknown library {name}")
        pc, so = LIBS.get(name, (None, None))
        if not built and so and so not in ldd:
            # Linked from its static archive (issue 28): the version call is then in the binary.
            check(so[:-3] in STATIC and STATIC[so[:-3]] in syms,
                  f"{name} {ver} is neither a library the binary loads ({so} not in ldd) nor linked in")
        if pc:
            q = subprocess.run(["pkg-config", "--modversion", pc], capture_output=True, text=True)
            if q.returncode == 0:
                want = q.stdout.strip()
                # capstone's cs_version() is major.minor; pkg-config says 4.0.2.
                check(want == ver or want.startswith(ver + "."), f"{name}: --version says {ver}, pkg-config {pc} {want}")
    for must in ("elfutils", "capstone", "jansson"):
        check(must in seen, f"--version lacks {must}: {lines}")
    print(p.stdout)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
