"""Shared pieces of the hostile-input generators of issue 11 (tests/robustness/*.py).

A seed core is made once per work directory by crashing tests/robustness/crash.c for real (see
tests/tools/malformed.py); the generators then write hostile structures into copies of it: extra
threads (NT_PRSTATUS), extra memory (PT_LOAD), replaced NT_FILE tables. Nothing here is committed
as data; everything is written at test time.
"""
import json
import os
import resource
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import ctelf  # noqa: E402
import malformed  # noqa: E402

NT_PRSTATUS, NT_FILE = 1, 0x46494C45
PT_LOAD, PT_NOTE = 1, 4
# x86-64 NT_PRSTATUS: pr_cursig at 12, pr_pid at 32, pr_reg (user_regs_struct) at 112.
PR_CURSIG, PR_PID, PR_REG = 12, 32, 112
REG = {"rbp": 4, "rip": 16, "rsp": 19}
SANITIZER_MARKS = malformed.SANITIZER_MARKS


class Failures:
    def __init__(self):
        self.items = []

    def check(self, cond, what):
        if not cond:
            self.items.append(what)
            print("FAIL:", what, flush=True)
        return cond

    def exit(self):
        print(f"{len(self.items)} failure(s)")
        return 1 if self.items else 0


def seed(workdir):
    """(exe, core bytes, parsed core) of the real seed core, made once per work directory."""
    d = os.path.join(workdir, "seed")
    exe, core = os.path.join(d, "crash"), os.path.join(d, "core")
    if not (os.path.exists(exe) and os.path.exists(core)):
        os.makedirs(workdir, exist_ok=True)
        exe, core = malformed.make_seed_core(workdir)
    data = open(core, "rb").read()
    return exe, data, ctelf.Core(data)


def symbol(exe, name):
    """Address of a symbol of the (non-PIE or PIE) seed executable, from nm."""
    out = subprocess.run(["nm", exe], stdout=subprocess.PIPE, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise KeyError(name)


def load_bias(core, exe):
    """Load bias of the seed executable in the core: its NT_FILE mapping at offset 0 minus the
    first PT_LOAD's page of the file (PIE)."""
    ents = ntfile_entries(core)
    first = min(e[0] for e in ents if e[3] == os.path.realpath(exe).encode() and e[2] == 0)
    return first


def ntfile_entries(c):
    """[(start, end, pgoff, path)] of the core's NT_FILE note."""
    n = next(x for x in c.notes() if x["type"] == NT_FILE)
    d, o = c.data, n["desc_off"]
    count, pagesz = struct.unpack_from("<QQ", d, o)
    ents = [struct.unpack_from("<QQQ", d, o + 16 + 24 * i) for i in range(count)]
    names = bytes(d[o + 16 + 24 * count:o + n["descsz"]]).split(b"\0")
    return [(s, e, p, names[i]) for i, (s, e, p) in enumerate(ents)]


def ntfile_desc(entries, pagesz=4096):
    head = [struct.pack("<QQ", len(entries), pagesz)] + [struct.pack("<QQQ", s, e, p) for s, e, p, _ in entries]
    return b"".join(head) + b"".join(name + b"\0" for *_, name in entries)


def note(name, ntype, desc):
    n = name + b"\0"
    out = struct.pack("<III", len(n), len(desc), ntype) + n
    out += b"\0" * (-len(out) % 4)
    return out + desc + b"\0" * (-len(desc) % 4)


def notes_of(c, keep=lambda n: True):
    """The raw bytes of every note that keep() accepts, in order."""
    return b"".join(bytes(c.data[n["at"]:n["next"]]) for n in c.notes() if keep(n))


def prstatus(c, tid=None, cursig=None, **regs):
    """A copy of the core's first NT_PRSTATUS note with tid, signal and registers replaced."""
    n = next(x for x in c.notes() if x["type"] == NT_PRSTATUS)
    desc = bytearray(c.data[n["desc_off"]:n["desc_off"] + n["descsz"]])
    if tid is not None:
        struct.pack_into("<i", desc, PR_PID, tid)
    if cursig is not None:
        struct.pack_into("<H", desc, PR_CURSIG, cursig)
    for r, v in regs.items():
        struct.pack_into("<Q", desc, PR_REG + 8 * REG[r], v)
    return note(b"CORE", NT_PRSTATUS, bytes(desc))


def rebuild(c, notes, loads=()):
    """A new core: the seed's bytes, then @p notes as the only PT_NOTE, then each (vaddr, bytes[,
    flags]) of @p loads as a new PT_LOAD (flags default RW), then a new program header table."""
    out = bytearray(c.data)
    out += b"\0" * (-len(out) % 4096)
    note_off = len(out)
    out += notes
    new_loads = []
    for vaddr, blob, *flags in loads:
        out += b"\0" * (-len(out) % 4096)
        new_loads.append((len(out), vaddr, blob, flags[0] if flags else 6))
        out += blob
    phs = bytearray()
    for ph in c.phdrs:
        if ph["type"] == PT_NOTE:
            phs += struct.pack("<IIQQQQQQ", PT_NOTE, 4, note_off, 0, 0, len(notes), 0, 4)
        else:
            phs += bytes(c.data[ph["at"]:ph["at"] + c.phentsize])
    for off, vaddr, blob, flags in new_loads:
        phs += struct.pack("<IIQQQQQQ", PT_LOAD, flags, off, vaddr, 0, len(blob), len(blob), 4096)
    out += b"\0" * (-len(out) % 8)
    phoff = len(out)
    out += phs
    c2 = ctelf.Core(bytes(out[:64]) + bytes(0))
    c2.data = out
    c2.set_field("phoff", phoff)
    c2.set_field("phnum", len(c.phdrs) + len(new_loads))
    return bytes(c2.data)


class Run:
    """Runs coretriage; records exit status, output, time and the peak RSS of that process."""

    def __init__(self, args, timeout=120, env=None, watch_rss=False):
        t0 = time.monotonic()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.peak_rss_kib = 0
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        if watch_rss:
            threading.Thread(target=self._watch, args=(p.pid,), daemon=True).start()
        try:
            self.stdout, self.stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            self.stdout, self.stderr = p.communicate()
            self.rc = "timeout"
        else:
            self.rc = p.returncode
        self.seconds = time.monotonic() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU time, not wall time: the machine may be shared, a quadratic pass is not.
        self.cpu_seconds = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        self.sanitizer = any(m in self.stderr.decode("utf-8", "replace") for m in SANITIZER_MARKS)

    def _watch(self, pid):
        path = f"/proc/{pid}/status"
        while True:
            try:
                with open(path) as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            self.peak_rss_kib = max(self.peak_rss_kib, int(line.split()[1]))
            except (OSError, ValueError):
                return
            time.sleep(0.01)

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    def describe(self):
        return f"exit {self.rc} after {self.seconds:.1f} s: {self.stderr[-400:].decode('utf-8', 'replace')!r}"


def diag_codes(report):
    return [d.get("code") for d in (report or {}).get("diagnostics", [])]


def sections(data):
    """Section headers of an ELF64 little-endian file: [{name, type, flags, offset, size, at}]."""
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    raw = []
    for i in range(shnum):
        at = shoff + i * shentsize
        name, typ, flags, _, off, size = struct.unpack_from("<IIQQQQ", data, at)
        raw.append({"name_off": name, "type": typ, "flags": flags, "offset": off, "size": size, "at": at})
    strtab = raw[shstrndx]
    for s in raw:
        start = strtab["offset"] + s["name_off"]
        s["name"] = bytes(data[start:data.index(b"\0", start)]).decode()
    return raw


def build(workdir, name, source, flags):
    """Compiles @p source (C text) with gcc and @p flags into WORKDIR/NAME; returns the path."""
    src = os.path.join(workdir, name + ".c")
    with open(src, "w") as f:
        f.write(source)
    out = os.path.join(workdir, name)
    subprocess.run(["gcc"] + flags + ["-o", out, src], check=True)
    return out
