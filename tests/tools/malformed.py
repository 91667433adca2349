#!/usr/bin/env python3
"""Malformed-input suite for coretriage (issue #4).

    malformed.py --coretriage BIN --workdir DIR [--shared DIR] [--regressions DIR] [--list]

Makes a real core at test time (tests/robustness/crash.c, crashed by the kernel with `ulimit -c
unlimited` in WORKDIR, or with gdb's gcore when core_pattern pipes cores away), derives malformed
dumps from it (and from a few cores of SHARED/corpus/external when present: 32-bit, big-endian, other
architectures), adds inputs that are not cores at all, and runs coretriage on each one with a
timeout. Every case must end in one of:
  * a clear error: exit 2 and exactly one line on stderr, starting "coretriage: "
  * a (possibly partial) report: exit 0 or 1, stdout a JSON report
never a crash, a sanitizer report, a hang or another exit status. Many cases also pin the outcome
(error / partial report) and a phrase the message must contain.
"""
import argparse
import json
import os
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctelf  # noqa: E402
from ctelf import PT_LOAD, PT_NOTE  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "ERROR: UndefinedBehaviorSanitizer", "AddressSanitizer:DEADLYSIGNAL")
NT_PRSTATUS, NT_PRPSINFO, NT_AUXV, NT_SIGINFO, NT_FILE = 1, 3, 6, 0x53494749, 0x46494C45
AT_NULL, AT_PHDR, AT_ENTRY, AT_SYSINFO_EHDR, AT_EXECFN = 0, 3, 9, 33, 31


class Case:
    def __init__(self, name, path=None, args=None, expect="any", msg=None, safe=True, timeout=None, extra=None):
        self.name, self.path, self.expect, self.msg = name, path, expect, msg
        self.args = args  # full argument list (without the program), else [--safe] --format=json path
        self.safe, self.timeout, self.extra = safe, timeout, extra or []


# ---------------------------------------------------------------------------------------------
# The seed core

def make_seed_core(workdir):
    """Builds and crashes tests/robustness/crash.c; returns (exe, core) or raises."""
    d = os.path.join(workdir, "seed")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    exe = os.path.join(d, "crash")
    subprocess.run(["gcc", "-O0", "-g", "-pthread", "-fno-omit-frame-pointer", "-o", exe,
                    os.path.join(ROOT, "tests", "robustness", "crash.c")], check=True)
    return exe, crash_for_core(exe, d, "seed")


def crash_for_core(exe, d, what):
    """Runs @p exe (which crashes) in directory @p d; returns the path of its core, d/core: the
    kernel's when core_pattern writes one there, else gdb's gcore at the signal. Raises when none."""
    pattern = ""
    try:
        with open("/proc/sys/kernel/core_pattern") as f:
            pattern = f.read().strip()
    except OSError:
        pass
    core = os.path.join(d, "core")
    if not pattern.startswith("|") and not pattern.startswith("/"):
        subprocess.run(["sh", "-c", "ulimit -c unlimited; exec " + os.path.abspath(exe)], cwd=d, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for f in sorted(os.listdir(d)):
            if f == "core" or f.startswith("core."):
                if f != "core":
                    os.rename(os.path.join(d, f), core)
                print(f"{what}: kernel core of {exe} ({os.path.getsize(core)} bytes)")
                return core
    if shutil.which("gdb"):
        # core_pattern hands cores to a helper (systemd-coredump, apport): stop at the signal and gcore.
        subprocess.run(["gdb", "-batch", "-nx", "-q", "-ex", "run", "-ex", "gcore " + core, exe], cwd=d,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        if os.path.exists(core):
            print(f"{what}: gdb gcore of {exe} ({os.path.getsize(core)} bytes; core_pattern is {pattern!r})")
            return core
    raise RuntimeError(f"no core was produced (core_pattern {pattern!r}, no gdb fallback)")


# ---------------------------------------------------------------------------------------------
# Mutations of one core. Each returns bytes (or None when the core lacks what it needs).

def note_list(c):
    return list(c.notes())


def first_note(c, ntype, name=b"CORE"):
    for n in c.notes():
        if n["type"] == ntype and n["name"] == name:
            return n
    return None


def loads(c):
    return [p for p in c.phdrs if p["type"] == PT_LOAD]


def va_to_off(c, addr):
    for p in loads(c):
        if p["vaddr"] <= addr < p["vaddr"] + p["filesz"] and p["offset"] + (addr - p["vaddr"]) < len(c.data):
            return p["offset"] + (addr - p["vaddr"])
    return None


def auxv_value(c, atype):
    n = first_note(c, NT_AUXV)
    if not n:
        return None, None
    w = 8 if c.is64 else 4
    for i in range(0, n["descsz"] - 2 * w + 1, 2 * w):
        t = struct.unpack_from(c.e + c.word(), c.data, n["desc_off"] + i)[0]
        if t == atype:
            return n["desc_off"] + i + w, struct.unpack_from(c.e + c.word(), c.data, n["desc_off"] + i + w)[0]
        if t == AT_NULL:
            break
    return None, None


def put_word(c, off, value):
    fmt = c.e + c.word()
    struct.pack_into(fmt, c.data, off, value & ((1 << (8 * struct.calcsize(fmt))) - 1))


# x86_64 and i386 register offsets in NT_PRSTATUS (pr_reg at 112 / 72; user_regs_struct order).
REG_OFFSETS = {
    (62, True): {"pc": 112 + 16 * 8, "sp": 112 + 19 * 8, "fp": 112 + 4 * 8},
    (3, False): {"pc": 72 + 12 * 4, "sp": 72 + 15 * 4, "fp": 72 + 5 * 4},
    (183, True): {"pc": 112 + 32 * 8, "sp": 112 + 31 * 8, "fp": 112 + 29 * 8},
}


def set_regs(c, **regs):
    offs = REG_OFFSETS.get((c.e_machine, c.is64))
    if not offs:
        return None
    done = False
    for n in c.notes():
        if n["type"] == NT_PRSTATUS and n["name"] == b"CORE":
            for r, v in regs.items():
                if offs[r] + (8 if c.is64 else 4) <= n["descsz"]:
                    put_word(c, n["desc_off"] + offs[r], v)
                    done = True
    return bytes(c.data) if done else None


def get_reg(c, r, n):
    offs = REG_OFFSETS.get((c.e_machine, c.is64))
    return struct.unpack_from(c.e + c.word(), c.data, n["desc_off"] + offs[r])[0]


def mutations(data, tag, rich):
    """Yields (name, bytes, expect, msg). rich: all mutations (the seed), else a representative set."""
    base = ctelf.Core(data)
    size = len(data)

    def fresh():
        return ctelf.Core(data)

    # --- truncation at every structural boundary -----------------------------------------------
    cuts = {"magic": 4, "ident": 16, "e_type": 18, "mid-ehdr": 40, "ehdr-1": base.ehsize - 1}
    for name, n in cuts.items():
        yield f"cut-{name}", data[:n], "error", None
    cuts = {"ehdr": base.ehsize, "mid-phdr0": base.phoff + base.phentsize // 2}
    for i in range(1, min(len(base.phdrs), 8 if rich else 2) + 1):
        cuts[f"phdr{i}"] = base.phoff + i * base.phentsize
    ph_end = base.phoff + len(base.phdrs) * base.phentsize
    cuts["phdrs-end"] = ph_end
    for name, n in cuts.items():
        yield f"cut-{name}", data[:n], "any", None
    notes = note_list(base)
    for i, n in enumerate(notes if rich else notes[:2]):
        yield f"cut-note{i}-header", data[:n["at"] + 6], "any", None
        yield f"cut-note{i}-desc", data[:n["desc_off"] + n["descsz"] // 2], "any", None
    segs = loads(base)
    for i, p in enumerate(segs if rich else segs[:2]):
        if p["filesz"] and p["offset"] < size:
            yield f"cut-load{i}-start", data[:p["offset"]], "partial", "truncated"
            if rich:
                yield f"cut-load{i}-mid", data[:p["offset"] + p["filesz"] // 2 + 1], "partial", "truncated"
    if max((p["offset"] + p["filesz"] for p in segs), default=0) == size:
        yield "cut-last-byte", data[:-1], "partial", "truncated"
    else:
        yield "cut-last-byte", data[:-1], "any", None

    # --- note sizes that overflow / run past their segment -----------------------------------------
    if notes:
        n0 = notes[0]
        for field, off, v in (("namesz-max", 0, 0xFFFFFFFF), ("descsz-max", 4, 0xFFFFFFFF),
                              ("namesz-align-wrap", 0, 0xFFFFFFFD), ("descsz-past-segment", 4, 0x7FFFFFF0)):
            c = fresh()
            struct.pack_into(c.e + "I", c.data, n0["at"] + off, v)
            yield f"note0-{field}", bytes(c.data), "report", "note"
        c = fresh()
        struct.pack_into(c.e + "I", c.data, n0["at"] + 4, 0)
        yield "note0-descsz-zero", bytes(c.data), "report", None
    for ntype, label in ((NT_PRSTATUS, "prstatus"), (NT_PRPSINFO, "prpsinfo"), (NT_SIGINFO, "siginfo"),
                         (NT_AUXV, "auxv"), (NT_FILE, "file")):
        n = first_note(base, ntype)
        if not n:
            continue
        # Shrink the descriptor to 4 bytes: the later notes move (their headers are now garbage).
        c = fresh()
        struct.pack_into(c.e + "I", c.data, n["at"] + 4, 4)
        yield f"note-{label}-tiny", bytes(c.data), "report", None
        if rich:
            c = fresh()
            struct.pack_into(c.e + "I", c.data, n["at"] + 8, 0xDEADBEEF)
            yield f"note-{label}-unknown-type", bytes(c.data), "report", None

    # --- program headers pointing outside the file --------------------------------------------------
    nph = base.note_segment()
    if nph:
        for label, field, v in (("offset-past-end", "offset", size + 4096), ("offset-max", "offset", 2**64 - 1),
                                ("filesz-huge", "filesz", 2**63 + 5), ("filesz-zero", "filesz", 0)):
            c = fresh()
            c.set_phdr(c.note_segment(), field, v)
            yield f"ptnote-{label}", bytes(c.data), "report", None
    for label, field, v in (("offset-past-end", "offset", size + 4096), ("offset-max", "offset", 2**64 - 4096),
                            ("filesz-huge", "filesz", 2**64 - 1), ("memsz-wraps", "memsz", 2**64 - 4096),
                            ("vaddr-top", "vaddr", 2**64 - 4096)):
        c = fresh()
        for p in loads(c):
            c.set_phdr(p, field, v)
        yield f"ptload-all-{label}", bytes(c.data), "report", None
    c = fresh()
    for p in loads(c):
        c.set_phdr(p, "memsz", 0)
        c.set_phdr(p, "filesz", 0)
    yield "ptload-all-zero-length", bytes(c.data), "report", None
    c = fresh()
    for p in loads(c):
        c.set_phdr(p, "filesz", 0)
    yield "ptload-all-filesz-zero", bytes(c.data), "partial", None
    c = fresh()
    ls = loads(c)
    if ls:
        for p in ls:
            c.set_phdr(p, "vaddr", ls[0]["vaddr"])
        yield "ptload-all-overlapping", bytes(c.data), "report", "overlap"
        c = fresh()
        for i, p in enumerate(loads(c)):
            c.set_phdr(p, "vaddr", ls[0]["vaddr"] + i * 16)
            c.set_phdr(p, "memsz", 1 << 40)
        yield "ptload-nested-overlapping", bytes(c.data), "report", None

    # --- header fields -------------------------------------------------------------------------------
    for label, off, v, expect, msg in (("class-none", 4, 0, "error", "class"), ("class-3", 4, 3, "error", "class"),
                                       ("class-flipped", 4, 1 if base.is64 else 2, "any", None),
                                       ("data-none", 5, 0, "error", None),
                                       ("data-flipped", 5, 1 if base.be else 2, "error", "byte order")):
        c = fresh()
        c.data[off] = v
        yield f"ehdr-{label}", bytes(c.data), expect, msg
    for label, v, expect, msg in (("sparcv9", 43, "any", None), ("m68k", 4, "error", "m68k"),
                                  ("unknown", 0x7777, "error", "not supported"),
                                  ("none", 0, "error", "not supported"),
                                  ("i386-on-64", 3, "any", None), ("aarch64", 183, "any", None),
                                  # Foreign registers read through every other table: any outcome but a crash.
                                  ("arm", 40, "any", None), ("ppc64", 21, "any", None), ("ppc", 20, "any", None),
                                  ("s390", 22, "any", None), ("mips", 8, "any", None), ("riscv", 243, "any", None)):
        if v == base.e_machine:
            continue
        c = fresh()
        c.set_field("machine", v)
        yield f"machine-{label}", bytes(c.data), expect, msg
    for label, v, expect in (("exec", 2, "error"), ("dyn", 3, "error"), ("rel", 1, "error"), ("none", 0, "error")):
        c = fresh()
        c.set_field("type", v)
        yield f"etype-{label}", bytes(c.data), expect, "not a core"
    for label, v, expect, msg in (("zero", 0, "error", "e_phentsize"), ("small", base.phentsize - 1, "error", "e_phentsize"),
                                  ("huge", 0xFFFF, "error", "e_phentsize"), ("double", base.phentsize * 2, "any", None)):
        c = fresh()
        c.set_field("phentsize", v)
        yield f"phentsize-{label}", bytes(c.data), expect, msg
    for label, v, expect in (("zero", 0, "error"), ("one", 1, "any"), ("more-than-file", 0xFFFE, "any")):
        c = fresh()
        c.set_field("phnum", v)
        yield f"phnum-{label}", bytes(c.data), expect, None
    for label, v, expect in (("past-end", size + 1, "error"), ("max", 2**64 - 1 if base.is64 else 2**32 - 1, "error"),
                             ("inside-notes", nph["offset"] if nph else 0, "any")):
        c = fresh()
        c.set_field("phoff", v)
        yield f"phoff-{label}", bytes(c.data), expect, None

    # --- PN_XNUM lies -------------------------------------------------------------------------------
    def xnum(sh_info, shoff=None, shentsize=None):
        c = fresh()
        shsize = 64 if c.is64 else 40
        out = bytearray(c.data)
        at = len(out) if shoff is None else shoff
        sh = bytearray(shsize)
        struct.pack_into(c.e + "I", sh, 44 if c.is64 else 28, sh_info & 0xFFFFFFFF)
        if shoff is None:
            out += sh
        c2 = ctelf.Core(bytes(out))
        c2.set_field("phnum", 0xFFFF)
        c2.set_field("shoff", at)
        c2.set_field("shentsize", shsize if shentsize is None else shentsize)
        c2.set_field("shnum", 0)
        return bytes(c2.data)

    yield "pnxnum-true-count", xnum(len(base.phdrs)), "report", None
    yield "pnxnum-zero", xnum(0), "error", "program headers"
    yield "pnxnum-one", xnum(1), "any", None
    yield "pnxnum-2pow32-1", xnum(2**32 - 1), "any", "CT_MAX_PHDRS"
    yield "pnxnum-no-shdr", xnum(5, shoff=0), "error", "PN_XNUM"
    yield "pnxnum-shoff-past-end", xnum(5, shoff=size + 100), "error", "PN_XNUM"
    yield "pnxnum-shoff-wraps", xnum(5, shoff=2**64 - 20 if base.is64 else 2**32 - 20), "error", "PN_XNUM"
    yield "pnxnum-bad-shentsize", xnum(len(base.phdrs), shentsize=3), "error", "PN_XNUM"

    if not rich:
        return

    # --- 100k program headers ---------------------------------------------------------------------
    def many_phdrs(count, kind):
        c = fresh()
        phs = bytearray(c.data[c.phoff:c.phoff + len(c.phdrs) * c.phentsize])
        extra = bytearray()
        last = 0x600000000000 if c.is64 else 0x10000000  # a range no real mapping uses
        nph = c.note_segment()
        for i in range(count):
            if kind == "load":
                v = last + i * 0x1000
                t, o, va, fs, ms = PT_LOAD, 0, v, 0, 0x1000
            else:  # the same note segment again and again
                t, o, va, fs, ms = PT_NOTE, nph["offset"], 0, nph["filesz"], 0
            if c.is64:
                extra += struct.pack(c.e + "IIQQQQQQ", t, 4, o, va, 0, fs, ms, 0x1000)
            else:
                extra += struct.pack(c.e + "IIIIIIII", t, o, va, 0, fs, ms, 4, 0x1000)
        out = bytearray(c.data) + phs + extra
        shsize = 64 if c.is64 else 40
        sh = bytearray(shsize)
        struct.pack_into(c.e + "I", sh, 44 if c.is64 else 28, len(c.phdrs) + count)
        shoff = len(out)
        out += sh
        c2 = ctelf.Core(bytes(out))
        c2.set_field("phoff", len(c.data))
        c2.set_field("phnum", 0xFFFF)
        c2.set_field("shoff", shoff)
        c2.set_field("shentsize", shsize)
        c2.set_field("shnum", 0)
        return bytes(c2.data)

    yield "phdrs-100k-loads", many_phdrs(100000, "load"), "report", None

    # 100k threads: one new PT_NOTE holding the first PRSTATUS 100,000 times (the unwinder runs for
    # each; coretriage must finish within the timeout or stop with the --timeout error).
    pr0 = first_note(base, NT_PRSTATUS)
    if pr0:
        blob = bytes(data[pr0["at"]:pr0["next"]]) * 100000
        c = fresh()
        out = bytearray(c.data)
        at = len(out)
        out += blob
        c2 = ctelf.Core(bytes(out))
        c2.set_phdr(c2.note_segment(), "offset", at)
        c2.set_phdr(c2.note_segment(), "filesz", len(blob))
        yield "threads-100k", bytes(c2.data), "any", None
    yield "phdrs-100k-aliased-notes", many_phdrs(100000, "note"), "any", None

    # --- NT_FILE with absurd counts -------------------------------------------------------------------
    nf = first_note(base, NT_FILE)
    if nf:
        w = 8 if base.is64 else 4
        for label, v, msg in (("count-max", 2**64 - 1 if w == 8 else 2**32 - 1, "NT_FILE"),
                              ("count-2pow32", 2**32 if w == 8 else 2**31, "NT_FILE"),
                              ("count-over-cap", 1000001, "CT_MAX_FILE_ENTRIES"), ("count-plus-one", None, "NT_FILE"),
                              ("count-zero", 0, None)):
            c = fresh()
            cur = struct.unpack_from(c.e + c.word(), c.data, nf["desc_off"])[0]
            put_word(c, nf["desc_off"], cur + 1 if v is None else v)
            yield f"ntfile-{label}", bytes(c.data), "report", msg
        for label, v in (("pagesize-zero", 0), ("pagesize-3", 3), ("pagesize-huge", 2**63)):
            c = fresh()
            put_word(c, nf["desc_off"] + w, v)
            yield f"ntfile-{label}", bytes(c.data), "report", None
        count = struct.unpack_from(base.e + base.word(), data, nf["desc_off"])[0]
        c = fresh()
        for i in range(count):  # start > end, and pgoff * pagesize overflowing
            e0 = nf["desc_off"] + 2 * w + i * 3 * w
            put_word(c, e0, 2**64 - 1 if w == 8 else 2**32 - 1)
            put_word(c, e0 + 2 * w, 2**64 - 1 if w == 8 else 2**32 - 1)
        yield "ntfile-entries-inverted", bytes(c.data), "report", None
        c = fresh()
        names = nf["desc_off"] + 2 * w + count * 3 * w
        for k in range(names, nf["desc_off"] + nf["descsz"]):
            if c.data[k] == 0:
                c.data[k] = ord("A")
        yield "ntfile-names-unterminated", bytes(c.data), "report", None
        c = fresh()
        for i in range(count):  # every mapping starts at the same address
            put_word(c, nf["desc_off"] + 2 * w + i * 3 * w, loads(base)[0]["vaddr"])
        yield "ntfile-all-same-start", bytes(c.data), "report", None

    # --- registers pointing anywhere -------------------------------------------------------------------
    stack_top = None
    pr = first_note(base, NT_PRSTATUS)
    if pr and (base.e_machine, base.is64) in REG_OFFSETS:
        sp = get_reg(base, "sp", pr)
        for label, regs in (("all-zero", dict(pc=0, sp=0, fp=0)), ("all-ones", dict(pc=2**64 - 1, sp=2**64 - 1, fp=2**64 - 1)),
                            ("pc-noncanonical", dict(pc=0x4141414141414141)), ("sp-unmapped", dict(sp=0x10, fp=0x18)),
                            ("pc-in-stack", dict(pc=sp)), ("sp-top-of-space", dict(sp=2**64 - 8, fp=2**64 - 16)),
                            ("pc-in-notes", dict(pc=nph["offset"] if nph else 0))):
            c = fresh()
            out = set_regs(c, **regs)
            if out:
                yield f"regs-{label}", out, "report", None
        # A frame-pointer cycle: [fp] = fp, [fp+8] = a code address. The unwinder must stop.
        c = fresh()
        off = va_to_off(c, sp)
        _, entry = auxv_value(c, AT_ENTRY)
        if off is not None and entry:
            put_word(c, off, sp)
            put_word(c, off + (8 if c.is64 else 4), entry + 4)
            out = set_regs(c, fp=sp)
            if out:
                yield "regs-fp-cycle", out, "report", None
        # The whole stack filled with return addresses into the executable: scanning must stay bounded.
        c = fresh()
        if off is not None and entry:
            for p in loads(c):
                if p["vaddr"] <= sp < p["vaddr"] + p["filesz"]:
                    w = 8 if c.is64 else 4
                    for k in range(p["offset"], p["offset"] + p["filesz"] - w + 1, w):
                        put_word(c, k, entry + 5)
            out = set_regs(c, fp=0)
            if out:
                yield "stack-full-of-return-addresses", out, "report", None

    # --- auxv pointing anywhere ----------------------------------------------------------------------
    for at, label in ((AT_EXECFN, "execfn"), (AT_SYSINFO_EHDR, "vdso"), (AT_PHDR, "phdr"), (AT_ENTRY, "entry")):
        for vlabel, v in (("zero", 0), ("top", 2**64 - 2 if base.is64 else 2**32 - 2), ("notes", nph["offset"] if nph else 1)):
            c = fresh()
            off, _ = auxv_value(c, at)
            if off is None:
                continue
            put_word(c, off, v)
            yield f"auxv-{label}-{vlabel}", bytes(c.data), "report", None
    c = fresh()
    na = first_note(c, NT_AUXV)
    if na:
        for k in range(na["desc_off"], na["desc_off"] + na["descsz"]):
            c.data[k] = 0xFF  # no AT_NULL, every type unknown
        yield "auxv-no-terminator", bytes(c.data), "report", None

    # --- the ELF images in the dump's memory (module discovery) ----------------------------------------
    heads = [p for p in loads(base) if p["filesz"] >= 64 and data[p["offset"]:p["offset"] + 4] == b"\x7fELF"]
    for label, fn in (("phnum-max", lambda c, o: struct.pack_into(c.e + "H", c.data, o + (56 if c.is64 else 44), 0xFFFF)),
                      ("phoff-huge", lambda c, o: put_word(c, o + (32 if c.is64 else 28), 2**31)),
                      ("phentsize-bad", lambda c, o: struct.pack_into(c.e + "H", c.data, o + (54 if c.is64 else 42), 7)),
                      ("class-flipped", lambda c, o: c.data.__setitem__(o + 4, 3 - c.data[o + 4])),
                      ("notes-garbage", None)):
        c = fresh()
        for p in heads:
            o = p["offset"]
            if fn:
                fn(c, o)
            else:
                # Every PT_NOTE of the image: sizes set to 0xffffffff.
                for k in range(o, o + min(p["filesz"], 4096) - 16, 4):
                    if c.data[k + 12:k + 16] == b"GNU\0":
                        struct.pack_into(c.e + "I", c.data, k + 4, 0xFFFFFFFF)
        yield f"module-ehdr-{label}", bytes(c.data), "report", None


# ---------------------------------------------------------------------------------------------
# Inputs that are not cores

def other_inputs(workdir, exe, core, data):
    d = os.path.join(workdir, "other")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cases = []

    def write(name, content):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(content)
        return p

    cases.append(Case("empty-file", write("empty", b""), expect="error", msg="is empty"))
    os.mkdir(os.path.join(d, "a-directory"))
    cases.append(Case("directory", os.path.join(d, "a-directory"), expect="error", msg="directory"))
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    cases.append(Case("fifo", fifo, expect="error", msg="FIFO"))
    cases.append(Case("device", "/dev/null", expect="error", msg="device"))
    cases.append(Case("missing-file", os.path.join(d, "does-not-exist"), expect="error", msg="No such file"))
    os.symlink(os.path.join(d, "a-directory"), os.path.join(d, "link-to-dir"))
    cases.append(Case("symlink-to-directory", os.path.join(d, "link-to-dir"), expect="error", msg="directory"))
    noperm = write("no-permission.core", data)
    os.chmod(noperm, 0)
    if os.geteuid() != 0:
        cases.append(Case("no-permission", noperm, expect="error", msg="Permission denied"))
    elif shutil.which("setpriv"):
        # root reads anything: drop to nobody for this one run.
        cases.append(Case("no-permission", noperm, expect="error", msg="Permission denied",
                          extra=["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]))
    cases.append(Case("executable-as-core", exe, expect="error", msg="not a core"))
    cases.append(Case("two-executables", args=["--safe", exe, exe], expect="error", msg="not a core"))
    obj = os.path.join(d, "object.o")
    subprocess.run(["gcc", "-c", "-o", obj, os.path.join(ROOT, "tests", "robustness", "crash.c")], check=True)
    cases.append(Case("object-file-as-core", obj, expect="error", msg="not a core"))
    cases.append(Case("shared-library-as-core", "/lib/x86_64-linux-gnu/libc.so.6"
                      if os.path.exists("/lib/x86_64-linux-gnu/libc.so.6") else exe, expect="error", msg="not a core"))
    cases.append(Case("swapped-arguments", args=["--safe", "--format=json", core, exe], expect="report", msg="swapped"))
    cases.append(Case("text-file", write("notes.txt", b"this is not a core dump\n" * 10), expect="error",
                      msg="not a core dump"))
    cases.append(Case("png", write("image.png", b"\x89PNG\r\n\x1a\n" + bytes(200)), expect="error", msg="not a core"))
    cases.append(Case("random-bytes", write("random", os.urandom(4096)), expect="error"))
    cases.append(Case("elf-magic-only", write("magic", b"\x7fELF"), expect="error", msg="ELF"))
    cases.append(Case("kdump-header-only", write("kdump", b"KDUMP   " + bytes(100)), expect="error"))
    cases.append(Case("makedumpfile-flattened-only", write("flat", b"makedumpfile" + bytes(4096)), expect="error"))
    for tool, suffix, magic in (("zstd", "zst", None), ("gzip", "gz", None), ("bzip2", "bz2", None), ("xz", "xz", None)):
        if shutil.which(tool):
            out = subprocess.run([tool, "-c", core], stdout=subprocess.PIPE, check=True).stdout
            p = write("core." + suffix, out)
            # Decompressed and analyzed when the build reads this format, else a clear error.
            cases.append(Case(f"compressed-{tool}", p, expect="any", msg=None))
            cases.append(Case(f"compressed-{tool}-truncated", write("cut-core." + suffix, out[: len(out) // 2]),
                              expect="any"))
    cases.append(Case("zstd-magic-garbage", write("garbage.zst", b"\x28\xb5\x2f\xfd" + os.urandom(1000)), expect="error"))
    cases.append(Case("gzip-magic-garbage", write("garbage.gz", b"\x1f\x8b" + os.urandom(1000)), expect="error"))
    # The caps in the message: --max-threads=1 on a core with two threads.
    cases.append(Case("thread-cap", args=["--safe", "--format=json", "--max-threads=1", core], expect="partial",
                      msg="max-threads"))
    cases.append(Case("frame-cap", args=["--safe", "--format=json", "--max-frames=1", core], expect="any"))
    # Without --safe on the real core (opens the files it names: the seed's own executable).
    cases.append(Case("unsafe-real-core", args=["--no-debuginfod", "--format=json", core], expect="report"))
    cases.append(Case("real-core-with-exe", args=["--safe", "--format=json", exe, core], expect="report"))
    return cases


# ---------------------------------------------------------------------------------------------
# --safe: the files named in the dump are never opened, the network never contacted.

def nt_file_paths(data):
    c = ctelf.Core(data)
    n = first_note(c, NT_FILE)
    if not n:
        return []
    w = 8 if c.is64 else 4
    count = struct.unpack_from(c.e + c.word(), c.data, n["desc_off"])[0]
    names = bytes(c.data[n["desc_off"] + 2 * w + count * 3 * w:n["desc_off"] + n["descsz"]])
    return sorted({x.decode(errors="replace") for x in names.split(b"\0") if x})


def safe_mode_checks(binary, workdir, exe, core, data):
    """Returns a list of (name, problems) from strace runs; [] when strace is missing."""
    if not shutil.which("strace"):
        print("note: strace not installed; --safe file-access checks skipped")
        return []
    paths = nt_file_paths(data)
    results = []
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"  # LSan cannot run under ptrace
    env["DEBUGINFOD_URLS"] = "http://127.0.0.1:9/"  # must be ignored under --safe

    def traced(args):
        log = os.path.join(workdir, "strace.log")
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat,openat2,connect,execve", "-o", log, binary] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=120)
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
        # Only what happens once the dump is open: the dynamic loader maps libc before main().
        start = next((i for i, l in enumerate(lines) if core in l and "open" in l), 0)
        return lines[start:]

    after = traced(["--safe", "--format=json", core])
    opened = [p for p in paths if any(f'"{p}"' in l for l in after if "open" in l)]
    problems = [f"--safe opened {p}, a path named in the dump" for p in opened]
    problems += [f"--safe made a network call: {l}" for l in after if "connect(" in l and "AF_INET" in l]
    results.append(("safe/no-dump-named-files-no-network", problems))
    # The same check without --safe must see the executable opened, or the check above proves nothing.
    after = traced(["--no-debuginfod", "--format=json", core])
    if exe in paths and not any(f'"{exe}"' in l for l in after if "open" in l):
        results.append(("safe/control-without-safe", [f"without --safe {exe} was not opened: the strace check is blind"]))
    else:
        results.append(("safe/control-without-safe", []))
    return results


# ---------------------------------------------------------------------------------------------

def run_case(binary, case, default_timeout):
    if case.args is not None:
        argv = [binary] + case.args
    else:
        argv = [binary] + (["--safe"] if case.safe else []) + ["--format=json", case.path]
    argv = case.extra + argv
    timeout = case.timeout or default_timeout
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return [f"hang: no exit after {timeout} s"], None, "", 0.0
    dt = time.monotonic() - t0
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    rc = p.returncode
    problems = []
    if any(m in err for m in SANITIZER_MARKS):
        problems.append("sanitizer report")
    if rc < 0:
        problems.append(f"killed by signal {signal.Signals(-rc).name}")
    elif rc not in (0, 1, 2):
        problems.append(f"exit status {rc}")
    if rc == 2:
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("coretriage: "):
            problems.append("exit 2 needs exactly one stderr line starting 'coretriage: '")
    if rc in (0, 1) and "--format=json" in argv:
        try:
            json.loads(out)
        except ValueError as e:
            problems.append(f"report is not valid JSON ({e})")
    if case.expect == "error" and rc != 2:
        problems.append(f"expected a clear error (exit 2), got exit {rc}")
    if case.expect == "report" and rc not in (0, 1):
        problems.append(f"expected a report (exit 0/1), got exit {rc}")
    if case.expect == "partial" and rc != 1:
        problems.append(f"expected a partial report (exit 1), got exit {rc}")
    if case.msg and rc in (0, 1, 2) and case.msg.lower() not in (err + out).lower():
        problems.append(f"output does not mention {case.msg!r}")
    return problems, rc, err, dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coretriage", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--shared")
    ap.add_argument("--regressions")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    ap.add_argument("--only", help="run the cases whose name contains this")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    wd = os.path.abspath(a.workdir)
    os.makedirs(wd, exist_ok=True)
    try:
        exe, core = make_seed_core(wd)
    except (RuntimeError, subprocess.SubprocessError, OSError) as e:
        print(f"SKIP: cannot make a seed core: {e}")
        return 77
    with open(core, "rb") as f:
        data = f.read()

    cases = []
    gen = os.path.join(wd, "generated")
    shutil.rmtree(gen, ignore_errors=True)
    os.makedirs(gen)

    def add(tag, blob, rich):
        # A seed this build cannot analyze (an architecture not supported yet) still must not
        # crash or hang, but its mutations cannot be expected to give reports.
        p = os.path.join(gen, f"{tag}--original")
        with open(p, "wb") as f:
            f.write(blob)
        rc = subprocess.run([a.coretriage, "--safe", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=a.timeout).returncode
        cases.append(Case(f"{tag}/original", p, expect="any"))
        for name, content, expect, msg in mutations(blob, tag, rich):
            if rc not in (0, 1) and expect != "error":
                expect, msg = "any", None
            p = os.path.join(gen, f"{tag}--{name}")
            with open(p, "wb") as f:
                f.write(content)
            case = Case(f"{tag}/{name}", p, expect=expect, msg=msg)
            if name == "threads-100k":
                # Also the --timeout path: a time-limit stop is exit 2 with one "coretriage: " line.
                case.args = ["--safe", "--format=json", "--timeout=5", p]
            cases.append(case)

    add("seed", data, True)
    # Other classes, byte orders and machines from the external corpus (a representative subset).
    ext = os.path.join(a.shared, "corpus", "external") if a.shared else None
    if ext and os.path.isdir(ext):
        for rel in ("lldb/linux-i386/linux-i386.core", "lldb/linux-s390x/linux-s390x.core",
                    "elfutils/testfile_aarch64_core/testfile_aarch64_core", "pyelftools/core_linux32/core_linux32.elf",
                    "elfutils/testfile-riscv64-core/testfile-riscv64-core"):
            p = os.path.join(ext, rel)
            if os.path.exists(p):
                with open(p, "rb") as f:
                    add(os.path.basename(os.path.dirname(rel)), f.read(), False)
    else:
        print("note: external corpus absent; only the seed core's mutations run")
    cases += other_inputs(wd, exe, core, data)
    if a.regressions and os.path.isdir(a.regressions):
        for root, _, files in os.walk(a.regressions):
            for f in sorted(files):
                p = os.path.join(root, f)
                if os.path.getsize(p) > 0 and not f.endswith(".md"):
                    cases.append(Case("regression/" + os.path.relpath(p, a.regressions), p, expect="any"))
    if a.only:
        cases = [c for c in cases if a.only in c.name]
    if a.list:
        for c in cases:
            print(c.name, c.expect, c.msg or "")
        return 0

    failures, outcomes = 0, {0: 0, 1: 0, 2: 0}
    for c in cases:
        problems, rc, err, dt = run_case(a.coretriage, c, a.timeout)
        if rc in outcomes:
            outcomes[rc] += 1
        first = err.strip().splitlines()[0] if err.strip() else ""
        status = "FAIL" if problems else "ok"
        print(f"{status:4} {c.name:45} exit {rc} {dt:5.2f}s  {first[:110]}")
        if problems:
            failures += 1
            print("     -> " + "; ".join(problems))
            if "sanitizer report" in problems or any(p.startswith(("killed", "exit status")) for p in problems):
                print("     " + err[-4000:].replace("\n", "\n     "))
    if not a.only or "safe" in a.only:
        for name, problems in safe_mode_checks(a.coretriage, wd, exe, core, data):
            print(f"{'FAIL' if problems else 'ok':4} {name}")
            for p in problems:
                print("     -> " + p)
            failures += bool(problems)
    print(f"\n{len(cases)} malformed and non-core inputs: {outcomes[2]} clear errors, {outcomes[1]} partial reports, "
          f"{outcomes[0]} complete reports; {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
