#!/usr/bin/env python3
"""`cmake --install` into a DESTDIR, then a small C program built against what was installed.

    check_install.py --build BUILD_DIR --workdir DIR --core CORE --exe EXE --expect-class CLASS

Checks that the install tree holds the binary, the man page, bash and zsh completion, the JSON
schema, libcoretriage (static and shared) with its public headers, coretriage.pc and the CMake
package; that the installed binary runs; and that tests/install/consumer/consumer.c builds against
coretriage.pc (cc `pkg-config --cflags --libs`, and --static) and against find_package(coretriage)
(shared and static), each program analyzing the same real core as the installed binary does.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = "/usr/local"
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL: " + msg)
    return ok


def run(args, env=None, cwd=None):
    p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        print("$ " + " ".join(args) + "\n" + p.stdout[-2000:] + p.stderr[-2000:])
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--core", required=True)
    ap.add_argument("--exe", required=True)
    ap.add_argument("--expect-class", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    dest = os.path.join(a.workdir, "dest")
    root = dest + PREFIX
    env = dict(os.environ, DESTDIR=dest)
    # The install prefix is what the build was configured with; --prefix makes it ours.
    p = run(["cmake", "--install", a.build, "--prefix", PREFIX], env=env)
    if not check(p.returncode == 0, "cmake --install failed"):
        return 1
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    want = ["bin/coretriage", "share/man/man1/coretriage.1", "share/bash-completion/completions/coretriage",
            "share/zsh/vendor-completions/_coretriage", "share/coretriage/schema/report.schema.json",
            "include/coretriage/coretriage.h", "include/coretriage/report.h", "include/coretriage/error.h",
            "include/coretriage/strpool.h"]
    for w in want:
        check(w in files, f"not installed: {w}")
    # The completion scripts parse (bash -n; zsh -n where zsh is installed).
    for shell, f in (("bash", "share/bash-completion/completions/coretriage"), ("zsh", "share/zsh/vendor-completions/_coretriage")):
        if shutil.which(shell) and f in files:
            p = run([shell, "-n", os.path.join(root, f)])
            check(p.returncode == 0, f"{shell} -n {f}: {p.stderr.strip()}")
    libdir = next((os.path.dirname(f) for f in files if f.endswith("/libcoretriage.a")), None)
    if not check(libdir is not None, f"no libcoretriage.a in {sorted(files)}"):
        return 1
    for w in ("libcoretriage.a", "libcoretriage.so", "pkgconfig/coretriage.pc", "cmake/coretriage/coretriageConfig.cmake",
              "cmake/coretriage/coretriageConfigVersion.cmake"):
        check(os.path.join(libdir, w) in files, f"not installed: {libdir}/{w}")
    check(any(f.startswith(os.path.join(libdir, "libcoretriage.so.")) for f in files), "no versioned libcoretriage.so.N")
    # The installed binary: it runs, and its report of the core is the class the consumers must print.
    p = run([os.path.join(root, "bin/coretriage"), "--format=json", a.exe, a.core])
    check(p.returncode in (0, 1), f"installed coretriage: exit {p.returncode}")
    try:
        cls = json.loads(p.stdout)["crash"]["class"]
    except (ValueError, KeyError, TypeError):
        cls = None
    check(cls == a.expect_class, f"installed coretriage: class {cls}, want {a.expect_class}")
    src = os.path.join(HERE, "consumer", "consumer.c")
    lib = os.path.join(root, libdir)
    penv = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"))
    rtenv = dict(os.environ, LD_LIBRARY_PATH=lib)
    programs = []
    # pkg-config: the shared library, then the static archive with Libs.private / Requires.private.
    for static in (False, True):
        flags = run(["pkg-config", "--cflags", "--libs", *(["--static"] if static else []), "coretriage"], env=penv)
        if not check(flags.returncode == 0, f"pkg-config coretriage{' --static' if static else ''} failed"):
            continue
        out = os.path.join(a.workdir, "pc_static" if static else "pc_shared")
        args = flags.stdout.split()
        if static:
            # The archive, not the .so beside it.
            args = [os.path.join(lib, "libcoretriage.a") if x == "-lcoretriage" else x for x in args]
        p = run(["cc", "-o", out, src] + args)
        if check(p.returncode == 0, f"cc against coretriage.pc{' (static)' if static else ''} failed"):
            programs.append(out)
    # The CMake package.
    bdir = os.path.join(a.workdir, "consumer-build")
    p = run(["cmake", "-S", os.path.join(HERE, "consumer"), "-B", bdir, f"-DCMAKE_PREFIX_PATH={root}"])
    if check(p.returncode == 0, "find_package(coretriage) failed"):
        p = run(["cmake", "--build", bdir])
        if check(p.returncode == 0, "the CMake consumer does not build"):
            programs += [os.path.join(bdir, "consumer_shared"), os.path.join(bdir, "consumer_static")]
    for prog in programs:
        p = run([prog, a.core, a.exe], env=rtenv)
        want_line = f"class {a.expect_class},"
        check(p.returncode == 0 and p.stdout.startswith(want_line),
              f"{os.path.basename(prog)}: exit {p.returncode}, {p.stdout.strip()!r} {p.stderr.strip()[-300:]!r}")
        print(f"{os.path.basename(prog)}: {p.stdout.strip()}")
    # The shared consumers really use the shared library.
    for prog in programs:
        if prog.endswith("shared"):
            p = run(["ldd", prog], env=rtenv)
            check(os.path.join(lib, "libcoretriage.so") in p.stdout, f"{os.path.basename(prog)} is not linked to the installed .so")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
