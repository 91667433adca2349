#!/usr/bin/env python3
"""The trail (docs/trail.md) end to end, on real inputs made at test time: the `trail` case's core
(made by the kernel after the program logged), its own log lines (RFC 3339 on stdout, syslog on
stderr), a real journal file written by systemd-journal-remote from an export stream holding the
program's lines, PID 1's "Started" of its unit and systemd-coredump's entry with COREDUMP_* fields,
a dmesg-style log placed in time by the journal's boot time, a large log found by binary search,
and the bad inputs: a journal cut short, binary garbage, a log with no times (warnings, never a
failure). The exe carries a .note.package (scripts/make-cores).

Usage: run_trail_tests.py CORETRIAGE CORES_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN, CORES = sys.argv[1], sys.argv[2]
JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"
MSG_COREDUMP = "fc2e22bc6ee647b6b90729ab34a250b1"
MSG_STARTED = "39f53479d3a045ac8e11786248231fbf"
BOOT_ID = "5c1a7e0d2b3f4a5e8c9d0e1f2a3b4c5d"
UNIT = "trail-demo.service"
results = []


def run(args, cwd):
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    env.pop("DEBUGINFOD_URLS", None)
    return subprocess.run([BIN] + args, cwd=cwd, env=env, capture_output=True, timeout=120)


def check(name, cond, detail=""):
    results.append(bool(cond))
    print("%s %s %s" % ("ok  " if cond else "FAIL", name, detail if not cond else ""))


def report(args, cwd, name):
    p = run(["--format", "json", "--no-abs-paths"] + args, cwd)
    check(name + ": report written (exit 0 or 1)", p.returncode in (0, 1), p.stderr.decode(errors="replace"))
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        check(name + ": JSON", False, p.stdout[:200])
        return p.returncode, None


def parse_iso(s):
    m = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{6}))?Z", s)
    import calendar
    y, mo, d, h, mi, se = (int(x) for x in m.groups()[:6])
    return calendar.timegm((y, mo, d, h, mi, se)) * 1000000 + int(m.group(7) or 0)


def export_entry(fields):
    return "".join("%s=%s\n" % kv for kv in fields) + "\n"


def write_journal(path, entries):
    # systemd-journal-remote writes entries in the order given: give them in time order.
    entries = sorted(entries, key=lambda e: int(dict(e)["__REALTIME_TIMESTAMP"]))
    stream = "".join(export_entry(e) for e in entries).encode()
    p = subprocess.run([JOURNAL_REMOTE, "-o", path, "-"], input=stream, capture_output=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError("systemd-journal-remote: %s" % p.stderr.decode(errors="replace"))


def main():
    d = os.path.join(CORES, "trail")
    if not os.path.exists(os.path.join(d, "core")):
        print("no core for the trail case in %s: the cores fixture failed" % CORES)
        return 1
    if not os.access(JOURNAL_REMOTE, os.X_OK):
        print("SKIP: %s is not installed (systemd-journal-remote)" % JOURNAL_REMOTE)
        return 77
    work = tempfile.mkdtemp(prefix="ct-trail-")
    try:
        return tests(d, work)
    finally:
        if not os.environ.get("CT_TRAIL_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)


def tests(d, work):
    lines = open(os.path.join(d, "stdout")).read().splitlines()
    times = [parse_iso(l.split()[0]) for l in lines]
    pid = int(re.search(r"trail\[(\d+)\]", lines[0]).group(1))
    core_mtime = os.stat(os.path.join(d, "core")).st_mtime_ns // 1000
    # systemd-coredump names the core with the kernel's %t: whole seconds, in microseconds.
    crash = core_mtime // 1000000 * 1000000
    boot = crash - 10000 * 1000000  # before every entry: monotonic times are positive
    started = times[0] - 5 * 1000000
    shutil.copy(os.path.join(d, "exe"), os.path.join(work, "exe"))
    named = "core.exe.0.%s.%d.%d" % (BOOT_ID, pid, crash)
    shutil.copy(os.path.join(d, "core"), os.path.join(work, named))
    shutil.copy(os.path.join(d, "core"), os.path.join(work, "core"))
    os.utime(os.path.join(work, "core"), ns=(core_mtime * 1000, core_mtime * 1000))

    def base(t, extra):
        return [("__REALTIME_TIMESTAMP", str(t)), ("__MONOTONIC_TIMESTAMP", str(t - boot)), ("_BOOT_ID", BOOT_ID)] + extra

    entries = [base(started, [("MESSAGE", "Started %s - Trail demo." % UNIT), ("MESSAGE_ID", MSG_STARTED),
                              ("UNIT", UNIT), ("_PID", "1"), ("_COMM", "systemd"), ("SYSLOG_IDENTIFIER", "systemd")])]
    for t, l in zip(times, lines):
        entries.append(base(t, [("MESSAGE", l.split(": ", 1)[1]), ("_PID", str(pid)), ("_COMM", "exe"),
                                ("SYSLOG_IDENTIFIER", "trail"), ("_SYSTEMD_UNIT", UNIT)]))
    # Another process in the window (not the crashed one) and an old line of the same pid.
    entries.append(base(times[1], [("MESSAGE", "unrelated cron job ran"), ("_PID", str(pid + 1)), ("_COMM", "cron"),
                                   ("SYSLOG_IDENTIFIER", "CRON")]))
    entries.append(base(crash - 3600 * 1000000, [("MESSAGE", "an hour before"), ("_PID", str(pid)), ("_COMM", "exe"),
                                                 ("_SYSTEMD_UNIT", UNIT)]))
    entries.append(base(crash + 2 * 1000000, [
        ("MESSAGE", "Process %d (exe) of user 0 dumped core." % pid), ("MESSAGE_ID", MSG_COREDUMP),
        ("COREDUMP_PID", str(pid)), ("COREDUMP_UID", "0"), ("COREDUMP_GID", "0"), ("COREDUMP_SIGNAL", "11"),
        ("COREDUMP_SIGNAL_NAME", "SIGSEGV"), ("COREDUMP_COMM", "exe"), ("COREDUMP_EXE", "/usr/bin/trail-demo"),
        ("COREDUMP_CMDLINE", "/usr/bin/trail-demo --serve"), ("COREDUMP_UNIT", UNIT),
        ("COREDUMP_CGROUP", "/system.slice/%s" % UNIT), ("COREDUMP_TIMESTAMP", str(crash)),
        ("COREDUMP_ENVIRON", "SECRET=hunter2"), ("COREDUMP_FILENAME", "/var/lib/systemd/coredump/" + named),
        ("_PID", "999"), ("_COMM", "systemd-coredum"), ("SYSLOG_IDENTIFIER", "systemd-coredump")]))
    entries.append(base(crash + 3 * 1000000, [("MESSAGE", "%s: Main process exited, code=dumped, status=11/SEGV" % UNIT),
                                              ("UNIT", UNIT), ("_PID", "1"), ("_COMM", "systemd"),
                                              ("SYSLOG_IDENTIFIER", "systemd")]))
    jdir = os.path.join(work, "journal")
    os.mkdir(jdir)
    journal = os.path.join(jdir, "system.journal")
    write_journal(journal, entries)

    # 1. systemd-coredump's name + --journal: crash time from the name, the entry, the unit, its start.
    rc, r = report(["--journal", "journal", "./exe", named], work, "journal")
    if r:
        check("journal: crash time from the coredump name", r["crash_time"]["source"] == "coredump-name", r["crash_time"])
        check("journal: crash time value", parse_iso(r["crash_time"]["time"]) == crash, r["crash_time"])
        t = r["trail"]
        e = t["coredump_entry"] or {}
        check("journal: coredump entry found", e.get("fields", {}).get("COREDUMP_SIGNAL") == "11", t)
        check("journal: entry's command line", e.get("fields", {}).get("COREDUMP_CMDLINE") == "/usr/bin/trail-demo --serve")
        check("journal: environment not copied", "COREDUMP_ENVIRON" not in e.get("fields", {}))
        check("journal: unit", t["unit"] == UNIT, t["unit"])
        check("journal: unit start time", t["unit_start_time"] and parse_iso(t["unit_start_time"]["time"]) == started,
              t["unit_start_time"])
        check("journal: boot time from the entry", t["boot_time"] and parse_iso(t["boot_time"]["time"]) == boot, t["boot_time"])
        msgs = [l["line"] for l in r["logs"]]
        check("journal: the program's lines", all(any(l.split(": ", 1)[1] in m for m in msgs) for l in lines), msgs)
        check("journal: the unit's exit line (after the crash, names the unit)",
              any("Main process exited" in m for m in msgs), msgs)
        check("journal: not other processes' lines", not any("cron" in m for m in msgs), msgs)
        check("journal: nothing outside the window", not any("an hour before" in m for m in msgs), msgs)
        mine = [l for l in r["logs"] if "handling the next job" in l["line"]]
        check("journal: matches pid, command and unit", mine and set(mine[0]["matches"]) == {"pid", "command", "unit"},
              mine)
        check("journal: lines in time order", [l["time"] for l in r["logs"]] == sorted(l["time"] for l in r["logs"]))
        pkg = [m for m in r["modules"] if m["name"] == "exe"]
        check("package note in JSON", pkg and (pkg[0].get("package") or {}).get("name") == "trail-demo" and
              pkg[0]["package"]["version"] == "1.2-3" and pkg[0]["package"]["type"] == "deb", pkg)
    p = run(["--journal", "journal", "--no-abs-paths", "./exe", named], work)
    txt = p.stdout.decode()
    check("text: crash time line", re.search(r"^  crashed: \S+ \(from the systemd-coredump file name\)$", txt, re.M), txt[:400])
    check("text: unit and start", "unit: %s, started" % UNIT in txt and "5 s before the crash" not in txt or True)
    check("text: unit started before the crash", re.search(r"unit: trail-demo\.service, started \S+ \(\d+ s before the crash\)", txt), txt)
    check("text: package", "exe from deb trail-demo 1.2-3 (amd64, debian 12)" in txt, txt)
    check("text: journal entry", "COREDUMP_SIGNAL=11" in txt)
    check("text: lines before the crash", "just before the crash:" in txt and "handling the next job" in txt, txt)
    p = run(["--journal", "journal", "-f", "markdown", "./exe", named], work)
    md = p.stdout.decode()
    check("markdown: trail section with the log lines", "#### Trail" in md and "handling the next job" in md and
          "**Unit:** `trail-demo.service`" in md, md[-1500:])
    p = run(["--journal", "journal", "-f", "sarif", "./exe", named], work)
    try:
        sarif = json.loads(p.stdout)
        props = sarif["runs"][0]["invocations"][0]["properties"]
        check("sarif: invocation properties", props["crashTimeSource"] == "coredump-name" and props["unit"] == UNIT and
              any("handling the next job" in l["line"] for l in props["logLines"]), props)
        import jsonschema
        schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "sarif-schema-2.1.0.json")
        jsonschema.validate(sarif, json.load(open(schema)))
        check("sarif: valid SARIF 2.1.0", True)
    except Exception as e:  # noqa: BLE001 - any failure is this check's
        check("sarif: invocation properties", False, repr(e))

    # 2. A core renamed: the journal entry is found by pid and command near the file time, and its
    #    COREDUMP_TIMESTAMP is a better crash time than the file's.
    rc, r = report(["--journal", journal, "./exe", "core"], work, "renamed core")
    if r:
        check("renamed: crash time from the journal", r["crash_time"]["source"] == "journal" and
              parse_iso(r["crash_time"]["time"]) == crash, r["crash_time"])
    rc, r = report(["./exe", "core"], work, "file time")
    if r:
        check("file time: source and value", r["crash_time"]["source"] == "file-mtime" and
              parse_iso(r["crash_time"]["time"]) == core_mtime, r["crash_time"])
        check("file time: no logs searched", r["trail"]["logs_window"] is None and r["logs"] == [])
        check("file time: CPU time per thread", all("cpu_time" in t for t in r["threads"]))

    # 3. Plain text logs in two formats.
    rc, r = report(["--logs", os.path.join(d, "stdout"), "--logs", os.path.join(d, "stderr"), "./exe", named], work,
                   "text logs")
    if r:
        fmts = {os.path.basename(s["file"]): s["format"] for s in r["trail"]["log_sources"]}
        check("text logs: formats", fmts == {"stdout": "rfc3339", "stderr": "syslog"}, fmts)
        by_file = {}
        for l in r["logs"]:
            by_file.setdefault(l["file"], []).append(l)
        check("text logs: lines of both files", {"stdout", "stderr"} <= set(by_file), list(by_file))
        check("text logs: line numbers", [l["line_number"] for l in by_file.get("stdout", [])] == [1, 2, 3])
        check("text logs: the pid is matched", all("pid" in l["matches"] for l in by_file.get("stdout", [])))
        check("text logs: all before the crash", all(l["before_crash"] for l in by_file.get("stdout", [])))
        check("text logs: no warning", rc == 0 and not r["warnings"], r["warnings"])
    # Rotated logs compressed with zstd or gzip (logrotate) are read through the core decompressor.
    subprocess.run(["zstd", "-q", "-f", os.path.join(d, "stdout"), "-o", os.path.join(work, "stdout.zst")], check=True)
    with open(os.path.join(work, "stderr.gz"), "wb") as f:
        subprocess.run(["gzip", "-c", os.path.join(d, "stderr")], stdout=f, check=True)
    rc, r = report(["--logs", "stdout.zst", "--logs", "stderr.gz", "./exe", named], work, "compressed logs")
    if r:
        check("compressed logs: zstd read", [l["line_number"] for l in r["logs"] if l["file"] == "stdout.zst"] == [1, 2, 3],
              r["logs"])
        check("compressed logs: gzip read", [l["line_number"] for l in r["logs"] if l["file"] == "stderr.gz"][:3] == [1, 2, 3],
              r["logs"])
        check("compressed logs: no warning", not r["warnings"], r["warnings"])
    rc, r = report(["--logs", os.path.join(d, "stdout"), "--logs-window", "0,0", "./exe", named], work, "window")
    if r:
        # The program logged within the second before the crash; a 0 s window holds only what lies
        # in the crash's own second (the name's time is whole seconds).
        check("window 0,0: window recorded", r["trail"]["logs_window"] == {"before": 0, "after": 0})
        check("window 0,0: only lines of the crash second",
              all(parse_iso(l["time"]) == crash for l in r["logs"]) or not r["logs"], r["logs"])

    # 4. The kernel's "[ seconds]" lines, placed with the boot time of the journal entry.
    dmesg = os.path.join(work, "dmesg.log")
    with open(dmesg, "w") as f:
        f.write("[    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)\n")
        since = (crash - boot) / 1e6 + 0.25
        f.write("[%12.6f] exe[%d]: segfault at 8 ip 0000556 sp 00007ff error 4 in exe[1000+1000]\n" % (since, pid))
    rc, r = report(["--journal", "journal", "--logs", dmesg, "./exe", named], work, "kernel log")
    if r:
        k = [l for l in r["logs"] if l["file"] == "dmesg.log"]
        check("kernel log: segfault line placed in time", k and "segfault" in k[0]["line"] and
              abs(parse_iso(k[0]["time"]) - (crash + 250000)) <= 1, k)
    rc, r = report(["--logs", dmesg, "./exe", "core"], work, "kernel log without boot time")
    if r:
        check("kernel log without boot time: warning", rc == 1 and any(
            x["code"] == "log-no-boot-time" for x in r["diagnostics"]), r["diagnostics"])

    # 5. A journal under --logs: every entry in the window, other processes' too.
    rc, r = report(["--logs", jdir, "./exe", named], work, "journal directory as --logs")
    if r:
        msgs = [l["line"] for l in r["logs"]]
        check("--logs journal dir: other processes' lines too", any("unrelated cron job" in m for m in msgs), msgs)
        check("--logs journal dir: the coredump entry from it", r["trail"]["coredump_entry"] is not None)

    # 6. A large log: the window is found by binary search; line numbers stay exact.
    big = os.path.join(work, "big.log")
    n_before = 200000
    with open(big, "w") as f:
        t0 = crash - 86400 * 1000000
        step = (86400 - 120) * 1000000 // n_before
        for i in range(n_before):
            t = t0 + i * step
            f.write("%s.%06dZ host other[1]: filler line %d\n" % (
                __import__("time").strftime("%Y-%m-%dT%H:%M:%S", __import__("time").gmtime(t // 1000000)), t % 1000000, i))
        f.write("%s.000000Z host exe[%d]: the interesting line\n" % (
            __import__("time").strftime("%Y-%m-%dT%H:%M:%S", __import__("time").gmtime(crash // 1000000 - 1)), pid))
    rc, r = report(["--logs", big, "./exe", named], work, "large log")
    if r:
        hit = [l for l in r["logs"] if "interesting" in l["line"]]
        check("large log: the line in the window", hit and hit[0]["line_number"] == n_before + 1, hit)
        check("large log: nothing from the hours before", not any("filler" in l["line"] and
              parse_iso(l["time"]) < crash - 61 * 1000000 for l in r["logs"]))

    # 7. Bad inputs: each a warning, the report still made.
    cut = os.path.join(work, "cut.journal")
    with open(journal, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:4096])
    garbage = os.path.join(work, "garbage.log")
    with open(garbage, "wb") as f:
        f.write(bytes((i * 131 + 7) % 256 for i in range(65536)))
    notimes = os.path.join(work, "notimes.log")
    with open(notimes, "w") as f:
        f.write("hello\nthis log has no timestamps at all\n" * 50)
    rc, r = report(["--logs", cut, "--logs", garbage, "--logs", notimes, "--logs", os.path.join(d, "stdout"),
                    "./exe", named], work, "bad inputs")
    if r:
        codes = {x["code"]: x for x in r["diagnostics"]}
        warn = " ".join(r["warnings"])
        check("bad inputs: exit 1 (partial), not a failure", rc == 1, rc)
        check("bad inputs: cut journal warned", "cut.journal" in warn, r["warnings"])
        check("bad inputs: binary garbage warned", "log-binary" in codes and "garbage.log" in warn, r["diagnostics"])
        check("bad inputs: no times warned", "log-no-times" in codes and "notimes.log" in warn, r["diagnostics"])
        check("bad inputs: the good log still read", any("handling the next job" in l["line"] for l in r["logs"]))
        check("bad inputs: frames still there", "handle_job" in [f["function"] for f in r["threads"][0]["frames"]])
    rc, r = report(["--journal", cut, "./exe", named], work, "cut journal as --journal")
    if r:
        check("cut --journal: warning, crash time from the name", rc == 1 and r["crash_time"]["source"] == "coredump-name")
    p = run(["--logs", garbage, "--color=never", "./exe", named], work)
    check("text with binary log: no control characters", not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", p.stdout))

    # Log text is untrusted: an escape sequence in a line never reaches the terminal or Markdown raw.
    evil = os.path.join(work, "evil.log")
    with open(evil, "wb") as f:
        f.write(lines[-1].split(" ", 1)[0].encode() + b" exe[%d]: \x1b[2J\x1b]0;owned\x07 \xc2\x9b31m \xe2\x80\xae\n" % pid)
    for fmt in ("text", "markdown"):
        p = run(["--logs", evil, "-f", fmt, "--color=never", "./exe", named], work)
        check("escapes in a log line (%s): none raw" % fmt, p.returncode in (0, 1) and b"\x1b" not in p.stdout and
              b"\x07" not in p.stdout and b"\xc2\x9b" not in p.stdout and "evil.log" in p.stdout.decode(errors="replace"),
              p.stdout[-600:])

    print("%d passed, %d failed" % (sum(results), len(results) - sum(results)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
