#!/usr/bin/env python3
"""End-to-end triage check: for every line of testdata/cases.tsv whose core exists, run
coretriage --format json on CORES/<case>/{exe,core} and compare crash.class and the blamed
frame's function with the manifest.

usage: check_cases.py CORETRIAGE CASES_TSV CORES_DIR
Exit 0 when all pass, 1 on a failure (or an XPASS), 77 when no core exists at all.
"""
import fnmatch
import json
import os
import re
import subprocess
import sys

# Cases that cannot pass for a reason outside triage, with the reason. An XFAIL that starts to pass
# fails the test, so the list is kept honest.
XFAIL = {
    "py-deadlock-d": "faulthandler's re-raise of os.abort's SIGABRT: on python3.11d faulthandler_fatal_error has its own "
                     "frame below the signal frame and is blamed, not os_abort_impl (re-raise facts cover faults)",
    "py-sleep-d": "as py-deadlock-d",
}


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    tool, tsv, cores = sys.argv[1:]
    ran = failed = 0
    for line in open(tsv, encoding="utf-8"):
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 6 or not cols[0]:
            continue
        case, expected_class, expected_blame = cols[0], cols[4], cols[5]
        exe = os.path.join(cores, case, "exe")
        core = os.path.join(cores, case, "core")
        if not os.path.exists(core):
            continue
        ran += 1
        # exe-moved: the executable is gone; the core alone names it.
        inputs = [exe, core] if os.path.exists(exe) else [core]
        proc = subprocess.run([tool, "--format", "json", *inputs], capture_output=True, text=True,
                              timeout=300, check=False)
        try:
            report = json.loads(proc.stdout)
        except ValueError as e:
            print(f"FAIL {case}: no JSON (exit {proc.returncode}): {e}")
            failed += 1
            continue
        crash = report.get("crash") or {}
        threads = report.get("threads") or []
        thread = next((t for t in threads if t.get("crashed")), threads[0] if threads else None)
        blame = crash.get("blame_frame")
        function = None
        if thread is not None and blame is not None and 0 <= blame < len(thread["frames"]):
            function = thread["frames"][blame].get("function")
        problems = []
        # "@module": the blamed frame has no symbol; its module is expected. Rust's legacy-mangling
        # hash suffix ("::h0123456789abcdef") is not part of the expected name.
        if expected_blame.startswith("@") and thread is not None and blame is not None \
                and 0 <= blame < len(thread["frames"]):
            function = "@" + str(thread["frames"][blame].get("module"))
        elif function:
            function = re.sub(r"::h[0-9a-f]{16}$", "", function)
        if crash.get("class") != expected_class:
            problems.append(f"class {crash.get('class')!r}, expected {expected_class!r}")
        # "#N": frame N is blamed, named or not (a JIT frame without a perf map); a "*" in the
        # expected name matches any text (TRACE_*::prog.lua:*: trace numbers are the JIT's).
        if expected_blame.startswith("#"):
            if blame != int(expected_blame[1:]):
                problems.append(f"blame frame {blame!r}, expected {expected_blame!r}")
        elif "*" in expected_blame:
            if not function or not fnmatch.fnmatchcase(function, expected_blame):
                problems.append(f"blame {function!r}, expected {expected_blame!r}")
        # "?": the blame is not checked (the case's description says why), the class still is.
        elif expected_blame == "?":
            pass
        # "-": no named frame can be blamed (e.g. the mismatched build: its symbols must not be used).
        elif function != (None if expected_blame == "-" else expected_blame):
            problems.append(f"blame {function!r}, expected {expected_blame!r}")
        # No frame may come from a scan of dead stack below the live sp: the dump's sp, or after a
        # signal frame the interrupted context's.
        if thread is not None:
            live = None
            for i, fr in enumerate(thread.get("frames") or []):
                sp = int(fr["sp"], 16) if fr.get("sp") else None
                if live is None or (i and thread["frames"][i - 1].get("signal_frame")):
                    live = sp if sp is not None else live
                if fr.get("trust") == "scan" and sp is not None and live is not None and sp < live:
                    problems.append(f"frame #{i} found by a scan below the live sp")
                    break
                # A sigreturn trampoline is a signal frame: a scan from it reads the signal stack's
                # dead frames (Go's runtime.sigreturn has no CFI to say so).
                fn = fr.get("function") or ""
                if (fn.startswith("runtime.sigreturn") or fn == "__restore_rt") and not fr.get("signal_frame"):
                    problems.append(f"frame #{i} {fn} is not a signal frame")
                    break
        if not crash.get("summary"):
            problems.append("no summary")
        if not (report.get("signature") or {}).get("hash"):
            problems.append("no signature")
        if case in XFAIL:
            if problems:
                print(f"XFAIL {case}: {'; '.join(problems)} ({XFAIL[case]})")
            else:
                print(f"XPASS {case}: passes now; remove it from XFAIL")
                failed += 1
            continue
        if problems:
            print(f"FAIL {case}: {'; '.join(problems)}")
            failed += 1
        else:
            print(f"ok   {case}: {crash['class']} ({crash.get('confidence')}), blame {function}")
    if ran == 0:
        print("no cores found (run scripts/make-cores)")
        return 77
    print(f"{ran - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
