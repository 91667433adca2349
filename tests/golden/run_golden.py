#!/usr/bin/env python3
"""Golden end-to-end tests: run coretriage on a real core of a testdata crash program and compare
its text or JSON report, normalized, with tests/golden/<case>/expected.{txt,json}.

Normalization makes the reports independent of the run: pids/tids (different every crash),
addresses (ASLR), build-ids, the offsets/lines of frames inside the system's libc and ld.so
(they change with Debian point releases), times (the crash time of a fresh core is its file
time) and the CPU time each thread used. Everything else must match byte for byte.

Usage: run_golden.py CORETRIAGE CORES_DIR GOLDEN_DIR CASE
CT_UPDATE_GOLDEN=1 rewrites the expected files instead of comparing.
"""
import difflib
import json
import os
import re
import subprocess
import sys

SYSTEM_MODULES = re.compile(r"^(libc\.so\.6|ld-linux-x86-64\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libm\.so\.6|\[vdso\])$")
BIG_HEX = re.compile(r"0x[0-9a-f]{5,}")
BUILD_ID = re.compile(r"\b[0-9a-f]{32,40}\b")
RFC3339 = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
CPU_TIME = re.compile(r"\d+\.\d{3} s (user|system)")


def run(cmd, cwd):
    env = dict(os.environ, LC_ALL="C", TZ="UTC", NO_COLOR="1")
    env.pop("DEBUGINFOD_URLS", None)
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def ids_of(report):
    """pid and tids in order of appearance → stable names."""
    names = {}
    pid = report.get("process", {}).get("pid")
    if pid is not None:
        names[pid] = "PID"
    for i, t in enumerate(report.get("threads", [])):
        names.setdefault(t["tid"], "TID%d" % i)
    return names


def normalize_text(text, names, cores):
    out = []
    for line in text.splitlines():
        # gdb's gcore fallback runs the program by its absolute path.
        line = line.replace(os.path.realpath(cores) + "/", "CORES/").replace(cores.rstrip("/") + "/", "CORES/")
        for num, name in sorted(names.items(), key=lambda kv: -len(str(kv[0]))):
            line = re.sub(r"(?<![0-9a-fx])%d(?![0-9])" % num, name, line)
        m = re.match(r"^(\s*#\S+\s+\S+ (?:<signal handler called> )?in )(\S+)(\+0x[0-9a-f]+)? \(([^)]+)\)(.*)$", line)
        if m and SYSTEM_MODULES.match(m.group(4)):
            trust = re.search(r"\[[a-z-]+\]$", m.group(5))
            line = "%s%s (%s)%s" % (m.group(1), m.group(2), m.group(4), " " + trust.group(0) if trust else "")
        line = BUILD_ID.sub("BUILDID", line)
        line = BIG_HEX.sub("0xADDR", line)
        line = RFC3339.sub("TIME", line)
        if line.startswith("  cpu time:"):
            line = CPU_TIME.sub(r"N s \1", line)
        out.append(line.rstrip())
    return "\n".join(out) + "\n"


def normalize_json(report, names, cores):
    prefixes = (os.path.realpath(cores) + "/", cores.rstrip("/") + "/")

    def walk(v, key=None):
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, key) for x in v]
        # tids also appear as lock owners and holders and in cycles (docs/hangs.md).
        if isinstance(v, int) and not isinstance(v, bool) and key in ("pid", "ppid", "tid", "crashing_thread", "sender_pid",
                                                                        "owner", "holder", "threads", "value"):
            return names.get(v, "ID")
        if key == "word" and isinstance(v, str):
            return "WORD"  # a lock word may be a tid (pthread_join, robust mutexes)
        if isinstance(v, int) and not isinstance(v, bool) and key in ("user_usec", "system_usec"):
            return "USEC"
        if isinstance(v, str):
            for num, name in sorted(names.items(), key=lambda kv: -len(str(kv[0]))):
                v = re.sub(r"(?<![0-9a-fx])%d(?![0-9])" % num, name, v)
            for p in prefixes:
                v = v.replace(p, "CORES/")
            v = BUILD_ID.sub("BUILDID", v)
            v = RFC3339.sub("TIME", v)
            return BIG_HEX.sub("0xADDR", v)
        return v
    r = walk(report)
    for t in r.get("threads", []):
        for f in t.get("frames", []):
            if f.get("module") and SYSTEM_MODULES.match(f["module"]):
                f["offset"] = f["file"] = f["line"] = f["column"] = None
        t.pop("registers", None)
        t.pop("stack", None)
    # The registers and libc-side details vary with the machine; the model's shape is what matters.
    r.pop("disassembly", None)
    r["modules"] = [m for m in r.get("modules", []) if not SYSTEM_MODULES.match(m["name"])]
    r["tool"]["version"] = "VERSION"
    return json.dumps(r, indent=1, sort_keys=True) + "\n"


def main():
    binary, cores, golden, case = sys.argv[1:5]
    cdir = os.path.join(golden, case)
    with open(os.path.join(cdir, "args")) as f:
        spec = f.read().split()
    core_case = spec[0]
    args = spec[1:]
    cwd = os.path.join(cores, core_case)
    if not os.path.exists(os.path.join(cwd, "core")):
        print("no core for %s in %s: the cores fixture failed" % (core_case, cores))
        return 1
    rc, js, err = run([binary, "--format", "json", "--no-abs-paths"] + args, cwd)
    if rc not in (0, 1):
        print("coretriage failed (exit %d): %s" % (rc, err))
        return 1
    report = json.loads(js)
    names = ids_of(report)
    got = {}
    if os.path.exists(os.path.join(cdir, "expected.json")):
        got["expected.json"] = normalize_json(report, names, cores)
    if os.path.exists(os.path.join(cdir, "expected.txt")) or not got:
        rc, txt, err = run([binary, "--no-abs-paths", "--color=never"] + args, cwd)
        if rc not in (0, 1):
            print("coretriage failed (exit %d): %s" % (rc, err))
            return 1
        got["expected.txt"] = normalize_text(txt, names, cores)
    failed = 0
    for name, text in got.items():
        path = os.path.join(cdir, name)
        if os.environ.get("CT_UPDATE_GOLDEN") == "1":
            with open(path, "w") as f:
                f.write(text)
            print("updated", path)
            continue
        with open(path) as f:
            want = f.read()
        if want != text:
            failed += 1
            sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True), path, "got"))
    print("%d passed, %d failed" % (len(got) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
