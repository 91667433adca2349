#!/usr/bin/env python3
"""Hostile trail inputs (issue 22: items 6, 7, 8 and the smaller defects), each built from nothing at
test time around the real `trail` core: journals written by systemd-journal-remote, compressed logs,
a directory of 300,000 files, crash times out of range in a core's file name, a journal's
COREDUMP_TIMESTAMP and a vmcore's CRASHTIME, a journal entry long before the file time, log lines
with invisible Unicode. Every case checks that the run takes under 2 s of CPU, keeps its memory,
writes a report that the schema accepts, and says what it refused in a diagnostic.

    hostile_trail.py --coretriage BIN --cores DIR --workdir DIR --schema PATH --case NAME
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "robustness"))
import escapes  # noqa: E402
import hostile  # noqa: E402

JOURNAL_REMOTE = "/lib/systemd/systemd-journal-remote"
MSG_COREDUMP = "fc2e22bc6ee647b6b90729ab34a250b1"
BOOT_ID = "5c1a7e0d2b3f4a5e8c9d0e1f2a3b4c5d"
SECOND = 1000000
# The bound, in CPU seconds (the machine is shared; a quadratic pass is not).
MAX_CPU = 2.0


def sanitizer_factor(binary, cache={}):
    """2 for an AddressSanitizer build (CI's second pass), else 1: the bound is on the work a reader
    does, and ASan doubles the cost of the byte loops that inflate and scan the logs (1.6 s of CPU
    without it for the default budget's gigabyte, 2.6-3.0 s with it)."""
    if binary not in cache:
        ldd = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
        cache[binary] = 2 if "libasan" in ldd else 1
    return cache[binary]


class Seed:
    """The trail case's core in the work directory as `core` (file time kept) and its facts."""

    def __init__(self, cores, work):
        d = os.path.join(cores, "trail")
        if not os.path.exists(os.path.join(d, "core")):
            print("SKIP: no core for the trail case in %s" % cores)
            raise SystemExit(77)
        self.exe = os.path.join(work, "exe")
        self.core = os.path.join(work, "core")
        shutil.copy2(os.path.join(d, "exe"), self.exe)
        shutil.copy2(os.path.join(d, "core"), self.core)
        first = open(os.path.join(d, "stdout")).readline()
        self.pid = int(re.search(r"trail\[(\d+)\]", first).group(1))
        self.mtime = os.stat(self.core).st_mtime_ns // 1000


def run(a, f, name, args, env=None, rss_mib=512):
    """Runs coretriage with JSON output; checks time, memory, a whole report valid by the schema."""
    import json
    import jsonschema
    e = dict(os.environ, LC_ALL="C", TZ="UTC", **(env or {}))
    e.pop("DEBUGINFOD_URLS", None)
    r = hostile.Run([a.coretriage, "--format=json", "--no-debuginfod"] + args, timeout=120, env=e, watch_rss=True)
    rep = r.json()
    f.check(r.rc in (0, 1) and rep is not None and not r.sanitizer, f"{name}: no report: {r.describe()}")
    limit = MAX_CPU * sanitizer_factor(a.coretriage)
    f.check(r.cpu_seconds < limit, f"{name}: {r.cpu_seconds:.2f} s of CPU (at most {limit})")
    f.check(r.peak_rss_kib < rss_mib << 10, f"{name}: peak RSS {r.peak_rss_kib >> 10} MiB (at most {rss_mib})")
    if rep is not None:
        try:
            jsonschema.validate(rep, json.load(open(a.schema)))
        except jsonschema.ValidationError as ex:
            f.check(False, f"{name}: the report fails the schema: {ex.message[:200]}")
    print(f"{name}: exit {r.rc}, {r.cpu_seconds:.2f} s CPU, {r.seconds:.2f} s, peak RSS {r.peak_rss_kib >> 10} MiB")
    return r, rep or {}


def diags(rep, code):
    return [d["message"] for d in rep.get("diagnostics", []) if d.get("code") == code]


def write_journal(path, entries, extra=b""):
    """A journal file written by systemd-journal-remote from an export stream (entries in time order).
    @p entries yields lists of (KEY, VALUE bytes); @p extra is a field appended to every entry."""
    p = subprocess.Popen([JOURNAL_REMOTE, "-o", path, "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    for e in entries:
        p.stdin.write(b"".join(k.encode() + b"=" + v + b"\n" for k, v in e) + extra + b"\n")
    p.stdin.close()
    err = p.stderr.read()
    if p.wait() != 0:
        raise RuntimeError("systemd-journal-remote: %s" % err.decode(errors="replace"))


def base(t, boot):
    return [("__REALTIME_TIMESTAMP", b"%d" % t), ("__MONOTONIC_TIMESTAMP", b"%d" % (t - boot)),
            ("_BOOT_ID", BOOT_ID.encode())]


def need_journal_remote():
    if not os.access(JOURNAL_REMOTE, os.X_OK):
        print("SKIP: %s is not installed (systemd-journal-remote)" % JOURNAL_REMOTE)
        raise SystemExit(77)


def case_journal_shared_field(a, f, s):
    """Item 6: entries in the window sharing one 16 MiB MESSAGE (one data object in the file). Each
    entry costs its first 4 KiB: under --max-memory=64 (a copy budget of 16 MiB) 48 entries copied
    whole would need 768 MiB; cut, they need 200 KiB and no budget is reached."""
    need_journal_remote()
    path = os.path.join(a.workdir, "big-field.journal")
    boot = s.mtime - 1000 * SECOND
    big = b"MESSAGE=" + b"A" * (16 << 20) + b"\n"
    write_journal(path, (base(s.mtime - 30 * SECOND + i * 1000, boot) + [("_PID", b"%d" % s.pid)] for i in range(48)),
                  extra=big)
    r, rep = run(a, f, "journal-shared-field", ["--max-memory=64", "--logs", path, s.exe, s.core])
    lines = [l for l in rep.get("logs", []) if l["file"].endswith("big-field.journal")]
    f.check(len(lines) == 48, f"journal-shared-field: {len(lines)} of the 48 entries shown")
    # An entry copied whole (16 MiB) cannot be kept under --max-memory=64: its line comes out empty.
    f.check(all(len(l["line"].encode()) <= 4096 + 64 and l["line"].endswith("\u2026") for l in lines),
            "journal-shared-field: a line is not its first 4 KiB, cut")
    f.check(not diags(rep, "budget-copy"), f"journal-shared-field: budget-copy reached: {diags(rep, 'budget-copy')}")


def case_journal_copy_budget(a, f, s):
    """The copy budget ends a journal's scan with a diagnostic naming the journal and the limit; the
    report keeps what was read and everything else."""
    need_journal_remote()
    path = os.path.join(a.workdir, "busy.journal")
    boot = s.mtime - 1000 * SECOND
    msg = b"x" * 3000
    write_journal(path, (base(s.mtime - 50 * SECOND + i * 10000, boot) + [("MESSAGE", msg), ("_PID", b"%d" % s.pid)]
                         for i in range(6000)))
    r, rep = run(a, f, "journal-copy-budget", ["--safe", "--max-memory=64", "--logs", path, s.exe, s.core])
    m = diags(rep, "budget-copy")
    limit = (64 << 20) // 64 // 2
    f.check(r.rc == 1 and m and "busy.journal" in m[0] and str(limit) in m[0],
            f"journal-copy-budget: no budget-copy warning naming the journal and {limit}: {m}")
    f.check(rep.get("threads") and rep.get("logs"), "journal-copy-budget: the report lost its threads or lines")


def case_journal_empty_entries(a, f, s):
    """150,000 entries in the window with no field coretriage copies: each still costs the copy
    budget a record's worth, so they are not walked for free (1,000 such journals would be 200
    million entries)."""
    need_journal_remote()
    path = os.path.join(a.workdir, "empty.journal")
    boot = s.mtime - 1000 * SECOND
    write_journal(path, (base(s.mtime - 50 * SECOND + i * 500, boot) + [("X", b"1")] for i in range(150000)))
    r, rep = run(a, f, "journal-empty-entries", ["--safe", "--max-memory=64", "--logs", path, s.exe, s.core])
    m = diags(rep, "budget-copy")
    f.check(r.rc == 1 and m and "empty.journal" in m[0], f"journal-empty-entries: no budget-copy warning: {m}")
    src = [x for x in rep.get("trail", {}).get("log_sources", []) if x["file"].endswith("empty.journal")]
    f.check(src and 0 < src[0]["lines_in_window"] < 150000, f"journal-empty-entries: sources {src}")


def make_bomb(work, name, size_mib):
    """A zstd log of @p size_mib MiB of log lines in the window (32 KiB or so compressed)."""
    line = b"2026-12-01T14:03:07Z host prog[1]: the same line again and again\n"
    path = os.path.join(work, name)
    p = subprocess.Popen(["zstd", "-q", "-3", "-c"], stdin=subprocess.PIPE, stdout=open(path, "wb"))
    chunk = line * ((1 << 20) // len(line))
    for _ in range(size_mib):
        p.stdin.write(chunk)
    p.stdin.close()
    p.wait()
    return path, len(chunk) * size_mib


def case_compressed_logs(a, f, s):
    """Item 7: compressed logs inflating to 1 GiB each, in a tmpfs TMPDIR with --max-memory=64: one
    inflation budget (16 MiB) and one temp budget for all of them; the first log is read as far as it
    inflated, the others are not inflated, and $TMPDIR is empty afterwards. Then the same logs with
    the default budgets (4 GiB of memory: 256 MiB per log, 1 GiB of inflation, 256 MiB of lines)."""
    if not shutil.which("zstd"):
        print("SKIP: no zstd")
        raise SystemExit(77)
    if not os.path.isdir("/dev/shm"):
        print("SKIP: no /dev/shm")
        raise SystemExit(77)
    logs = os.path.join(a.workdir, "logs")
    os.makedirs(logs)
    bomb, size = make_bomb(logs, "a.log.zst", 1024)
    for i in range(1, 20):
        shutil.copy(bomb, os.path.join(logs, "%c.log.zst" % (ord("a") + i)))
    # The lines' time is the log's own: put the core's crash time there.
    t = 1796133787
    os.utime(s.core, (t, t))
    for n in os.listdir(logs):
        os.utime(os.path.join(logs, n), (t, t))
    tmp = tempfile.mkdtemp(prefix="ct-trail-tmp-", dir="/dev/shm")
    try:
        r, rep = run(a, f, "compressed-logs", ["--max-memory=64", "--logs", logs, s.exe, s.core], env={"TMPDIR": tmp},
                     rss_mib=256)
        f.check(not os.listdir(tmp), f"compressed-logs: $TMPDIR not empty: {os.listdir(tmp)[:4]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    m = diags(rep, "budget-debug") + diags(rep, "budget-temp")
    f.check(r.rc == 1 and m and "a.log.zst" in m[0] and str(16 << 20) in m[0],
            f"compressed-logs: no budget warning naming the first log and the 16 MiB limit: {m}")
    f.check(any(l["file"].endswith("a.log.zst") for l in rep.get("logs", [])),
            "compressed-logs: the lines inflated before the budget were not read")
    f.check(all(not l["file"].endswith("b.log.zst") for l in rep.get("logs", [])),
            "compressed-logs: a log was inflated after the budget was spent")

    # The default budget (memory 4 GiB: 1 GiB of inflation, shared) bounds the same logs too.
    r2, rep2 = run(a, f, "compressed-logs-default", ["--logs", logs, s.exe, s.core], env={"TMPDIR": "/dev/shm"},
                   rss_mib=256)
    f.check(r2.rc == 1 and any(diags(rep2, c) for c in ("budget-debug", "budget-copy", "budget-temp")),
            f"compressed-logs-default: no budget diagnostic for 20 GiB of logs: {hostile.diag_codes(rep2)}")


def case_many_files(a, f, s):
    """Item 8: 300,000 files under --logs: the files beyond the cap are neither stat'ed nor opened."""
    # On a tmpfs when there is one: 300,000 creations on ext4 take a minute on a busy machine.
    d = os.path.join(tempfile.mkdtemp(prefix="ct-trail-many-", dir="/dev/shm" if os.path.isdir("/dev/shm") else a.workdir),
                     "many")
    os.makedirs(d)
    for i in range(300000):
        os.close(os.open(os.path.join(d, "f%06d.log" % i), os.O_CREAT | os.O_WRONLY, 0o644))
    r, rep = run(a, f, "many-files", ["--logs", d, s.exe, s.core])
    m = diags(rep, "logs-cap") + diags(rep, "budget-files")
    f.check(r.rc == 1 and m, f"many-files: no logs-cap or budget-files warning: {hostile.diag_codes(rep)}")
    f.check(len(rep.get("trail", {}).get("log_sources", [])) <= 1000, "many-files: more than 1,000 log sources")
    strace = shutil.which("strace")
    if strace:
        # Count the system calls on the files themselves: at most the cap's worth.
        out = os.path.join(a.workdir, "strace.out")
        subprocess.run([strace, "-f", "-qq", "-e", "trace=stat,newfstatat,lstat,openat,statx", "-o", out,
                        a.coretriage, "--format=json", "--no-debuginfod", "--logs", d, s.exe, s.core],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        calls = sum(1 for line in open(out) if "/many/f" in line)
        f.check(calls <= 3 * 1000, f"many-files: {calls} stat/open calls on the files (at most 3 per file read)")
        print(f"many-files: {calls} stat/open calls on the 300,000 files")
    shutil.rmtree(os.path.dirname(d), ignore_errors=True)


def case_crash_time_name(a, f, s):
    """A systemd-coredump file name whose TIMESTAMP is past any real time (year 294247, 2^64 - 1)."""
    for ts in ("9223372036854775807", "18446744073709551615", "253402300800000000"):
        named = os.path.join(a.workdir, "core.exe.0.%s.%d.%s" % (BOOT_ID, s.pid, ts))
        shutil.copy2(s.core, named)
        r, rep = run(a, f, "crash-time-name " + ts, ["--no-journal", "--logs", a.workdir, s.exe, named])
        ct = rep.get("crash_time") or {}
        f.check(diags(rep, "crash-time-out-of-range") and ts in diags(rep, "crash-time-out-of-range")[0],
                f"crash-time-name {ts}: no crash-time-out-of-range warning: {hostile.diag_codes(rep)}")
        f.check(ct.get("source") == "file-mtime", f"crash-time-name {ts}: crash time {ct}")
        os.unlink(named)


def case_crash_time_journal(a, f, s):
    """COREDUMP_TIMESTAMP out of range in the coredump entry (both ends of int64) for a core whose
    own time is its file time: the journal does not replace it."""
    need_journal_remote()
    boot = s.mtime - 1000 * SECOND
    for ts in (b"9223372036854775807", b"-9223372036854775808", b"253402300800000000"):
        path = os.path.join(a.workdir, "ts.journal")
        if os.path.exists(path):
            os.unlink(path)
        write_journal(path, [base(s.mtime + 2 * SECOND, boot) + [
            ("MESSAGE", b"Process %d (exe) of user 0 dumped core." % s.pid), ("MESSAGE_ID", MSG_COREDUMP.encode()),
            ("COREDUMP_PID", b"%d" % s.pid), ("COREDUMP_COMM", b"exe"), ("COREDUMP_TIMESTAMP", ts),
            ("COREDUMP_UNIT", b"trail-demo.service")]])
        r, rep = run(a, f, "crash-time-journal " + ts.decode(), ["--journal", path, s.exe, s.core])
        ct = rep.get("crash_time") or {}
        m = diags(rep, "crash-time-out-of-range")
        f.check(m and ts.decode() in m[0], f"crash-time-journal {ts}: no crash-time-out-of-range warning: {m}")
        f.check(ct.get("source") == "file-mtime", f"crash-time-journal {ts}: crash time {ct}")
        f.check((rep.get("trail") or {}).get("coredump_entry"), f"crash-time-journal {ts}: the entry was not kept")


def case_crash_time_vmcore(a, f, s):
    """VMCOREINFO CRASHTIME out of range (and past 64 bits) in a kernel dump written from nothing."""
    for ct in (b"9223372036854775807", b"-9223372036854775808", b"99999999999999999999999", b"253402300800"):
        path = os.path.join(a.workdir, "vmcore")
        escapes.make_vmcore(path, b"OSRELEASE=6.1.0\nPAGESIZE=4096\nKERNELOFFSET=0\nCRASHTIME=" + ct + b"\n")
        r, rep = run(a, f, "crash-time-vmcore " + ct.decode(), ["--logs", a.workdir, path])
        m = diags(rep, "crash-time-out-of-range")
        f.check(m and "CRASHTIME" in m[0], f"crash-time-vmcore {ct}: no crash-time-out-of-range warning: "
                f"{hostile.diag_codes(rep)}")
        f.check((rep.get("crash_time") or {}).get("source") in ("file-mtime", None),
                f"crash-time-vmcore {ct}: crash time {rep.get('crash_time')}")


def case_window_follows_journal(a, f, s):
    """The core's file time is two hours after the crash (copied later): the coredump entry, logged
    two hours before the file time, is found, its COREDUMP_TIMESTAMP becomes the crash time, and the
    log window moves with it (a line a second before the crash is shown, one at the file time not)."""
    need_journal_remote()
    crash = s.mtime // SECOND * SECOND
    later = crash + 7200 * SECOND
    os.utime(s.core, ns=(later * 1000, later * 1000))
    boot = crash - 1000 * SECOND
    path = os.path.join(a.workdir, "moved.journal")
    write_journal(path, [
        base(crash - SECOND, boot) + [("MESSAGE", b"the last words before the crash"), ("_PID", b"%d" % s.pid)],
        base(crash + 2 * SECOND, boot) + [
            ("MESSAGE", b"Process %d (exe) of user 0 dumped core." % s.pid), ("MESSAGE_ID", MSG_COREDUMP.encode()),
            ("COREDUMP_PID", b"%d" % s.pid), ("COREDUMP_COMM", b"exe"), ("COREDUMP_TIMESTAMP", b"%d" % crash)],
        base(later - SECOND, boot) + [("MESSAGE", b"at the file time, long after"), ("_PID", b"%d" % s.pid)]])
    r, rep = run(a, f, "window-follows-journal", ["--journal", path, s.exe, s.core])
    ct = rep.get("crash_time") or {}
    f.check(ct.get("source") == "journal", f"window-follows-journal: crash time {ct} (the entry was not found)")
    texts = [l["line"] for l in rep.get("logs", [])]
    f.check(any("the last words" in t for t in texts), f"window-follows-journal: the line before the crash is missing: {texts}")
    f.check(not any("long after" in t for t in texts), f"window-follows-journal: the window stayed at the file time: {texts}")


INVISIBLE = ["\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u2060",
             "\ufeff", "\U000e0041", "\U000e007f"]


def case_invisible_text(a, f, s):
    """Log lines naming the process with bidi controls, zero-width and tag characters: shown escaped
    in text and Markdown, never raw."""
    t = s.mtime // SECOND - 1
    import time as _time
    stamp = _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime(t))
    log = os.path.join(a.workdir, "app.log")
    with open(log, "w", encoding="utf-8") as out:
        out.write("%s host trail[%d]: user %s admin%s\n" % (stamp, s.pid, "".join(INVISIBLE), "\u202e"))
    os.utime(log, (t + 1, t + 1))
    r, rep = run(a, f, "invisible-text", ["--logs", log, s.exe, s.core])
    f.check(any("admin" in l["line"] for l in rep.get("logs", [])), "invisible-text: the line was not kept")
    for fmt in ("text", "markdown"):
        p = subprocess.run([a.coretriage, "--format=" + fmt, "--no-debuginfod", "--logs", log, s.exe, s.core],
                           capture_output=True, timeout=60, env=dict(os.environ, LC_ALL="C", TZ="UTC"))
        out = p.stdout.decode("utf-8", "replace")
        raw = [hex(ord(c)) for c in INVISIBLE if c in out]
        f.check(p.returncode in (0, 1) and "admin" in out and not raw, f"invisible-text {fmt}: raw {raw} in the output")
        f.check("u061c" in out and "U000e0041" in out, f"invisible-text {fmt}: the characters are not shown escaped")


CASES = {"journal-shared-field": case_journal_shared_field, "journal-copy-budget": case_journal_copy_budget,
         "journal-empty-entries": case_journal_empty_entries,
         "compressed-logs": case_compressed_logs, "many-files": case_many_files,
         "crash-time-name": case_crash_time_name, "crash-time-journal": case_crash_time_journal,
         "crash-time-vmcore": case_crash_time_vmcore, "window-follows-journal": case_window_follows_journal,
         "invisible-text": case_invisible_text}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--cores", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    a = ap.parse_args()
    a.workdir = os.path.abspath(os.path.join(a.workdir, a.case))
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    f = hostile.Failures()
    try:
        CASES[a.case](a, f, Seed(a.cores, a.workdir))
    finally:
        if not os.environ.get("CT_TRAIL_KEEP"):
            shutil.rmtree(a.workdir, ignore_errors=True)
    return f.exit()


if __name__ == "__main__":
    sys.exit(main())
