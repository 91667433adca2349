#!/usr/bin/env python3
"""Live processes (docs/live.md): coretriage -p PID and --gcore on real processes this test starts.

Each case builds its program from testdata/src/ (hang.c, live.c, live_futex.c) into the work directory, starts it,
waits for its ./ready, runs coretriage against it and kills it at the end. gdb is the oracle for
--gcore: its backtrace of the written core must name the same functions, thread by thread, as its
own backtrace of the live process.

Usage: check_live.py --coretriage BIN --source-dir testdata/src --workdir DIR --schema SCHEMA --case CASE
Cases: deadlock, accept, logs (the capture time as the trail's crash time), epoll (a server in epoll_wait, -p and sample), gcore-gdb, sigkill, permission, many-threads, forker, errors, sample-spin,
sample-wait (coretriage sample: a busy loop >= 90 % in its function, blocked threads' states),
sample-futex (futex waits named by their glibc object and its holder, live_futex.c).
Exit 77 (skipped) when ptrace is not permitted here at all.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

SKIP = 77


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def build(args, src, name, flags=("-O0", "-g", "-fno-omit-frame-pointer", "-pthread")):
    out = os.path.join(args.workdir, name)
    srcp = os.path.join(args.source_dir, src)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(srcp):
        subprocess.run(["cc", *flags, "-o", out, srcp], check=True)
    return out


class Target:
    """A program started in its own directory; ready when it wrote ./ready."""

    def __init__(self, args, exe, *argv, user=None):
        self.dir = os.path.join(args.workdir, "run-" + args.case)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        cmd = [exe, *argv]
        if user:
            cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
        self.exe = exe
        self.proc = subprocess.Popen(cmd, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while not os.path.exists(os.path.join(self.dir, "ready")):
            if self.proc.poll() is not None or time.time() > deadline:
                fail(f"{' '.join(cmd)} did not get ready (exit {self.proc.poll()})")
            time.sleep(0.02)
        self.pid = self.proc.pid

    def states(self):
        """The state letter of each thread ('t' is a tracing stop)."""
        out = {}
        for tid in os.listdir(f"/proc/{self.pid}/task"):
            try:
                with open(f"/proc/{self.pid}/task/{tid}/stat") as f:
                    out[int(tid)] = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                pass
        return out

    def tracer(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("TracerPid:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def run(args, *argv, env=None, user=None):
    cmd = [args.coretriage, *argv]
    if user:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def report(args, target, *extra):
    r = run(args, "-p", str(target.pid), "-f", "json", "--no-debuginfod", *extra)
    if r.returncode not in (0, 1):
        fail(f"coretriage -p {target.pid} exit {r.returncode}: {r.stderr.strip()}")
    doc = json.loads(r.stdout)
    validate(args, doc)
    if doc["input"]["kind"] != "live" or doc["input"]["pid"] != target.pid:
        fail(f"input is {doc['input']}, not live pid {target.pid}")
    if not isinstance(doc["live"]["stopped_ms"], (int, float)) or doc["live"]["stopped_ms"] < 0:
        fail(f"live.stopped_ms is {doc['live']}")
    return doc


def validate(args, doc):
    try:
        import jsonschema
    except ImportError:
        return
    with open(args.schema) as f:
        jsonschema.validate(doc, json.load(f))


def still_running(target, what):
    """The target is not left stopped and not traced, and it still runs."""
    time.sleep(0.1)
    if target.proc.poll() is not None:
        fail(f"{what}: the target exited ({target.proc.returncode})")
    stopped = {t: s for t, s in target.states().items() if s in "tT"}
    if stopped:
        fail(f"{what}: threads left stopped: {stopped}")
    if target.tracer():
        fail(f"{what}: still traced by {target.tracer()}")


def functions(thread):
    return [f.get("function") for f in thread["frames"]]


def case_deadlock(args):
    exe = build(args, "hang.c", "hang")
    t = Target(args, exe, "abba")
    try:
        gcore = os.path.join(t.dir, "live.core")
        doc = report(args, t, "--gcore", gcore)
        still_running(t, "deadlock")
        if doc["crash"]["class"] != "deadlock":
            fail(f"class {doc['crash']['class']}, not deadlock: {doc['crash']['summary']}")
        cycles = doc["hang"]["cycles"]
        if len(cycles) != 1 or sorted(cycles[0]["functions"]) != ["restock", "transfer_funds"]:
            fail(f"cycle is {cycles}")
        names = sorted(doc["hang"]["locks"][i]["name"] for i in cycles[0]["locks"])
        if names != ["accounts", "orders"]:
            fail(f"cycle's locks are {names}")
        # The same process as a core: the written file gives the same cycle.
        r = run(args, exe, gcore, "-f", "json", "--no-debuginfod")
        core = json.loads(r.stdout)
        if core["crash"]["class"] != "deadlock" or core["hang"]["cycles"][0]["functions"] != cycles[0]["functions"]:
            fail(f"the --gcore core says {core['crash']['class']} {core['hang']['cycles']}")
    finally:
        t.stop()


def waits_by_call(doc):
    """The blocking call of each waiting thread -> the function that made it."""
    return {th["wait"]["syscall"]: th["wait"].get("function") for th in doc["threads"] if th.get("wait")}


def case_accept(args):
    exe = build(args, "hang.c", "hang")
    t = Target(args, exe, "io")
    try:
        doc = report(args, t)
        still_running(t, "accept")
        waits = waits_by_call(doc)
        if waits.get("accept") != "serve_clients" or waits.get("read") != "read_commands":
            fail(f"waits are {waits}")
        if doc["crash"]["class"] != "no-signal":
            fail(f"class {doc['crash']['class']}")
    finally:
        t.stop()


def case_logs(args):
    # A live report's crash time is the capture (source "capture"): --logs shows the lines the
    # process' log got in the window before it, and none from before the window.
    exe = build(args, "hang.c", "hang")
    t = Target(args, exe, "io")
    try:
        log = os.path.join(t.dir, "service.log")
        now = time.time()
        stamp = lambda s: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s))
        with open(log, "w") as f:
            f.write(f"{stamp(now - 3600)}.000000Z host hang[{t.pid}]: an hour ago, outside the window\n")
            f.write(f"{stamp(now - 2)}.000000Z host hang[{t.pid}]: waiting for clients\n")
        before = int(time.time())
        doc = report(args, t, "--logs", log)
        after = int(time.time())
        still_running(t, "logs")
        ct = doc.get("crash_time") or {}
        if ct.get("source") != "capture":
            fail(f"crash time {ct}, not the capture")
        when = time.mktime(time.strptime(ct["time"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
        if not before - 1 <= when <= after + 1:
            fail(f"crash time {ct['time']} is not the capture ({before}..{after})")
        lines = [l["line"] for l in doc["logs"]]
        if not any("waiting for clients" in l for l in lines) or any("an hour ago" in l for l in lines):
            fail(f"log lines {lines}")
    finally:
        t.stop()


def case_epoll(args):
    # A server blocked in epoll_wait: -p names the call and the function, sample roots the stack at
    # the call with the descriptor's target (an epoll set: anon_inode:[eventpoll]).
    exe = build(args, "live.c", "live")
    t = Target(args, exe, "epoll")
    try:
        doc = report(args, t)
        still_running(t, "epoll")
        waits = waits_by_call(doc)
        call = [c for c in waits if c.startswith("epoll_")]
        if not call or waits[call[0]] != "wait_events":
            fail(f"waits are {waits}")
        stacks = folded(sample(args, t, "--duration", "1s", "--rate", "20", "-f", "folded"))
        still_running(t, "sample")
        roots = {f[0]: f for f, _ in stacks}
        epoll = [r for r in roots if r.startswith("epoll_") and "anon_inode:[eventpoll]" in r]
        if not epoll or "wait_events" not in roots[epoll[0]]:
            fail(f"states are {sorted(roots)}")
    finally:
        t.stop()


def gdb_bt(*argv):
    """{lwp: [function, …]} from gdb's `thread apply all bt`."""
    r = subprocess.run(["gdb", "-nx", "-batch", "-ex", "set print frame-arguments none",
                        "-ex", "thread apply all bt", *argv], capture_output=True, text=True, timeout=120)
    threads, cur = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("Thread ") and "LWP " in line:
            cur = int(line.split("LWP ")[1].split(")")[0])
            threads[cur] = []
        elif line.startswith("#") and cur is not None:
            words = line.split()
            fn = words[3] if len(words) > 3 and words[2] == "in" else words[1]
            threads[cur].append(fn)
    return threads


def case_gcore_gdb(args):
    exe = build(args, "hang.c", "hang")
    t = Target(args, exe, "abba")
    try:
        gcore = os.path.join(t.dir, "live.core")
        report(args, t, "--gcore", gcore)
        still_running(t, "gcore")
        live = gdb_bt("-p", str(t.pid))
        still_running(t, "after gdb -p")
        from_core = gdb_bt(exe, gcore)
        if not live or live != from_core:
            fail(f"gdb's bt differs:\n live {live}\n core {from_core}")
        es = subprocess.run(["eu-stack", "--core", gcore, "-e", exe], capture_output=True, text=True, timeout=60)
        if "transfer_funds" not in es.stdout or "restock" not in es.stdout:
            fail(f"eu-stack reads the core as:\n{es.stdout}{es.stderr}")
    finally:
        t.stop()


def case_sigkill(args):
    exe = build(args, "live.c", "live")
    t = Target(args, exe, "spin")
    try:
        env = dict(os.environ, CORETRIAGE_TEST_HOLD_MS="20000")
        ct = subprocess.Popen([args.coretriage, "-p", str(t.pid), "-f", "json"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Wait until coretriage holds the process stopped.
        deadline = time.time() + 20
        while not all(s == "t" for s in t.states().values()):
            if time.time() > deadline or ct.poll() is not None:
                fail(f"the target was never held stopped (states {t.states()}, coretriage {ct.poll()})")
            time.sleep(0.01)
        ct.kill()
        ct.wait()
        with open(f"/proc/{t.pid}/stat") as f:
            before = int(f.read().rsplit(")", 1)[1].split()[11])
        still_running(t, "coretriage killed")
        time.sleep(0.5)
        with open(f"/proc/{t.pid}/stat") as f:
            after = int(f.read().rsplit(")", 1)[1].split()[11])
        if after <= before:
            fail(f"the target's user time did not move after coretriage died ({before} -> {after} ticks)")
    finally:
        t.stop()


def case_permission(args):
    if os.geteuid() != 0:
        print("skipped: needs root to start a process as another user")
        sys.exit(SKIP)
    exe = build(args, "live.c", "live")
    os.chmod(args.workdir, 0o755)
    t = Target(args, exe, "spin")
    try:
        r = run(args, "-p", str(t.pid), user="65534")
        if r.returncode != 2 or "belongs to user 0" not in r.stderr or r.stderr.count("\n") != 1:
            fail(f"exit {r.returncode}, stderr {r.stderr!r}")
        still_running(t, "refused")
    finally:
        t.stop()


def case_many_threads(args):
    exe = build(args, "live.c", "live")
    t = Target(args, exe, "sleepers", "1000")
    try:
        doc = report(args, t)
        still_running(t, "many threads")
        sleepers = [th for th in doc["threads"] if "sleeper_wait" in functions(th)]
        if len(doc["threads"]) != 1001 or len(sleepers) != 1000:
            fail(f"{len(doc['threads'])} threads, {len(sleepers)} in sleeper_wait")
        print(f"1001 threads stopped for {doc['live']['stopped_ms']:.1f} ms")
    finally:
        t.stop()


def case_forker(args):
    exe = build(args, "live.c", "live")
    t = Target(args, exe, "forker")
    try:
        for _ in range(5):
            doc = report(args, t)
            still_running(t, "forker")
            if not any("fork_often" in functions(th) for th in doc["threads"]):
                fail(f"no thread in fork_often: {[functions(th) for th in doc['threads']]}")
    finally:
        t.stop()


def case_errors(args):
    # A pid that does not exist, a zombie, coretriage itself: one clear line and exit 2 each.
    dead = subprocess.Popen(["true"])
    dead.wait()
    r = run(args, "-p", str(dead.pid))
    if r.returncode != 2 or "no process" not in r.stderr or r.stderr.count("\n") != 1:
        fail(f"gone pid: exit {r.returncode}, stderr {r.stderr!r}")
    zombie = subprocess.Popen(["true"])
    time.sleep(0.3)  # exited, not waited for
    r = run(args, "-p", str(zombie.pid))
    zombie.wait()
    if r.returncode != 2 or "zombie" not in r.stderr:
        fail(f"zombie: exit {r.returncode}, stderr {r.stderr!r}")
    r = run(args, "--gcore", "x.core")
    if r.returncode != 64:
        fail(f"--gcore without -p: exit {r.returncode}")


def sample(args, target, *extra):
    r = run(args, "sample", "-p", str(target.pid), "--no-debuginfod", *extra)
    if r.returncode != 0:
        fail(f"coretriage sample exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def folded(text):
    """[(frames, count)] of folded lines."""
    out = []
    for line in text.splitlines():
        stack, count = line.rsplit(" ", 1)
        out.append((stack.split(";"), int(count)))
    return out


def case_sample_spin(args):
    # A busy loop in a known function: at least 90 % of the samples there, on a CPU.
    exe = build(args, "live.c", "live")
    t = Target(args, exe, "spin")
    try:
        svg = os.path.join(t.dir, "profile.svg")
        stacks = folded(sample(args, t, "--duration", "2s", "-f", "folded", "--flamegraph", svg))
        still_running(t, "sample")
        total = sum(c for _, c in stacks)
        spin = sum(c for f, c in stacks if f[0] == "on-CPU" and f[-1] == "spin_forever")
        if total < 20 or spin < 0.9 * total:
            fail(f"{spin} of {total} samples in spin_forever: {stacks}")
        with open(svg) as f:
            if "spin_forever" not in f.read():
                fail("the flame graph has no spin_forever")
        text = sample(args, t, "--duration", "1s")
        if "on-CPU" not in text or "spin_forever" not in text:
            fail(f"the text summary is\n{text}")
    finally:
        t.stop()


def case_sample_wait(args):
    # Threads blocked: the state is the root frame, with the descriptor's target.
    exe = build(args, "hang.c", "hang")
    t = Target(args, exe, "io")
    try:
        stacks = folded(sample(args, t, "--duration", "1s", "--rate", "20", "-f", "folded"))
        still_running(t, "sample")
        roots = {f[0]: f for f, _ in stacks}
        accept = [r for r in roots if r.startswith("accept") and "socket:[" in r]
        read = [r for r in roots if r.startswith("read(fd") and "pipe:[" in r]
        if not accept or not read or "serve_clients" not in roots[accept[0]] or "read_commands" not in roots[read[0]]:
            fail(f"states are {sorted(roots)}")
    finally:
        t.stop()


def case_sample_sleep(args):
    # A thread in a timed sleep (hang.c io-held: slow_flush in nanosleep(30 s)): a tick interrupts it
    # and the kernel resumes it through restart_syscall; every tick still names the sleep.
    exe = build(args, "hang.c", "hang")
    t = Target(args, exe, "io-held")
    try:
        stacks = folded(sample(args, t, "--duration", "1s", "--rate", "20", "-f", "folded"))
        still_running(t, "sample")
        roots = {}
        for frames, count in stacks:
            if "slow_flush" in frames:
                roots[frames[0]] = roots.get(frames[0], 0) + count
        if not roots or set(roots) - {"clock_nanosleep", "nanosleep"}:
            fail(f"slow_flush's roots are {roots}: the sleep, never restart_syscall")
        if sum(roots.values()) < 10:
            fail(f"only {sum(roots.values())} samples of slow_flush in 1 s at 20 Hz: {roots}")
    finally:
        t.stop()


def case_sample_futex(args):
    # Threads blocked on glibc objects and a raw futex (live_futex.c): each root frame names the
    # object at the address the program printed and the holder by the tid it printed; the text
    # summary adds the holder's name, the flame graph carries the roots.
    exe = build(args, "live_futex.c", "live_futex")
    t = Target(args, exe)
    try:
        tids, addrs = {}, {}
        with open(os.path.join(t.dir, "objects")) as f:
            for line in f:
                name, value = line.split()
                if value.startswith("0x"):
                    addrs[name] = int(value, 16)
                else:
                    tids[name] = int(value)
        svg = os.path.join(t.dir, "profile.svg")
        stacks = folded(sample(args, t, "--duration", "1s", "--rate", "20", "-f", "folded", "--flamegraph", svg))
        still_running(t, "sample")
        roots = {}
        for frames, _ in stacks:
            roots.setdefault(frames[0], set()).update(frames[1:])
        want = {
            f"futex(mutex {addrs['held']:#x} owned by thread {tids['holder']})": "wait_mutex",
            f"futex(rwlock {addrs['rw']:#x} owned by thread {tids['writer']})": "wait_rwlock",
            f"futex(condition {addrs['cond']:#x})": "wait_condition",
            # Resumed through restart_syscall after the first tick: still this condition.
            f"futex(condition {addrs['timed_cond']:#x})": "wait_timed",
            f"futex({addrs['raw']:#x})": "wait_raw",
            f"futex(mutex {addrs['orphan']:#x} owned by thread {tids['quitter']}, not in the process)": "wait_orphan",
        }
        for root, fn in want.items():
            if fn not in roots.get(root, ()):
                fail(f"no root {root} over {fn}: roots are {sorted(roots)}")
        # Every futex root is one of those: a raw futex is never called a mutex, nor the reverse.
        others = [r for r in roots if (r.startswith("futex") and r not in want) or
                  (r == "restart_syscall" and "wait_timed" in roots[r])]
        if others:
            fail(f"unexpected roots {others}: {sorted(roots)}")
        with open(svg) as f:
            if f"owned by thread {tids['holder']}" not in f.read():
                fail("the flame graph has no holder")
        text = sample(args, t, "--duration", "0.5s", "--rate", "20")
        line = f"futex on mutex {addrs['held']:#x} owned by thread {tids['holder']} (holder)"
        if line not in text or f"owned by thread {tids['writer']} (writer)" not in text:
            fail(f"no '{line}' in the text summary:\n{text}")
    finally:
        t.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--case", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    args.coretriage = os.path.abspath(args.coretriage)
    args.workdir = os.path.abspath(args.workdir)
    # ptrace at all? A sleeping child of ours, attached and detached by coretriage's own -p.
    probe = subprocess.Popen(["sleep", "30"])
    try:
        r = run(args, "-p", str(probe.pid), "-q")
        if r.returncode == 2 and "cannot attach" in r.stderr:
            print("skipped: ptrace is not permitted here: " + r.stderr.strip())
            sys.exit(SKIP)
    finally:
        probe.kill()
        probe.wait()
    globals()["case_" + args.case.replace("-", "_")](args)
    print("ok")


if __name__ == "__main__":
    main()
