#!/usr/bin/env python3
"""--sysroot confines the paths a dump names (issue 11, defect 11).

    sysroot.py --coretriage BIN --workdir DIR

From a real seed core (hostile.py), rewrites its NT_FILE names so that each one tries to leave the
sysroot: the executable's path climbs out with "/../../..", libc's goes through a symlink inside
the sysroot that points to "/". Neither file may be opened: with an empty sysroot, no frame is
symbolized from them. Then the executable is placed inside the sysroot at its path: it is found
through the same "/../.." name, resolved inside the sysroot.
"""
import argparse
import os
import shutil
import sys

import hostile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    work = os.path.abspath(a.workdir)
    f = hostile.Failures()
    exe, data, c = hostile.seed(work)
    real = os.path.realpath(exe).encode()
    ents = hostile.ntfile_entries(c)
    root = os.path.join(work, "sysroot")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    os.symlink("/", os.path.join(root, "escape"))
    renamed = []
    for s, e, p, name in ents:
        if name == real:
            name = b"/.." * 12 + real
        elif b"libc.so" in name:
            name = b"/escape" + name
        renamed.append((s, e, p, name))
    nt = hostile.note(b"CORE", hostile.NT_FILE, hostile.ntfile_desc(renamed))
    core = os.path.join(work, "sysroot.core")
    with open(core, "wb") as out:
        out.write(hostile.rebuild(c, hostile.notes_of(c, lambda x: x["type"] != hostile.NT_FILE) + nt))

    def functions(r):
        rep = r.json() or {}
        return {fr.get("function") for t in rep.get("threads", []) for fr in t["frames"]}, rep

    r = hostile.Run([a.coretriage, "--sysroot", root, "--format=json", core])
    fns, rep = functions(r)
    f.check(r.rc in (0, 1) and rep and not r.sanitizer, f"escape: {r.describe()}")
    f.check("crash" not in fns and "main" not in fns, f"escape: the executable outside the sysroot was opened: {fns}")
    # Files found by build-id in the debug directories are fine; a file reached by the dump's path
    # (through ".." or the symlink) is not.
    files = [m.get("file") or "" for m in rep.get("modules", [])] if rep else []
    f.check(not [x for x in files if x.startswith(root)], f"escape: files opened through the dump's paths: {files}")

    inside = os.path.join(root, real.decode().lstrip("/"))
    os.makedirs(os.path.dirname(inside))
    shutil.copy(exe, inside)
    r = hostile.Run([a.coretriage, "--sysroot", root, "--format=json", core])
    fns, rep = functions(r)
    f.check(r.rc in (0, 1) and "crash" in fns, f"inside: the executable in the sysroot is found: {r.describe()} {fns}")
    return f.exit()


if __name__ == "__main__":
    sys.exit(main())
