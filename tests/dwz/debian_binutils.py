"""Real cores of Debian's binutils (tests/dwz/check_debian.py runs this): objdump, readelf and nm
from binutils-x86-64-linux-gnu, whose -dbg package shares names and types through
/usr/lib/debug/.dwz/x86_64-linux-gnu/binutils-x86-64-linux-gnu.debug, and the libbfd and libopcodes
they link, whose debug files (libbinutils-dbg) use the other shared file, libbinutils.debug.

Each program is killed in the middle of real work inside the dwz-described code: disassembling
(libopcodes' print_insn_i386 calling back into objdump), source lines for a disassembly (libbfd's
DWARF line reader, which itself follows the debug file's .gnu_debugaltlink), readelf's and objdump's
own DWARF dumpers over the 10 MB shared file, and nm's symbol lines. Every frame of the crashing
thread is compared with gdb and eu-stack, cache on and off (dwzcores.compare_core); a core whose
stack never reaches the library the case is about is made again (the kill can land between files).
ct_diewalk then walks the four debug files and their shared files.
"""
import os
import signal

import dwzcores

PREFIX = "/usr/bin/x86_64-linux-gnu-"
LIBDIR = "/usr/lib/x86_64-linux-gnu/"
OBJDUMP, READELF, NM = PREFIX + "objdump", PREFIX + "readelf", PREFIX + "nm"
LIBBFD, LIBOPCODES = LIBDIR + "libbfd-2.40-system.so", LIBDIR + "libopcodes-2.40-system.so"
SHARED = "/usr/lib/debug/.dwz/x86_64-linux-gnu/binutils-x86-64-linux-gnu.debug"


def cases():
    """case -> (argv, the module a usable core's stack must reach, signal, seconds before the kill).
    The inputs are files of the packages themselves, so each run does the same work; the repeated
    libbfd keeps objdump busy for longer than the kill's delay."""
    bfd_debug = dwzcores.debug_file(LIBBFD)
    return {
        "objdump-disasm": ([OBJDUMP, "-d", *[LIBBFD] * 20], "libopcodes", signal.SIGSEGV, 1.0),
        "objdump-lines": ([OBJDUMP, "-dl", *[LIBBFD] * 5], "libbfd", signal.SIGABRT, 1.5),
        "objdump-dwarf": ([OBJDUMP, "--dwarf=info", *[bfd_debug] * 5], "x86_64-linux-gnu-objdump", signal.SIGSEGV,
                          1.0),
        "readelf-info": ([READELF, "--debug-dump=info", SHARED], "x86_64-linux-gnu-readelf", signal.SIGABRT, 1.2),
        "nm-lines": ([NM, "-l", *[bfd_debug] * 3], "libbfd", signal.SIGSEGV, 0.8),
    }


def reaches(module):
    """A predicate on a core's crashing-thread frames: some named frame lies in @module."""
    return lambda frames: any(f.get("function") and f.get("module", "").startswith(module) for f in frames)


def run(a, tmp, cores, cache):
    """Failures of the binutils cores and walks; None when the packages are not installed."""
    programs = (OBJDUMP, READELF, NM, LIBBFD, LIBOPCODES)
    if not all(dwzcores.installed_alt(p) for p in programs):
        print("SKIP binutils: binutils-x86-64-linux-gnu-dbg or libbinutils-dbg (dwz-built) is not installed")
        return None
    failures = 0
    for case, (argv, module, sig, after) in cases().items():
        dwzcores.named_core(a.coretriage, argv, argv[0], tmp, cores, case, sig, after, reaches(module))
        rc, frames = dwzcores.compare_core(a.coretriage, cores, case, cache)
        failures += rc
        if not reaches(module)(frames):
            print(f"  FAIL {case}: no named frame in {module} in 5 cores")
            failures += 1
    return failures + dwzcores.diewalk_all(a.diewalk, programs, cache)
