#!/usr/bin/env python3
"""A hand-made dwz case (issue 21): two small programs (tests/dwz/src) built at test time, their debug
files split off into DEBUG/.build-id/, `dwz -m` over both writing the shared file DEBUG/.dwz/common.debug
and naming it "../../.dwz/common.debug" (relative to each debug file, as Fedora does), then the
debug files compressed (as Debian does, so the decompressed-debug cache copies them elsewhere). One
real core of each program, then four layouts of the same files:

  present    the shared file at its name: frames (with the inlined shared_store/shared_check whose
             DIEs and names dwz moved) equal gdb's and eu-stack's, cache on and off; ct_diewalk
  build-id   the shared file only at DEBUG/.build-id/xx/rest.debug of its build-id: the same
  absent     no shared file: one dwz-file-missing diagnostic naming its path and build-id, no inline
             frame in the program, every name one of the program's ELF symbols; ct_diewalk --alt-missing
  wrong      the program's own debug file at the shared file's name (the file coretriage took before):
             refused for its build-id, as absent
  malformed  an altlink whose build-id is 70 bytes long: nothing is guessed, as absent

Then the DWARF 5 variant (`-gdwarf-5`, `dwz -5`): the debug files name the shared file in
`.debug_sup` and reach it through DW_FORM_strp_sup / DW_FORM_ref_sup4. gdb 13 cannot read those
forms and eu-stack names only the outer frame, so the oracle is the same program built without dwz
(gdb on the unsplit executable, same code, same core; coretriage's functions, lines and parameter
names, types and values on it); layouts present (cache off and on), build-id
and absent, each with ct_diewalk.

usage: check_handmade.py --coretriage BIN --diewalk BIN
Exit 0 all pass, 1 a difference, 77 when gcc, dwz, gdb or eu-stack is missing or the kernel writes
cores elsewhere.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dwzcores  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
PROGRAMS = ("prog_a", "prog_b")
INLINED = {"prog_a": "shared_store", "prog_b": "shared_check"}


def run(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, errors="replace",
                         check=False).stdout
    return next((line.split()[-1] for line in out.splitlines() if "Build ID:" in line), None)


def by_id(debug, bid):
    return os.path.join(debug, ".build-id", bid[:2], bid[2:] + ".debug")


def symbols(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, check=False).stdout
    return {line.split()[2] for line in out.splitlines() if len(line.split()) == 3}


def check_fallback(label, tool, exe, core, debug, shared_id, name):
    """The shared file is not found: one diagnostic naming @name and @shared_id, and the program named
    from its symbol table."""
    out, failures = [], 0
    report, frames = dwzcores.our_frames(tool, exe, core, ["--debug-dir", debug, "--no-cache"])
    diags = [d for d in report.get("diagnostics") or [] if d.get("code") == "dwz-file-missing"]
    mine = [d for d in diags if name in d.get("message", "") and shared_id in d.get("message", "")]
    if len(diags) != 1 or len(mine) != 1:
        out.append(f"  FAIL {label}: {len(diags)} dwz-file-missing diagnostics ({len(mine)} naming {name} and "
                   f"{shared_id}), want 1: {[d.get('message') for d in diags]}")
        failures += 1
    names = symbols(exe)
    module = os.path.basename(os.path.realpath(exe))
    for i, f in enumerate(frames):
        if f.get("module") != module:
            continue
        if f.get("inlined"):
            out.append(f"  FAIL {label}: #{i} inlined {f.get('function')!r} from DWARF without its shared file")
            failures += 1
        elif f.get("function") is not None and f.get("function") not in names:
            out.append(f"  FAIL {label}: #{i} {f.get('function')!r} is none of {module}'s symbols")
            failures += 1
    if not any(f.get("module") == module and f.get("function") for f in frames):
        out.append(f"  FAIL {label}: no frame of {module} is named")
        failures += 1
    head = f"{'FAIL' if failures else 'ok  '} {label}: {len(frames)} frames named from the symbol table"
    return (1 if failures else 0), [head] + out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--diewalk", required=True)
    a = ap.parse_args()
    tools = ("gcc", "dwz", "objcopy", "strip", "gdb", "eu-stack", "readelf", "nm")
    if any(shutil.which(t) is None for t in tools) or not dwzcores.core_pattern_ok():
        print(f"SKIP: needs {', '.join(tools)} and a core_pattern writing into the working directory")
        return dwzcores.SKIP
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ct-dwz-") as tmp:
        debug = os.path.join(tmp, "debug")
        cores = os.path.join(tmp, "cores")
        cache = os.path.join(tmp, "cache")
        work = os.path.join(tmp, "work")
        os.makedirs(os.path.join(debug, ".dwz"))
        os.makedirs(work)
        debug_files, core_files = {}, {}
        for p in PROGRAMS:
            exe = os.path.join(work, p)
            run("gcc", "-O2", "-g", "-o", exe, os.path.join(SRC, p + ".c"))
            dbg = by_id(debug, build_id(exe))
            os.makedirs(os.path.dirname(dbg), exist_ok=True)
            run("objcopy", "--only-keep-debug", exe, dbg)
            run("strip", "--strip-debug", exe)
            debug_files[p] = dbg
        shared = os.path.join(debug, ".dwz", "common.debug")
        name = "../../.dwz/common.debug"
        run("dwz", "-m", shared, "-M", name, *debug_files.values())
        for dbg in debug_files.values():
            run("objcopy", "--compress-debug-sections=zlib", dbg)
        shared_id = build_id(shared)
        for p in PROGRAMS:
            core = dwzcores.crash_core([os.path.join(work, p)], work)
            core_files[p] = os.path.join(dwzcores.make_case(cores, p, os.path.join(work, p), core), "core")
        shared_by_id = by_id(debug, shared_id)
        # libdw's reference for ct_diewalk, where no search of coretriage's or libdw's looks.
        reference = os.path.join(tmp, "reference-common.debug")
        shutil.copy(shared, reference)
        for layout in ("present", "build-id", "absent", "wrong", "malformed"):
            if layout == "build-id":
                os.makedirs(os.path.dirname(shared_by_id), exist_ok=True)
                os.rename(shared, shared_by_id)
            elif layout == "absent":
                os.unlink(shared_by_id)
            elif layout == "wrong":
                shutil.copy(debug_files["prog_a"], shared)
            elif layout == "malformed":
                # A build-id of 70 bytes: libdwfl still asks for the file, coretriage cannot check one.
                link = os.path.join(tmp, "altlink")
                with open(link, "wb") as f:
                    f.write(name.encode() + b"\0" + b"\xab" * 70)
                for dbg in debug_files.values():
                    run("objcopy", f"--update-section=.gnu_debugaltlink={link}", dbg)
                shared_id = "unreadable"
            for p in PROGRAMS:
                exe, core = os.path.join(cores, p, "exe"), core_files[p]
                label = f"{p} {layout}"
                walk = [exe, debug_files[p], reference]
                if layout in ("absent", "wrong", "malformed"):
                    rc, lines = check_fallback(label, a.coretriage, exe, core, debug, shared_id, name)
                    failures += rc
                    print("\n".join(lines), flush=True)
                    if layout != "malformed":
                        rc, lines = dwzcores.diewalk(a.diewalk, ["--debug-dir", debug, "--alt-missing", *walk])
                        failures += rc
                        print("\n".join(lines), flush=True)
                    continue
                # The third: a cache capped at one byte keeps only the copy made last (--cache-size),
                # and the copies it removed while this run had them open still read right.
                for args in (["--no-cache"], ["--cache-dir", cache], ["--cache-dir", cache, "--cache-size", "1"]):
                    shutil.rmtree(cache, ignore_errors=True)
                    tool_args = ["--debug-dir", debug, *args]
                    # gdb reads the files before its -ex commands: read again once it knows the directory.
                    rc, lines = dwzcores.compare_gdb_case(a.coretriage, cores, p, tool_args,
                                                          [f"set debug-file-directory {debug}:/usr/lib/debug", f"file {exe}",
                                                           f"core-file {core}"])
                    failures += rc
                    print("\n".join(lines).replace(f"{p}:", f"{label} {' '.join(args)}:", 1), flush=True)
                    report, frames = dwzcores.our_frames(a.coretriage, exe, core, tool_args)
                    rc, lines = dwzcores.compare_eu_stack(f"{label} {' '.join(args)}", exe, core, frames, debug)
                    failures += rc
                    print("\n".join(lines), flush=True)
                    if not any(f.get("inlined") and f.get("function") == INLINED[p] for f in frames):
                        print(f"  FAIL {label}: no inlined {INLINED[p]} frame (its DIEs are in the shared file)")
                        failures += 1
                    if "--cache-size" in args:
                        kept = [n for n in os.listdir(os.path.join(cache, "debug")) if n.endswith(".debug")]
                        if len(kept) != 1:
                            print(f"  FAIL {label}: --cache-size=1 left {len(kept)} copies in the cache: {kept}")
                            failures += 1
                        continue
                    walk_args = ["--debug-dir", debug] + (args if args[0] == "--cache-dir" else [])
                    rc, lines = dwzcores.diewalk(a.diewalk, walk_args + walk)
                    failures += rc
                    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory(prefix="ct-dwz5-") as tmp:
        failures += dwarf5(a, tmp)
    return 1 if failures else 0


def frame_names(frames, module):
    """Each frame of @module: its function, whether inlined, its line and its parameters as shown."""
    return [(f.get("function"), bool(f.get("inlined")), f.get("line"),
             [(v.get("name"), v.get("type"), v.get("value")) for v in f.get("parameters") or []])
            for f in frames if f.get("module") == module]


def sup_checksum(dbg):
    """The shared file's checksum (dwz: its build-id) that @dbg's .debug_sup names, in hex."""
    with tempfile.TemporaryDirectory() as d:
        run("objcopy", f"--dump-section=.debug_sup={d}/sup", dbg, f"{d}/copy")
        data = open(f"{d}/sup", "rb").read()
    rest = data[3:][data[3:].index(b"\0") + 1:]
    size, shift, i = 0, 0, 0
    while True:
        size |= (rest[i] & 0x7F) << shift
        shift, i = shift + 7, i + 1
        if not rest[i - 1] & 0x80:
            break
    return rest[i:i + size].hex()


def dwarf5(a, tmp):
    """The DWARF 5 supplementary file (.debug_sup): frames equal gdb's and coretriage's own on the
    build without dwz."""
    debug, cores, work = (os.path.join(tmp, d) for d in ("debug", "cores", "work"))
    os.makedirs(os.path.join(debug, ".dwz"))
    os.makedirs(work)
    failures, debug_files, plain = 0, {}, {}
    for p in PROGRAMS:
        exe = os.path.join(work, p)
        run("gcc", "-gdwarf-5", "-O2", "-g", "-o", exe, os.path.join(SRC, p + ".c"))
        plain[p] = os.path.join(work, p + ".nodwz")
        shutil.copy(exe, plain[p])
        dbg = by_id(debug, build_id(exe))
        os.makedirs(os.path.dirname(dbg), exist_ok=True)
        run("objcopy", "--only-keep-debug", exe, dbg)
        run("strip", "--strip-debug", exe)
        debug_files[p] = dbg
    shared = os.path.join(debug, ".dwz", "common.debug")
    name = "../../.dwz/common.debug"
    run("dwz", "-5", "-m", shared, "-M", name, *debug_files.values())
    shared_id = sup_checksum(debug_files["prog_a"])
    reference = os.path.join(tmp, "reference-common.debug")
    shutil.copy(shared, reference)
    for dbg in debug_files.values():
        sections = subprocess.run(["readelf", "-S", dbg], capture_output=True, text=True, check=False).stdout
        if ".debug_sup" not in sections or ".gnu_debugaltlink" in sections:
            print(f"FAIL dwarf5: dwz -5 wrote no .debug_sup into {dbg}")
            return 1
        run("objcopy", "--compress-debug-sections=zlib", dbg)
    core_files = {}
    for p in PROGRAMS:
        core = dwzcores.crash_core([os.path.join(work, p)], work)
        core_files[p] = os.path.join(dwzcores.make_case(cores, p, os.path.join(work, p), core), "core")
    for layout in ("present", "build-id", "absent"):
        if layout == "build-id":
            os.makedirs(os.path.dirname(by_id(debug, shared_id)), exist_ok=True)
            os.rename(shared, by_id(debug, shared_id))
        elif layout == "absent":
            os.unlink(by_id(debug, shared_id))
        for p in PROGRAMS:
            exe, core = os.path.join(cores, p, "exe"), core_files[p]
            label = f"{p} dwarf5 {layout}"
            if layout == "absent":
                rc, lines = check_fallback(label, a.coretriage, exe, core, debug, shared_id, name)
                failures += rc
                print("\n".join(lines), flush=True)
                rc, lines = dwzcores.diewalk(a.diewalk, ["--debug-dir", debug, "--alt-missing", exe, debug_files[p],
                                                         reference])
                failures += rc
                print("\n".join(lines), flush=True)
                continue
            _, want = dwzcores.our_frames(a.coretriage, plain[p], core, ["--no-cache"])
            module = os.path.basename(os.path.realpath(exe))
            for args in (["--no-cache"], ["--cache-dir", os.path.join(tmp, "cache")]):
                tool_args = ["--debug-dir", debug, *args]
                rc, lines = dwzcores.compare_gdb_case(a.coretriage, cores, p, tool_args,
                                                      [f"file {plain[p]}", f"core-file {core}"])
                failures += rc
                print("\n".join(lines).replace(f"{p}:", f"{label} {' '.join(args)}:", 1), flush=True)
                _, frames = dwzcores.our_frames(a.coretriage, exe, core, tool_args)
                got, ref = frame_names(frames, module), frame_names(want, module)
                ok = got == ref and any(f[:2] == (INLINED[p], True) for f in got)
                print(f"{'ok  ' if ok else 'FAIL'} {label} {' '.join(args)}: names {got}"
                      + ("" if ok else f", without dwz {ref}"), flush=True)
                failures += 0 if ok else 1
                walk_args = ["--debug-dir", debug] + (args if args[0] == "--cache-dir" else [])
                rc, lines = dwzcores.diewalk(a.diewalk, walk_args + [exe, debug_files[p], reference])
                failures += rc
                print("\n".join(lines), flush=True)
    return failures


if __name__ == "__main__":
    sys.exit(main())
