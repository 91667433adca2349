"""`coretriage collect` (docs/fleet.md), called by run_store_tests.py: a real core fed through a pipe
with the core_pattern arguments as the kernel passes them, and real cores dropped into a watched
directory (one there before the watcher starts, one renamed in as systemd-coredump does, one
written in place), each report written next to its core and recorded in the store; the analysis
runs as an unprivileged user (a program only root can read is not read)."""
import json
import os
import shutil
import sqlite3
import subprocess
import time


def run_all(BIN, W, bugs, make_core, check):
    root = os.geteuid() == 0
    db = os.path.join(W, "collect.db")
    src = make_core(os.path.join(W, "collect-src", "null"), bugs, "null-read", "4")
    # -- Pipe: the core on standard input, %P %s %t %E.
    cores = os.path.join(W, "collect", "cores")  # made by collect, parents too
    private = os.path.join(W, "private")
    os.makedirs(private)
    exe = bugs
    if root:
        # A program in a directory only root may enter: the analysis, run as another user,
        # cannot read it (it would with root's rights).
        shutil.copy(bugs, os.path.join(private, "bugs"))
        os.chmod(private, 0o700)
        exe = os.path.join(private, "bugs")
    with open(src, "rb") as f:
        r = subprocess.run([BIN, "collect", "--pipe", "--core-dir", cores, "--db", db, "--record-version", "2.0",
                            "4242", "11", "1767225600", exe.replace("/", "!")],
                           stdin=f, capture_output=True, text=True, timeout=300)
    check(r.returncode in (0, 1), "collect --pipe: exit %d: %s" % (r.returncode, r.stderr))
    saved = sorted(os.listdir(cores)) if os.path.isdir(cores) else []
    check(len(saved) == 2 and saved[0].startswith("core.bugs.") and saved[0].endswith(".4242.1767225600000000")
          and saved[1] == saved[0] + ".json", "collect --pipe: saved %s" % saved)
    if len(saved) == 2:
        check(os.path.getsize(os.path.join(cores, saved[0])) == os.path.getsize(src), "collect --pipe: core size")
        rep = json.load(open(os.path.join(cores, saved[1])))
        check(rep["crash"]["class"] == "null-deref", "collect --pipe: class %s" % rep["crash"].get("class"))
        env = rep.get("environment") or {}
        check(env.get("coredump.pid") == "4242", "collect --pipe: name metadata %s" % env)
        if root:
            check(rep["input"]["executable"] is None,
                  "collect --pipe: the analysis read a file only root can read: %s" % rep["input"])
    # -- Watch: one core before the watcher starts, then one renamed in, one written in place.
    watch = os.path.join(W, "watched")
    os.makedirs(watch)
    os.chmod(watch, 0o755)
    boot = "0123456789abcdef0123456789abcdef"
    shutil.copy(src, os.path.join(watch, "core.bugs.0.%s.100.1767229200000000" % boot))
    p = subprocess.Popen([BIN, "collect", "--watch", watch, "--db", db, "--exit-after", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = os.path.join(watch, "core.bugs.0.%s.100.1767229200000000.json" % boot)
    deadline = time.time() + 120
    while not os.path.exists(first) and time.time() < deadline and p.poll() is None:
        time.sleep(0.1)
    check(os.path.exists(first), "collect --watch: a core present at start is triaged")
    tmp = os.path.join(watch, ".#core.bugs.tmp")
    shutil.copy(src, tmp)
    os.rename(tmp, os.path.join(watch, "core.bugs.0.%s.101.1767232800000000" % boot))
    subprocess.run(["zstd", "-q", "-o", os.path.join(watch, "core.bugs.0.%s.102.1767236400000000.zst" % boot), src],
                   check=True)
    try:
        out, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        check(False, "collect --watch: did not see 3 cores: %s" % err)
    reports = sorted(n for n in os.listdir(watch) if n.endswith(".json"))
    check(len(reports) == 3, "collect --watch: reports %s (%s)" % (reports, err))
    c = sqlite3.connect(db)
    rows = c.execute("SELECT time, version, core FROM reports ORDER BY time").fetchall()
    c.close()
    check(len(rows) == 4 and rows[0][1] == "2.0" and rows[1][0] == 1767229200 and rows[3][0] == 1767236400,
          "collect: recorded %s" % rows)
    # -- Errors: a usage error, a missing directory.
    r = subprocess.run([BIN, "collect", "--pipe", "1", "2"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 64 and "%P %s %t %E" in r.stderr, "collect usage: %d %s" % (r.returncode, r.stderr))
    r = subprocess.run([BIN, "collect", "--watch", os.path.join(W, "nowhere")], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 2 and "nowhere" in r.stderr, "collect --watch missing: %d %s" % (r.returncode, r.stderr))
    print("collect: pipe and watched directory checked (as %s)" % ("root, analysis as an unprivileged user" if root
                                                                   else "an unprivileged user"))
