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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
