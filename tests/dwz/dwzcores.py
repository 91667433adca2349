"""Helpers of the dwz tests (tests/dwz.cmake): real cores of a running program killed in the middle
of its work, and the frames of a core compared with gdb (tests/oracle/compare_gdb.py) and eu-stack."""
import json
import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import compare_gdb  # noqa: E402

SKIP = 77


def core_pattern_ok():
    """True when the kernel writes cores into the working directory (as scripts/make-cores needs)."""
    try:
        pattern = open("/proc/sys/kernel/core_pattern").read().strip()
    except OSError:
        return False
    return bool(pattern) and not pattern.startswith("|") and "/" not in pattern and "%" not in pattern


def _unlimited_core():
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def kill_core(argv, workdir, sig, after, env=None):
    """Runs @argv in @workdir, sends @sig after @after seconds of work, returns the core's path."""
    for f in os.listdir(workdir):
        if f == "core" or f.startswith("core."):
            os.unlink(os.path.join(workdir, f))
    proc = subprocess.Popen(argv, cwd=workdir, preexec_fn=_unlimited_core, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if sig is not None:
        time.sleep(after)
        proc.send_signal(sig)
    proc.wait(timeout=60)
    for name in ("core", f"core.{proc.pid}"):
        path = os.path.join(workdir, name)
        if os.path.exists(path):
            return path
    raise RuntimeError(f"{argv[0]} killed by signal {sig} left no core in {workdir} (exit {proc.returncode})")


def crash_core(argv, workdir):
    """Runs @argv (a program that crashes by itself) in @workdir, returns its core's path."""
    return kill_core(argv, workdir, None, 0)


def make_case(cores, case, exe, core):
    """Lays a core out as compare_gdb.py reads it: CORES/<case>/{exe,core}."""
    d = os.path.join(cores, case)
    os.makedirs(d, exist_ok=True)
    for name, src in (("exe", exe), ("core", core)):
        dst = os.path.join(d, name)
        if os.path.lexists(dst):
            os.unlink(dst)
        if name == "exe":
            os.symlink(os.path.abspath(src), dst)
        else:
            os.rename(src, dst)
    return d


def eu_stack_frames(exe, core, debug_dir=None):
    """The crashing thread's frames as eu-stack -i prints them: (pc, name), innermost inline first;
    None when it printed no thread."""
    argv = ["eu-stack", "-i", "--core", core, "-e", exe]
    if debug_dir:
        argv += [f"--debuginfo-path={debug_dir}:/usr/lib/debug"]
    proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=300, check=False)
    frames, seen = [], False
    for line in proc.stdout.splitlines():
        if line.startswith("TID "):
            if seen:
                break
            seen = True
            continue
        parts = line.split()
        if seen and len(parts) >= 3 and parts[0].startswith("#"):
            frames.append((int(parts[1], 16), parts[2] if parts[2] != "??" else None))
    return frames if seen else None


def our_frames(tool, exe, core, args=()):
    proc = subprocess.run([tool, "--format", "json", *args, exe, core], capture_output=True, text=True,
                          timeout=300, check=False)
    report = json.loads(proc.stdout)
    crashed = next((t for t in report.get("threads") or [] if t.get("crashed")), None)
    return report, (crashed or {}).get("frames") or []


def _by_pc(frames):
    groups = {}
    for pc, name in frames:
        groups.setdefault(pc, []).append(name)
    return groups


def compare_eu_stack(label, exe, core, frames, debug_dir=None):
    """At each pc both unwinders reach, the names (the inline chain, then the function) must be
    eu-stack's. Matched by pc, not depth: eu-stack's unwinder loses frames gdb and coretriage find."""
    eu = eu_stack_frames(exe, core, debug_dir)
    if eu is None:
        return 1, [f"  FAIL {label}: eu-stack printed no thread"]
    ours = _by_pc([(int(f["pc"], 16) if isinstance(f.get("pc"), str) else f.get("pc"), f.get("function"))
                   for f in frames])
    out, failures, compared = [], 0, 0
    for pc, names in _by_pc(eu).items():
        mine = ours.get(pc)
        if mine is None:
            continue
        compared += len(names)
        if len(mine) != len(names) or any(n is not None and m != n for m, n in zip(mine, names)):
            out.append(f"  FAIL {label}: at 0x{pc:x} coretriage says {mine}, eu-stack {names}")
            failures += 1
    if compared == 0:
        out.append(f"  FAIL {label}: no pc of eu-stack's is coretriage's")
        failures += 1
    head = f"{'FAIL' if failures else 'ok  '} {label}: {compared} of eu-stack's {len(eu)} frames compared by pc"
    return (1 if failures else 0), [head] + out


def compare_gdb_case(tool, cores, case, tool_args=(), gdb_settings=()):
    rc, lines = compare_gdb.run_case(tool, cores, case, False, False, tool_args, gdb_settings)
    return (1 if rc is None else rc), lines


def diewalk(tool, args):
    proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300, check=False)
    lines = [("ok   " if proc.returncode == 0 else "FAIL ") + "diewalk " + (proc.stdout.strip() or " ".join(args))]
    lines += ["  " + x for x in proc.stderr.splitlines()]
    return (0 if proc.returncode == 0 else 1), lines
