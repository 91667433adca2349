#!/usr/bin/env python3
"""coretriage's frames against gdb 13's on the same core (issue 10; docs/unwinding.md).

usage: compare_gdb.py --coretriage BIN --cores DIR [--all-threads] [--verbose] CASE...

For each case, CORES/<case>/{exe,core}: the crashing thread's frames (every thread with
--all-threads, matched by LWP) from `coretriage --format json` and from gdb's `bt` with
`set backtrace past-main on` (tests/oracle/gdbbt.py) must be the same sequence with the same
function names, the same inline structure and the same file:line (none where gdb has none, as
for `_start`). Tolerated, and printed as KNOWN, only:
  - frames gdb rebuilds from call-site DWARF as tail calls (gdb frame type TAILCALL) that
    coretriage does not show yet;
  - frames past the point where gdb loses the stack (its trailing `??` frames);
  - a symbol-table-only frame named by another ELF alias of the same address (gdb and libdwfl
    pick different aliases: `clone3` / `__clone3`);
  - a frame without a name in a module whose file's build-id differs from the dump's: coretriage
    refuses such a file (docs/architecture.md), gdb uses it;
  - a Rust v0 name without gdb's crate disambiguators (`core::ptr` for `core[4e4b6e9a9c4c4a32]::ptr`).
Of several line-table rows at one address the line is gdb's: the last one, or when it is not a
statement the statement row before it at that address.
Anything else fails. Exit 0 when all cases pass, 1 on a difference, 77 when no core exists.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbbt  # noqa: E402

_symtab_cache = {}
# "core[4e4b6e9a9c4c4a32]::ptr": the crate disambiguator gdb prints in Rust v0 names.
_DISAMBIGUATOR = re.compile(r"\[[0-9a-f]{1,16}\]")


def symbol_addresses(path):
    """name -> set of addresses of the ELF symbols (static and dynamic) of file @path."""
    if path in _symtab_cache:
        return _symtab_cache[path]
    table = {}
    for extra in ([], ["-D"]):
        proc = subprocess.run(["nm", "--defined-only", *extra, path], capture_output=True, text=True,
                              errors="replace", check=False)
        for line in proc.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3:
                name = parts[2].split("@")[0]
                table.setdefault(name, set()).add(int(parts[0], 16))
    _symtab_cache[path] = table
    return table


def is_alias(module_files, a, b):
    """True when ELF symbols @a and @b share an address in the module's file or its debug file."""
    for path in module_files or ():
        if a and b and path and os.path.exists(path):
            table = symbol_addresses(path)
            if table.get(a, set()) & table.get(b, set()):
                return True
    return False


def gdb_kind(fr):
    if fr.signal_handler or fr.type == "SIGTRAMP":
        return "signal"
    if fr.type == "INLINE":
        return "inline"
    if fr.type == "TAILCALL":
        return "tailcall"
    return "normal"


def our_kind(fr):
    if fr.get("signal_frame"):
        return "signal"
    if fr.get("inlined"):
        return "inline"
    if fr.get("tail_call"):
        return "tailcall"
    return "normal"


def key(name, kind):
    return "<signal>" if kind == "signal" else (name or "??")


def compare_line(label, gf, of, oi, out):
    """The same source line as gdb, or none where gdb has none (`_start ()`): 1 on a difference."""
    if gf.signal_handler:
        return 0
    ofile, oline = of.get("file"), of.get("line")
    if gf.file is None and ofile is not None and gf.function is not None:
        out.append(f"  FAIL {label}: #{oi} {of.get('function')} at {ofile}:{oline}, where gdb has no line")
        return 1
    if gf.file is not None and (ofile is None or os.path.basename(ofile) != os.path.basename(gf.file)
                                or oline != gf.line):
        out.append(f"  FAIL {label}: #{oi} {of.get('function')} at {ofile}:{oline}, gdb at {gf.file}:{gf.line}")
        return 1
    return 0


def compare_thread(label, gdb_frames, our_frames, module_files, out, refused=()):
    """Appends lines to @out; returns the number of failures."""
    g = [(f.function, gdb_kind(f)) for f in gdb_frames]
    # Rust v0 names: gdb prints crate disambiguators ("core[4e4b6e9a9c4c4a32]::ptr"), coretriage
    # leaves them out as it leaves out legacy hashes; compare without them.
    stripped = [(_DISAMBIGUATOR.sub("", n) if n else n, k) for n, k in g]
    if stripped != g:
        out.append(f"  KNOWN {label}: gdb prints Rust v0 crate disambiguators "
                   f"({sum(a != b for a, b in zip(g, stripped))} frames), coretriage does not: compared without them")
        g = stripped
    o = [(f.get("function"), our_kind(f), module_files.get(f.get("module"))) for f in our_frames]
    # gdb lost the stack: its trailing ?? frames are not compared (coretriage may go further).
    cut = len(g)
    while cut > 0 and g[cut - 1][0] is None and g[cut - 1][1] == "normal":
        cut -= 1
    if cut < len(g):
        out.append(f"  KNOWN {label}: gdb loses the stack after its frame #{cut - 1} "
                   f"({len(g) - cut} trailing ?? frames not compared)")
    g = g[:cut]
    gk = [key(n, k) for n, k in g]
    ok_ = [key(n, k) for n, k, _ in o]
    failures = 0
    under_tail_call = set()
    # The common prefix and suffix are matched directly: difflib is quadratic on 10,000-frame
    # recursions, and the differences are a few frames in the middle.
    pre = 0
    while pre < len(gk) and pre < len(ok_) and gk[pre] == ok_[pre]:
        pre += 1
    suf = 0
    while suf < len(gk) - pre and suf < len(ok_) - pre and gk[-1 - suf] == ok_[-1 - suf]:
        suf += 1
    sm = difflib.SequenceMatcher(None, gk[pre:len(gk) - suf], ok_[pre:len(ok_) - suf], autojunk=False)
    ops = [("equal", 0, pre, 0, pre)]
    ops += [(t, i1 + pre, i2 + pre, j1 + pre, j2 + pre) for t, i1, i2, j1, j2 in sm.get_opcodes()]
    ops.append(("equal", len(gk) - suf, len(gk), len(ok_) - suf, len(ok_)))
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for gi, oi in zip(range(i1, i2), range(j1, j2)):
                gkind, okind = g[gi][1], o[oi][1]
                if gkind == "tailcall" and okind == "inline":
                    # gdb names a tail-call frame by the function inlined at its pc and shows no
                    # frame for the function itself; coretriage shows the inline chain and then
                    # the tail-call frame of the function that holds it (docs/unwinding.md).
                    j = oi + 1
                    while j < len(o) and o[j][1] == "inline":
                        under_tail_call.add(j)
                        j += 1
                    if j < len(o) and o[j][1] == "tailcall":
                        under_tail_call.add(j)
                    out.append(f"  KNOWN {label}: #{oi} {ok_[oi]} is inlined in a tail-call frame; gdb #{gi} "
                               f"names the tail-call frame by it")
                elif gkind != okind and not (gkind == "tailcall" and okind == "normal"):
                    out.append(f"  FAIL {label}: #{oi} {ok_[oi]}: coretriage says {okind}, gdb #{gi} says {gkind}")
                    failures += 1
                failures += compare_line(label, gdb_frames[gi], our_frames[oi], oi, out)
            continue
        gs, os_ = list(range(i1, i2)), list(range(j1, j2))
        # Pair replaced frames one to one where both sides have one.
        while gs and os_:
            gi, oi = gs.pop(0), os_.pop(0)
            gname, oname, ofile = g[gi][0], o[oi][0], o[oi][2]
            if oname is None and o[oi][2] is not None and our_frames[oi].get("module") in refused:
                out.append(f"  KNOWN {label}: #{oi}: no name, where gdb #{gi} says {gname!r}: the module's build-id "
                           f"differs from the dump's, so coretriage does not use its symbols (gdb does)")
            elif gname is None and oname is not None:
                out.append(f"  KNOWN {label}: #{oi} {oname}: gdb has no name (??) at its #{gi}")
            elif is_alias(ofile, gname, oname):
                out.append(f"  KNOWN {label}: #{oi} {oname} is gdb's #{gi} {gname}: aliases of one address "
                           f"in {os.path.basename(ofile[0])}'s symbol table")
            elif g[gi][1] == "tailcall":
                out.append(f"  KNOWN {label}: gdb #{gi} {gname} is a tail-call frame coretriage does not rebuild yet")
                os_.insert(0, oi)
            else:
                out.append(f"  FAIL {label}: #{oi} {oname!r} where gdb #{gi} has {gname!r}")
                failures += 1
        for gi in gs:
            if g[gi][1] == "tailcall":
                out.append(f"  KNOWN {label}: gdb #{gi} {g[gi][0]} is a tail-call frame coretriage does not rebuild yet")
            else:
                out.append(f"  FAIL {label}: gdb #{gi} {g[gi][0]!r} ({g[gi][1]}) is missing")
                failures += 1
        for oi in os_:
            # A tail-call frame coretriage rebuilt from call sites where gdb rebuilt none (clang's
            # DWARF 5 call sites, tc-clangxx-templates), with the inline frames it holds.
            j = oi
            while j < len(o) and o[j][1] == "inline":
                j += 1
            if oi in under_tail_call:
                out.append(f"  KNOWN {label}: #{oi} {ok_[oi]} ({o[oi][1]}): the rest of an inline chain in a "
                           f"tail-call frame, which gdb folds into one frame")
            elif i2 >= len(g) and cut < len(gdb_frames):
                out.append(f"  KNOWN {label}: #{oi} {ok_[oi]}: past the end of gdb's stack")
            elif j < len(o) and o[j][1] == "tailcall" and j in os_:
                out.append(f"  KNOWN {label}: #{oi} {ok_[oi]} ({o[oi][1]}): a tail-call frame coretriage rebuilds "
                           f"from call sites and gdb does not show")
            else:
                out.append(f"  FAIL {label}: #{oi} {ok_[oi]!r} ({o[oi][1]}) is not in gdb's backtrace")
                failures += 1
    return failures


def run_case(tool, cores, case, all_threads, verbose, tool_args=(), gdb_settings=()):
    """@tool_args go to coretriage, @gdb_settings to gdb (tests/dwz: their debug directory)."""
    exe = os.path.join(cores, case, "exe")
    core = os.path.join(cores, case, "core")
    if not os.path.exists(core):
        return None, [f"SKIP {case}: no core"]
    proc = subprocess.run([tool, "--format", "json", *tool_args, exe, core], capture_output=True, text=True,
                          timeout=300, check=False)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return 1, [f"FAIL {case}: coretriage printed no JSON (exit {proc.returncode})"]
    module_files = {}
    refused = {m.get("name") for m in report.get("modules") or [] if m.get("build_id_match") is False}
    for m in report.get("modules") or []:
        files = []
        for f in (m.get("file"), m.get("debug_info")):
            if f and not os.path.isabs(f):
                f = os.path.join(cores, case, f)
            files.append(f)
        module_files[m.get("name")] = files
    ours = {t["tid"]: t for t in report.get("threads") or []}
    crashed = next((t for t in report.get("threads") or [] if t.get("crashed")), None)
    gthreads = gdbbt.backtrace(exe, core, all_threads=all_threads, settings=gdb_settings)
    out, failures, compared = [], 0, 0
    for gt in gthreads:
        t = ours.get(gt.lwp) if all_threads else (crashed or ours.get(gt.lwp))
        if t is None:
            out.append(f"  FAIL {case}: thread {gt.lwp} is in gdb's list, not in coretriage's")
            failures += 1
            continue
        compared += 1
        label = f"{case} thread {gt.lwp}"
        failures += compare_thread(label, gt.frames, t.get("frames") or [], module_files, out, refused)
        if verbose:
            out.append(f"  gdb:        {[f.function for f in gt.frames]}")
            out.append(f"  coretriage: {[f.get('function') for f in t.get('frames') or []]}")
    if compared == 0:
        out.append(f"  FAIL {case}: gdb printed no backtrace")
        failures += 1
    head = f"{'FAIL' if failures else 'ok  '} {case}: {compared} thread(s) compared with gdb"
    return (1 if failures else 0), [head] + out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--cores", required=True)
    ap.add_argument("--all-threads", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    ran = failed = 0
    for case in a.cases:
        rc, lines = run_case(a.coretriage, a.cores, case, a.all_threads, a.verbose)
        print("\n".join(lines), flush=True)
        if rc is None:
            continue
        ran += 1
        failed += rc
    if ran == 0:
        return 77
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
