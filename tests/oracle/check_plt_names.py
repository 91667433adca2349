#!/usr/bin/env python3
"""PLT stub names against gdb (issue 21): every 4th address of every PLT section of every module of
real cores, named by coretriage (ct_pltnames: ct_symbolize) and by gdb's `info symbol` (BFD's
synthetic `name@plt` symbols), with the executable and the core loaded.

A name coretriage gives must be gdb's, offset included: a wrong name fails, and so does ?? where
gdb names the address (.plt.got's GLOB_DAT stubs and the `*ABS*+0x…@plt` stubs of IRELATIVE slots
included). Where gdb has no name (PLT headers, the lazy .plt beside .plt.sec) coretriage must have
none either. Exit 0 agree, 1 differ, 77 without gdb or cores."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

CASES = ["plt-stub", "plt-stub-ibt", "cxx", "pkg-blame", "threads", "null-read"]
GDB_SYM = re.compile(r"^(?P<name>.*?)(?: \+ (?P<off>\d+))? in section (?P<sec>\S+)(?: of .*)?$")


def gdb_names(exe, core, addrs, cwd, gdb="gdb", sysroot=None):
    cmds = ["set pagination off", "set width 0"] + (["set sysroot " + sysroot] if sysroot else []) + ["echo @@%s\\n" % a + "\ninfo symbol %s" % a for a in addrs]
    # The commands go through a file: thousands of -ex arguments would pass ARG_MAX on big libraries.
    fd, script = tempfile.mkstemp(suffix=".gdb")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(cmds) + "\n")
    try:
        p = subprocess.run([gdb, "-nx", "-q", "-batch", "-x", script, exe, core], cwd=cwd,
                           capture_output=True, text=True, timeout=240)
    finally:
        os.unlink(script)
    out, cur = {}, None
    for line in p.stdout.splitlines():
        if line.startswith("@@"):
            cur = line[2:]
            continue
        if cur is None or cur in out:
            continue
        m = GDB_SYM.match(line)
        out[cur] = (m.group("name"), int(m.group("off") or 0), m.group("sec")) if m else (None, 0, None)
    return out


# gdb's demangler spells the standard substitutions out (DMGL_VERBOSE); coretriage's, as c++filt,
# abbreviates them (Ss, Si, So, Sd) where it can: one name in two spellings, compared abbreviated.
STD_ABBREV = [
    ("std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string"),
    ("std::basic_istream<char, std::char_traits<char> >", "std::istream"),
    ("std::basic_ostream<char, std::char_traits<char> >", "std::ostream"),
    ("std::basic_iostream<char, std::char_traits<char> >", "std::iostream"),
]


def abbreviate(name):
    for long, short in STD_ABBREV:
        name = name.replace(long, short)
    # "<…, std::string >" once abbreviated: the space only kept two '>' apart.
    return re.sub(r" +>", ">", name)


def kind_of(gname, gsec):
    """Which way a stub is named: an IRELATIVE slot, a .plt.got stub, or an import's JUMP_SLOT."""
    if gname.startswith("*ABS*"):
        return "*ABS*"
    return ".plt.got" if gsec == ".plt.got" else gsec or "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pltnames", required=True)
    ap.add_argument("--cores", required=True)
    # A cross core by hand (docs/unwinding.md): --gdb gdb-multiarch --sysroot /usr/<triple> CASE...
    ap.add_argument("--gdb", default="gdb")
    ap.add_argument("--sysroot")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if not shutil.which(a.gdb):
        print("no gdb")
        return 77
    wrong = checked = named = unnamed = 0
    kinds = {}
    for case in a.cases or CASES:
        d = os.path.join(a.cores, case)
        if not os.path.exists(os.path.join(d, "core")):
            print("no core for %s: the cores fixture failed" % case)
            return 1
        p = subprocess.run([a.pltnames, "exe", "core"] + ([a.sysroot] if a.sysroot else []), cwd=d, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print("%s: ct_pltnames failed (%d): %s" % (case, p.returncode, p.stderr))
            return 1
        ours = {}
        for line in p.stdout.splitlines():
            addr, off, name = line.split(" ", 2)
            ours[addr] = (None if name == "??" else name, int(off))
        gdb = gdb_names("exe", "core", list(ours), d, a.gdb, a.sysroot)
        case_named = 0
        for addr, (oname, ooff) in ours.items():
            gname, goff, gsec = gdb.get(addr, (None, 0, None))
            checked += 1
            if gname is not None:
                gname = abbreviate(gname)
            if oname is not None:
                if (abbreviate(oname), ooff) != (gname, goff):
                    wrong += 1
                    print("WRONG %s %s: coretriage %s+%d, gdb %s" % (case, addr, oname, ooff,
                                                                   "%s+%d" % (gname, goff) if gname else "no symbol"))
                else:
                    named += 1
                    case_named += 1
            elif gname is not None:
                wrong += 1
                print("MISSING %s %s: coretriage ??, gdb %s+%d in %s" % (case, addr, gname, goff, gsec))
            else:
                unnamed += 1
            if oname is not None and gname is not None:
                kinds[kind_of(gname, gsec)] = kinds.get(kind_of(gname, gsec), 0) + 1
        print("%-14s %5d addresses, %4d named as gdb names them" % (case, len(ours), case_named))
        if case.startswith("plt-stub") and not case_named:
            print("%s: no PLT address named: the test checks nothing" % case)
            return 1
    print("%d addresses, %d named as gdb does (%s), %d unnamed by both, %d differ" %
          (checked, named, ", ".join("%s %d" % kv for kv in sorted(kinds.items())), unnamed, wrong))
    for kind in ("*ABS*", ".plt.got") if not a.cases else ():
        if not kinds.get(kind):
            print("no %s stub named: the test checks nothing of them" % kind)
            return 1
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
