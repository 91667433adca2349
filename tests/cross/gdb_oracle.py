#!/usr/bin/env python3
"""gdb-multiarch as the oracle of the cross cores' crashing thread (docs/architectures.md).

    gdb_oracle.py CORETRIAGE CORES_DIR [--verbose]

For every core CORES_DIR/<arch>-<case>/{exe,core} of tests/cross/arches.tsv x cases.tsv (made by
scripts/make-cross-cores), one gdb run

    gdb-multiarch -batch -nx -ex 'set sysroot /usr/<triple>' -ex 'set backtrace past-main on' -ex 'bt 40'

gives the crashing thread's frames, and coretriage --format json (with --sysroot for the dynamic
case) gives its own. They must agree:

  frames     the function names, in order (gdb's first 40), '??' for an unnamed frame and
             <signal> for a signal trampoline's frame; gdb's ppc64 ELFv1 names lose their leading
             '.' (gdb names the code symbol, coretriage the function descriptor's symbol)
  arguments  in frames of the program's own code named alike, every argument coretriage shows a
             value for has gdb's value (the first token: number or pointer); "<optimized out>" on
             coretriage's side is no claim and is only counted

gdb's output is kept as <core dir>/gdb-bt.txt and reused while the core, gdb and the command are
the same (the sanitizer pass of scripts/test shares the cores through CT_CROSS_CACHE).

A difference that is not an entry of tests/cross/gdb_known.tsv fails, and so does an entry that
no longer matches what gdb and coretriage show (the list stays true; docs/architectures.md gives
its reasons). Exit status: 0 all agree, 1 a difference, 77 no gdb-multiarch or no cross core.
"""

import fnmatch
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "oracle"))
import gdbbt  # noqa: E402  (tests/oracle: the bt parser of the gdb oracle)
from check_cross import table  # noqa: E402  (the manifests of tests/cross)

BT_LIMIT = 40
TIMEOUT = 120
# Known hangs end here: a normal run takes well under a second.
HANG_TIMEOUT = 6


def parse_gdb(out, arch):
    """The frames of gdb's bt (the last '#0' starts it: gdb first prints frame 0 on loading),
    parsed by tests/oracle/gdbbt.py."""
    lines = out.splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith("#0 ")]
    parsed, _ = gdbbt.parse_bt("\n".join(lines[starts[-1]:]) if starts else "")
    frames = []
    for fr in parsed:
        name = "<signal>" if fr.signal_handler else (fr.function or "??")
        if arch == "ppc64" and name.startswith("."):
            name = name[1:]
        frames.append({"pc": fr.pc, "name": name, "file": fr.file,
                       "args": [(n, v) for n, v in fr.arg_list if v is not None]})
    # gdb -batch does not always say "(More stack frames follow...)".
    return frames, len(frames) >= BT_LIMIT


def run_gdb(cmd, version, core, timeout):
    """gdb's output, None when it did not finish. Kept next to the core (the cores are made once
    per build tree or CT_CROSS_CACHE) and reused while the core, gdb and the command are the same."""
    cache = os.path.join(os.path.dirname(core), "gdb-bt.txt")
    key = json.dumps([version] + cmd[1:]) + "\n"
    try:
        if os.path.getmtime(cache) >= os.path.getmtime(core):
            with open(cache, encoding="utf-8", errors="replace") as f:
                head, _, body = f.read().partition("\n")
            if head + "\n" == key:
                return None if body == "<timeout>" else body
    except OSError:
        pass
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        out = p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        out = None
    try:
        with open(cache, "w", encoding="utf-8") as f:
            f.write(key + ("<timeout>" if out is None else out))
    except OSError:
        pass
    return out


def coretriage_frames(tool, exe, core, sysroot):
    cmd = [tool, "--no-debuginfod", "--format", "json"] + (["--sysroot", sysroot] if sysroot else []) + [exe, core]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    r = json.loads(p.stdout.decode("utf-8", "replace"))
    threads = r.get("threads") or []
    crashed = [t for t in threads if t.get("crashed")] or threads
    frames = []
    for fr in crashed[0].get("frames", []) if crashed else []:
        name = "<signal>" if fr.get("signal_frame") else (fr.get("function") or "??")
        args = [(a.get("name"), a.get("value")) for a in fr.get("parameters") or []]
        frames.append({"name": name, "file": fr.get("file"), "args": args})
    return frames


def first_token(v):
    return (v or "").split(" ")[0]


def named_prefix(gn):
    """gdb's frames before its first unnamed one: where gdb lost the walk (a signal frame it did not
    see). What it shows after that is its guess through stale words, which differ from run to run
    (the environment's size moves qemu-user's stack), and may name a function by chance."""
    return gn[: gn.index("??")] if "??" in gn else list(gn)


def stops_early(gn, cn):
    """gdb's frames up to its first unnamed one are a proper prefix of coretriage's."""
    named = named_prefix(gn)
    return len(named) < len(cn) and cn[: len(named)] == named


def known_for(name, known):
    return [k for k in known if fnmatch.fnmatch(name, k[0])]


def compare(name, g, more, c, source, kinds):
    """Problems (unexplained differences), known differences seen, argument counts."""
    problems, seen = [], set()
    gn = [f["name"] for f in g]
    cn = [f["name"] for f in c][: len(gn)] if more else [f["name"] for f in c]
    if "gdb-null-frame" in kinds and g and g[-1]["name"] == "??" and g[-1]["pc"] == 0:
        gn, g = gn[:-1], g[:-1]
        seen.add("gdb-null-frame")
    if gn != cn:
        if "gdb-unrelocated" in kinds and all(n in ("??", "<signal>") for n in gn):
            seen.add("gdb-unrelocated")
        elif "gdb-stops" in kinds and stops_early(gn, cn):
            seen.add("gdb-stops")
            g = g[: len(named_prefix(gn))]  # no arguments of gdb's guessed frames
        else:
            problems.append(f"frames: gdb {' '.join(gn[:14])} | coretriage {' '.join(cn[:14])}")
    compared = unknown = 0
    for i, (gf, cf) in enumerate(zip(g, c)):
        if gf["name"] != cf["name"] or not (cf["file"] or "").endswith(source):
            continue
        gargs = dict(gf["args"])
        for an, av in cf["args"]:
            if av is None or av.startswith("<optimized out>") or an not in gargs:
                unknown += 1
                continue
            compared += 1
            if first_token(av) != first_token(gargs[an]):
                if "gdb-reads-zero" in kinds and av.startswith("<unreadable") and gargs[an] == "0":
                    seen.add("gdb-reads-zero")
                else:
                    problems.append(f"argument: #{i} {cf['name']} {an}: gdb {gargs[an]!r}, coretriage {av!r}")
    return problems, seen, compared, unknown


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "--verbose" in sys.argv or "-v" in sys.argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool, cores = args
    gdb = shutil.which("gdb-multiarch")
    if not gdb:
        print("gdb_oracle: no gdb-multiarch: skipped")
        return 77
    version = subprocess.run([gdb, "--version"], stdout=subprocess.PIPE, timeout=TIMEOUT).stdout.decode().split("\n")[0]
    # A kind ending in "?" may or may not show on a given run: the difference hangs on where the
    # program's stack happened to start (environment size), so only its absence is not judged.
    known = [(k[0], k[1].rstrip("?"), k[1].endswith("?")) + tuple(k[2:]) for k in table("gdb_known.tsv")]
    used, made = set(), []
    failed = agreed = differ = 0
    n_args = n_unknown = 0
    for arch, cc, runner in table("arches.tsv"):
        triple = cc[: -len("-gcc")]
        for row in table("cases.tsv"):
            case, source = row[0], (row[5] if len(row) > 5 and row[5] else "crashme") + ".c"
            dynamic = len(row) > 6 and row[6] == "dynamic"
            if dynamic and runner == "native":
                continue
            name = f"{arch}-{case}"
            exe, core = os.path.join(cores, name, "exe"), os.path.join(cores, name, "core")
            if not os.path.exists(core):
                continue
            made.append(name)
            entries = known_for(name, known)
            kinds = {k[1] for k in entries}
            optional = {k[1] for k in entries if k[2]}
            cmd = [gdb, "-batch", "-nx", "-ex", f"set sysroot /usr/{triple}", "-ex", "set backtrace past-main on",
                   "-ex", "set width 0", "-ex", f"bt {BT_LIMIT}", exe, core]
            out = run_gdb(cmd, version, core, HANG_TIMEOUT if "gdb-hangs" in kinds else TIMEOUT)
            seen = set()
            if out is None:
                if "gdb-hangs" in kinds:
                    seen.add("gdb-hangs")
                    problems = []
                else:
                    problems = [f"gdb did not finish in {TIMEOUT} s"]
            else:
                g, more = parse_gdb(out, arch)
                c = coretriage_frames(tool, exe, core, f"/usr/{triple}" if dynamic else None)
                problems, seen, na, nu = compare(name, g, more, c, source, kinds)
                n_args += na
                n_unknown += nu
                if verbose:
                    print(f"  {name}: gdb {' '.join(f['name'] for f in g[:12])}")
                    print(f"  {' ' * len(name)}  ct  {' '.join(f['name'] for f in c[:12])}")
            for k in entries:
                if k[1] in seen:
                    used.add((k[0], k[1]))
            # Every entry that names the core must still hold (a hung gdb leaves only that to judge).
            stale = (kinds - seen if out is not None else {"gdb-hangs"} & kinds - seen) - optional
            for k in sorted(stale):
                problems.append(f"known difference {k} no longer seen (update tests/cross/gdb_known.tsv)")
            if problems:
                failed += 1
                for pr in problems:
                    print(f"FAIL {name}: {pr}")
            elif seen:
                differ += 1
                print(f"known {name}: {', '.join(sorted(seen))}")
            else:
                agreed += 1
    for k in known:
        if (k[0], k[1]) not in used and not any(fnmatch.fnmatch(n, k[0]) for n in made):
            # An entry for cores that were not made (no cross compiler) is not judged; one that
            # names no core at all is a typo.
            print(f"note {k[0]}: known difference {k[1]} not judged (no such core)")
    if agreed + differ + failed == 0:
        print(f"gdb_oracle: no cross cores in {cores}: skipped")
        return 77
    print(f"gdb_oracle: {agreed} cores agree, {differ} with known differences, {failed} failed; "
          f"{n_args} arguments compared, {n_unknown} not shown by coretriage")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
