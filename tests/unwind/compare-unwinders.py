#!/usr/bin/env python3
"""Cross-check of the two unwinders (issue #2).

Runs `coretriage --format json` once with --unwinder=dwfl and once with --unwinder=libunwind on
CORES/<case>/{exe,core} and checks that the crashing thread's frames in the program's own module
(module name == the executable's basename) name the same functions in the same order, over the
frames both found from registers, CFI, signal frames and bad-call recovery (see CFI_TRUST).

  compare-unwinders.py --coretriage BIN --cores DIR [--all-threads] [-v] CASE...
  compare-unwinders.py --coretriage BIN --selfmade tiny.c [--cc CC]

--selfmade compiles the given C file in a temporary directory, crashes it with `ulimit -c
unlimited` (core_pattern must write `core` or `core.PID` into the working directory, else the test
is skipped) and compares that core: a check that needs no fixture.

Exit status: 0 all agree, 1 a disagreement or a failed run, 77 (CTest skip) when no case had a
core or the build has no libunwind unwinder.
"""
import argparse
import json
import os
import subprocess
import sys

SKIP = 77


def run(binary, exe, core, unwinder, timeout):
    cmd = [binary, "--format", "json", "--no-abs-paths", "--no-debuginfod",
           "--unwinder=" + unwinder, exe, core]
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode not in (0, 1, 2):
        raise RuntimeError("%s exited with %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[:500]))
    try:
        return json.loads(p.stdout)
    except ValueError:
        raise RuntimeError("%s: no JSON on stdout (exit %d): %s" % (" ".join(cmd), p.returncode,
                                                                   p.stderr.strip()[:500]))


def thread_key(report, all_threads):
    threads = report.get("threads") or []
    if all_threads:
        return threads
    crashed = [t for t in threads if t.get("crashed")]
    return crashed[:1] or threads[:1]


# Frames both unwinders find on their own: from the dump's registers, by CFI, through signal frames,
# after a bad call. The walk is compared up to the first frame found otherwise (frame-pointer chain,
# stack scan): those heuristics differ by design (libdwfl's and libunwind's own fallbacks, the
# policy's scan) and are not what the cross-check is about.
CFI_TRUST = {"context", "cfi", "signal", "bad-call"}


def cfi_prefix(thread):
    out = []
    for f in thread.get("frames") or []:
        if f.get("trust") not in CFI_TRUST:
            break
        out.append(f)
    return out


def own_functions(thread, module):
    return [f.get("function") or "??" for f in cfi_prefix(thread) if f.get("module") == module]


def unsupported(report):
    for d in report.get("diagnostics") or []:
        if d.get("code") == "unwind-failed" and "not available" in (d.get("message") or ""):
            return True
    return False


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


# Cases where libunwind 1.6 stops early for a reason outside our unwinding: the dwfl walk must then
# be a strict extension of libunwind's (same first frames, more of them); agreement is an XPASS.
LIBUNWIND_STOPS = {
    "rust-expect": "libunwind stops in Rust's panic_abort::abort (no caller found)",
    "rust-unwrap": "libunwind stops in Rust's panic_abort::abort (no caller found)",
    "go-nil": "Go's runtime.sigreturn has no CFI: only our sigreturn step crosses it",
    "go-index": "Go's runtime.sigreturn has no CFI: only our sigreturn step crosses it",
}


def compare_case(args, case):
    d = os.path.join(args.cores, case)
    exe, core = os.path.join(d, "exe"), os.path.join(d, "core")
    if not (os.path.exists(exe) and os.path.exists(core)):
        return "skip", "no exe/core in %s" % d
    module = os.path.basename(exe)
    reports = {}
    for u in ("dwfl", "libunwind"):
        reports[u] = run(args.coretriage, exe, core, u, args.timeout)
    if unsupported(reports["libunwind"]):
        return "unsupported", "built without the libunwind unwinder"
    ta = thread_key(reports["dwfl"], args.all_threads)
    tb = thread_key(reports["libunwind"], args.all_threads)
    if len(ta) != len(tb):
        return "fail", "thread count differs: dwfl %d, libunwind %d" % (len(ta), len(tb))
    if not ta:
        return "fail", "no thread in the report"
    total = 0
    notes = []
    for x, y in zip(ta, tb):
        if x.get("tid") != y.get("tid"):
            return "fail", "thread order differs: %s vs %s" % (x.get("tid"), y.get("tid"))
        fa, fb = own_functions(x, module), own_functions(y, module)
        if case in LIBUNWIND_STOPS:
            if fa == fb:
                return "fail", "XPASS: the unwinders agree now; remove %s from LIBUNWIND_STOPS" % case
            if len(fb) < len(fa) and fa[:len(fb)] == fb:
                notes.append("XFAIL thread %s: %s (dwfl %d frames, libunwind %d)"
                             % (x.get("tid"), LIBUNWIND_STOPS[case], len(fa), len(fb)))
                total += len(fb)
                continue
        if fa != fb:
            i = first_difference(fa, fb)
            return "fail", ("thread %s: %s frames differ at own-frame #%d: dwfl %d frames %s / libunwind %d frames %s"
                            % (x.get("tid"), module, i, len(fa), fa[max(0, i - 2):i + 3],
                               len(fb), fb[max(0, i - 2):i + 3]))
        if not fa:
            notes.append("thread %s: no frame in %s" % (x.get("tid"), module))
        total += len(fa)
        na, nb = len(cfi_prefix(x)), len(cfi_prefix(y))
        if na != nb:
            notes.append("thread %s: CFI frames in all modules: dwfl %d, libunwind %d (stop: %r / %r)"
                         % (x.get("tid"), na, nb, x.get("stop_reason"), y.get("stop_reason")))
    msg = "%d %s frames agree" % (total, module)
    if notes:
        msg += "; " + "; ".join(notes[:3])
    return "ok", msg


def make_selfmade_core(source, cc, workdir):
    """Builds and crashes @source in @workdir; returns the case name or None when no core appears."""
    case = os.path.join(workdir, "selfmade")
    os.makedirs(case)
    exe = os.path.join(case, "exe")
    subprocess.run([cc, "-O0", "-g", "-fno-omit-frame-pointer", "-o", exe, source], check=True)
    subprocess.run(["sh", "-c", "ulimit -c unlimited; exec ./exe 5"], cwd=case, capture_output=True)
    for name in sorted(os.listdir(case)):
        if name == "core" or name.startswith("core."):
            if name != "core":
                os.rename(os.path.join(case, name), os.path.join(case, "core"))
            return "selfmade"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--cores")
    ap.add_argument("--selfmade", metavar="SOURCE", help="build and crash this C file instead of using --cores")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--all-threads", action="store_true", help="compare every thread, not only the crashing one")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    if args.selfmade:
        import tempfile
        with tempfile.TemporaryDirectory(prefix="ct-unwind-") as tmp:
            case = make_selfmade_core(args.selfmade, args.cc, tmp)
            if not case:
                print("SKIP: no core written (core_pattern is %r)" % open("/proc/sys/kernel/core_pattern").read().strip())
                return SKIP
            args.cores, args.cases = tmp, [case]
            return compare_all(args)
    if not args.cores:
        ap.error("--cores or --selfmade is required")
    return compare_all(args)


def compare_all(args):
    cases = args.cases or sorted(c for c in os.listdir(args.cores) if os.path.isdir(os.path.join(args.cores, c)))
    counts = {}
    for case in cases:
        try:
            status, msg = compare_case(args, case)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            status, msg = "fail", str(e)
        counts[status] = counts.get(status, 0) + 1
        if status != "ok" or args.verbose or len(cases) == 1:
            print("%-12s %-24s %s" % (status.upper(), case, msg))
    print("summary: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    if counts.get("fail"):
        return 1
    if not counts.get("ok"):
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
