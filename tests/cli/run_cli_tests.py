#!/usr/bin/env python3
"""End-to-end tests of the command line: finding the executable from the core, swapped arguments,
--sysroot, --debug-dir, mismatched binaries, caps, color and exit statuses.

Usage: run_cli_tests.py CORETRIAGE CORES_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN, CORES = sys.argv[1], sys.argv[2]
results = []


def run(args, cwd=None, env_extra=None):
    env = dict(os.environ, LC_ALL="C")
    env.pop("NO_COLOR", None)
    env.pop("DEBUGINFOD_URLS", None)
    env.update(env_extra or {})
    return subprocess.run([BIN] + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def check(name, cond, detail=""):
    results.append((name, bool(cond)))
    print("%s %s %s" % ("ok  " if cond else "FAIL", name, detail if not cond else ""))


def crashed_frames(report):
    t = [t for t in report["threads"] if t["crashed"]]
    return [f["function"] for f in (t[0] if t else report["threads"][0])["frames"]]


def case(name):
    return os.path.join(CORES, name)


def main():
    d = case("null-read")
    # The executable is found from the core (NT_FILE + build-id) when not given.
    p = run(["--format", "json", "core"], cwd=d)
    check("core alone: exit 0", p.returncode == 0, p.stderr)
    if p.returncode in (0, 1):
        r = json.loads(p.stdout)
        check("core alone: symbols from the found executable", "list_sum" in crashed_frames(r))
        main_mod = [m for m in r["modules"] if m["name"] == "exe"]
        check("core alone: main module matched by build-id", main_mod and main_mod[0]["build_id_match"] is True)

    # Swapped arguments are noticed and said.
    p = run(["--format", "json", "core", "./exe"], cwd=d)
    check("swapped: exit 0", p.returncode == 0, p.stderr)
    if p.returncode in (0, 1):
        r = json.loads(p.stdout)
        check("swapped: frames", "list_sum" in crashed_frames(r))
        check("swapped: said", any(x["code"] == "swapped-arguments" for x in r["diagnostics"]))

    # A mismatched rebuild is refused for symbols, with a warning naming both build-ids, exit 1.
    p = run(["--format", "json", "./exe", "core"], cwd=case("mismatched"))
    check("mismatch: exit 1 (partial)", p.returncode == 1, str(p.returncode))
    if p.returncode in (0, 1):
        r = json.loads(p.stdout)
        m = [m for m in r["modules"] if m["name"] == "exe"][0]
        check("mismatch: build_id_match false", m["build_id_match"] is False)
        check("mismatch: file not used", m["file"] is None)
        check("mismatch: both build-ids in the warning",
              any(m["build_id"] in w and (m["file_build_id"] or "") in w for w in r["warnings"]))
        check("mismatch: no symbols from the wrong file", "list_sum" not in crashed_frames(r))
    # The original build is accepted.
    p = run(["--format", "json", "./exe.orig", "core"], cwd=case("mismatched"))
    check("mismatch: original build accepted", p.returncode == 0 and "list_sum" in crashed_frames(json.loads(p.stdout)),
          p.stderr)

    # Stripped executable: DWARF from --debug-dir by build-id, and from .gnu_debuglink beside it.
    for args, label in ((["--debug-dir", "debug"], "--debug-dir"), ([], "debuglink")):
        p = run(["--format", "json"] + args + ["./exe", "core"], cwd=case("stripped"))
        ok = p.returncode == 0
        if ok:
            r = json.loads(p.stdout)
            t = [t for t in r["threads"] if t["crashed"]][0]
            ok = t["frames"][0]["function"] == "list_sum" and t["frames"][0]["line"]
        check("stripped: source lines via %s" % label, ok, p.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        # --sysroot: the core's recorded paths resolved under another root.
        src = case("null-read")
        orig = os.path.realpath(os.path.join(src, "exe"))
        root = os.path.join(tmp, "root")
        os.makedirs(root + os.path.dirname(orig))
        shutil.copy(orig, root + orig)
        shutil.copy(os.path.join(src, "core"), os.path.join(tmp, "core"))
        # Without the sysroot the recorded path still exists here; make a core whose recorded
        # path is gone by copying the exe elsewhere is not possible, so check the sysroot file is
        # the one used.
        p = run(["--format", "json", "--sysroot", root, "core"], cwd=tmp)
        ok = p.returncode == 0
        if ok:
            r = json.loads(p.stdout)
            m = [m for m in r["modules"] if m["name"] == "exe"][0]
            ok = m["file"] == root + orig and "list_sum" in crashed_frames(r)
        check("--sysroot: executable taken under the sysroot", ok, p.stderr)

        # Usage and input errors: one line on stderr, documented statuses.
        p = run([])
        check("no arguments: exit 64", p.returncode == 64)
        p = run(["--format", "yaml", "core"], cwd=d)
        check("bad format: exit 64", p.returncode == 64)
        p = run([os.path.join(tmp, "missing")])
        check("missing file: exit 2, one line", p.returncode == 2 and p.stderr.count("\n") == 1 and
              p.stderr.startswith("coretriage: "), p.stderr)
        p = run([tmp])
        check("directory: exit 2", p.returncode == 2 and "directory" in p.stderr, p.stderr)
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        p = run([fifo])
        check("FIFO: exit 2, no hang", p.returncode == 2 and "FIFO" in p.stderr, p.stderr)
        empty = os.path.join(tmp, "empty")
        open(empty, "w").close()
        p = run([empty])
        check("empty file: exit 2", p.returncode == 2 and "empty" in p.stderr, p.stderr)
        p = run(["./exe"], cwd=d)
        check("executable given as core: said", p.returncode == 2 and "not a core" in p.stderr, p.stderr)
        text = os.path.join(tmp, "notes.txt")
        open(text, "w").write("hello\n" * 100)
        p = run([text])
        check("text file: exit 2", p.returncode == 2 and "not a core" in p.stderr, p.stderr)

    # Frame cap: said, exit 1.
    p = run(["--format", "json", "--max-frames", "100", "./exe", "core"], cwd=case("deep-recursion"))
    ok = p.returncode == 1
    if ok:
        r = json.loads(p.stdout)
        t = [t for t in r["threads"] if t["crashed"]][0]
        ok = len(t["frames"]) <= 100 + 8 and t["truncated"] and any("frame cap" in w for w in r["warnings"])
    check("--max-frames: cap said, exit 1", ok, str(p.returncode))

    # Deep recursion: every frame is accounted for, and the text report collapses it.
    p = run(["--format", "json", "./exe", "core"], cwd=case("deep-recursion"))
    r = json.loads(p.stdout)
    frames = crashed_frames(r)
    check("deep recursion: >= 10001 frames, reaches main", len(frames) >= 10001 and "main" in frames, len(frames))
    p = run(["--color=never", "./exe", "core"], cwd=case("deep-recursion"))
    check("deep recursion: collapsed in text", "more times (recursion)" in p.stdout and len(p.stdout) < 20000)

    # Color: only when asked or on a terminal, NO_COLOR honored.
    p = run(["./exe", "core"], cwd=d)
    check("no color when not a terminal", "\033[" not in p.stdout)
    p = run(["--color=always", "./exe", "core"], cwd=d)
    check("--color=always colors", "\033[" in p.stdout)
    p = run(["--color=auto", "./exe", "core"], cwd=d, env_extra={"NO_COLOR": "1"})
    check("NO_COLOR honored", "\033[" not in p.stdout)

    # Null call: the calling function recovered from the return address (bad-call).
    p = run(["--format", "json", "./exe", "core"], cwd=case("null-call"))
    r = json.loads(p.stdout)
    t = [t for t in r["threads"] if t["crashed"]][0]
    check("null call: caller recovered", t["frames"][0]["pc"] == "0x0" and t["frames"][1]["function"] ==
          "dispatch_event" and t["frames"][1]["trust"] == "bad-call")

    # Signal handler: the trampoline and the interrupted frames.
    p = run(["--format", "json", "./exe", "core"], cwd=case("signal-handler"))
    r = json.loads(p.stdout)
    t = [t for t in r["threads"] if t["crashed"]][0]
    fr = t["frames"]
    sig = [i for i, f in enumerate(fr) if f.get("signal_frame")]
    check("signal frame marked once", len(sig) == 1, [f["function"] for f in fr])
    check("signal: continues into the interrupted code", sig and fr[sig[0] + 1]["trust"] == "signal" and
          "main" in [f["function"] for f in fr])

    # Threads: crashing thread first, others by tid.
    p = run(["--format", "json", "./exe", "core"], cwd=case("threads"))
    r = json.loads(p.stdout)
    tids = [t["tid"] for t in r["threads"]]
    check("threads: crashing first, then sorted", r["threads"][0]["crashed"] and tids[1:] == sorted(tids[1:]))
    check("threads: crashing thread is not main", r["crashing_thread"] != r["process"]["pid"])

    # Inline frames at -O2.
    p = run(["--format", "json", "./exe", "core"], cwd=case("inline-o2"))
    r = json.loads(p.stdout)
    fr = [t for t in r["threads"] if t["crashed"]][0]["frames"]
    check("inline: sum_prefix inlined into checksum", fr[0]["function"] == "sum_prefix" and fr[0]["inlined"] and
          fr[1]["function"] == "checksum" and not fr[1]["inlined"])

    failed = sum(1 for _, ok in results if not ok)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
