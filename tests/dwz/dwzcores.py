"""Helpers of the dwz tests (tests/dwz.cmake): real cores of a running program killed in the middle
of its work, and the frames of a core compared with gdb (tests/oracle/compare_gdb.py) and eu-stack."""
import json
import os
import re
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


def cpu_seconds(pid):
    """User + system CPU time of process @pid so far (/proc/PID/stat), None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # After the comm: state is field 3, utime and stime fields 14 and 15 (proc(5)).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def kill_core(argv, workdir, sig, after, env=None):
    """Runs @argv in @workdir, sends @sig after @after seconds of work, returns the core's path.
    Work is the program's own CPU time, not wall time: on a loaded machine (the sanitizer pass, two
    tests at a time) the kill still lands at the same point of the work (objdump -d disassembling
    in libopcodes, not yet reading symbols)."""
    for f in os.listdir(workdir):
        if f == "core" or f.startswith("core."):
            os.unlink(os.path.join(workdir, f))
    proc = subprocess.Popen(argv, cwd=workdir, preexec_fn=_unlimited_core, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if sig is not None:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            used = cpu_seconds(proc.pid)
            if used is None or used >= after:
                break
            time.sleep(0.01)
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


# The suffixes gcc gives the ELF symbol of a clone or a part of a function ("f.cold", "f.lto_priv.0",
# "f.isra.0", "f.part.0", "f.constprop.0"): the DWARF name, which gdb and coretriage print, is "f".
_CLONE = re.compile(r"(\.(cold|lto_priv|isra|part|constprop|localalias)(\.\d+)?)+$")


def _symbol_fallback(names, mine, files):
    """True when eu-stack's names at a pc are just the ELF symbol of coretriage's function there (the
    two compared without clone suffixes: gdb and coretriage print a clone's DW_AT_linkage_name,
    "process_section_contents.part.0.lto_priv.0", where eu-stack has the symbol of its .cold part).
    eu-stack names a pc from the symbol table, without inline frames, when libdw's dwarf_getscopes
    returns no scope for it, which it does when an inlined call's abstract origin lives in another
    unit (src/modules/scopes.h): every inlined call of Debian's binutils (built with -flto) refers
    to its early-debug unit, so no pc of its LTO units gets a scope there though the unit's
    subprogram holds it (a walk of the unit's children finds it). coretriage's own inline chain at
    such a pc has been compared with gdb's already; its function must still be the symbol's."""
    if len(names) != 1 or names[0] is None or _CLONE.sub("", names[0]) != _CLONE.sub("", mine[-1] or ""):
        return False
    return any(f and names[0] in compare_gdb.symbol_addresses(f) for f in files)


def compare_eu_stack(label, exe, core, frames, debug_dir=None, modules=None):
    """At each pc both unwinders reach, the names (the inline chain, then the function) must be
    eu-stack's. Matched by pc, not depth: eu-stack's unwinder loses frames gdb and coretriage find.
    @modules (module name -> its file and debug file) lets a pc eu-stack named from the ELF symbol
    table alone pass as KNOWN (_symbol_fallback)."""
    eu = eu_stack_frames(exe, core, debug_dir)
    if eu is None:
        return 1, [f"  FAIL {label}: eu-stack printed no thread"]
    pcs = [(int(f["pc"], 16) if isinstance(f.get("pc"), str) else f.get("pc")) for f in frames]
    ours = _by_pc([(pc, f.get("function")) for pc, f in zip(pcs, frames)])
    module_of = {pc: f.get("module") for pc, f in zip(pcs, frames)}
    out, failures, compared, fallbacks = [], 0, 0, 0
    for pc, names in _by_pc(eu).items():
        mine = ours.get(pc)
        if mine is None:
            continue
        compared += len(names)
        if len(mine) == len(names) and all(n is None or m == n for m, n in zip(mine, names)):
            continue
        if _symbol_fallback(names, mine, (modules or {}).get(module_of[pc]) or ()):
            fallbacks += 1
            out.append(f"  KNOWN {label}: at 0x{pc:x} eu-stack names {names[0]} from the symbol table (libdw gave "
                       f"no scope), coretriage says {mine}")
            continue
        out.append(f"  FAIL {label}: at 0x{pc:x} coretriage says {mine}, eu-stack {names}")
        failures += 1
    if compared == 0:
        out.append(f"  FAIL {label}: no pc of eu-stack's is coretriage's")
        failures += 1
    head = (f"{'FAIL' if failures else 'ok  '} {label}: {compared} of eu-stack's {len(eu)} frames compared by pc"
            + (f" ({fallbacks} pcs named by eu-stack from the symbol table only)" if fallbacks else ""))
    return (1 if failures else 0), [head] + out


def compare_gdb_case(tool, cores, case, tool_args=(), gdb_settings=()):
    rc, lines = compare_gdb.run_case(tool, cores, case, False, False, tool_args, gdb_settings)
    return (1 if rc is None else rc), lines


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, errors="replace",
                         check=False).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    return None


def debug_file(path):
    """The installed debug file of @path by its build-id (where Debian's -dbg packages put it)."""
    bid = build_id(path)
    return f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug" if bid else None


def altlink(debug):
    """The shared file's name in @debug's .gnu_debugaltlink, None when it has none."""
    out = subprocess.run(["readelf", "-p", ".gnu_debugaltlink", debug], capture_output=True, text=True,
                         errors="replace", check=False).stdout
    for line in out.splitlines():
        if "[     0]" in line:
            return line.split("]", 1)[1].strip()
    return None


def installed_alt(path):
    """(debug file, shared file) of @path when both are installed and the debug file uses dwz."""
    if not os.path.exists(path):
        return None
    dbg = debug_file(path)
    alt = altlink(dbg) if dbg and os.path.exists(dbg) else None
    return (dbg, alt) if alt and os.path.exists(alt) else None


def named_core(tool, argv, exe, tmp, cores, case, sig, after, usable=None):
    """A core of @argv killed by @sig after @after s, laid out as CORES/@case. A kill that lands on a
    PLT stub gives a frame #0 that is ?? here and "name@plt" in gdb (coretriage does not name PLT
    stubs, a gap outside dwz that compare_gdb.py does not accept): such a core is made again, up to
    5 times, as is one whose crashing-thread frames @usable (when given) does not accept."""
    for attempt in range(5):
        core = kill_core(argv, tmp, sig, after + 0.1 * attempt)
        d = make_case(cores, case, exe, core)
        _, frames = our_frames(tool, os.path.join(d, "exe"), os.path.join(d, "core"), ["--no-cache"])
        if frames and frames[0].get("function") and (usable is None or usable(frames)):
            break
    return d


def compare_core(tool, cores, case, cache):
    """The crashing thread of CORES/@case against gdb and eu-stack, with the decompressed-debug cache
    off and then on (in @cache); a dwz-file-missing diagnostic is a failure too (the shared files
    are installed). Returns (failures, the crashing thread's frames)."""
    d = os.path.join(cores, case)
    failures, frames = 0, []
    for label, args in ((case, ["--no-cache"]), (f"{case} (cache)", ["--cache-dir", cache])):
        rc, lines = compare_gdb_case(tool, cores, case, args)
        failures += rc
        print("\n".join(lines).replace(f"{case}:", f"{label}:", 1), flush=True)
        report, frames = our_frames(tool, os.path.join(d, "exe"), os.path.join(d, "core"), args)
        modules = {m.get("name"): [m.get("file"), m.get("debug_info")] for m in report.get("modules") or []}
        rc, lines = compare_eu_stack(label, os.path.realpath(os.path.join(d, "exe")), os.path.join(d, "core"),
                                     frames, modules=modules)
        failures += rc
        print("\n".join(lines), flush=True)
        bad = [x for x in report.get("diagnostics") or [] if x.get("code") == "dwz-file-missing"]
        if bad:
            print(f"  FAIL {label}: {bad[0].get('message')}")
            failures += 1
    return failures, frames


def diewalk(tool, args):
    proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300, check=False)
    lines = [("ok   " if proc.returncode == 0 else "FAIL ") + "diewalk " + (proc.stdout.strip() or " ".join(args))]
    lines += ["  " + x for x in proc.stderr.splitlines()]
    return (0 if proc.returncode == 0 else 1), lines


def diewalk_all(tool, exes, cache):
    """ct_diewalk over the debug file and shared file of each of @exes that has both installed, with
    the decompressed-debug cache off and on. Returns the number of failures."""
    failures = 0
    for exe in exes:
        files = installed_alt(exe)
        if not files:
            continue
        for extra in ([], ["--cache-dir", cache]):
            rc, lines = diewalk(tool, extra + [exe, *files])
            failures += rc
            print("\n".join(lines), flush=True)
    return failures
