"""Rewrites a word of an ELF file (a core or an executable) at a virtual address, with the addresses
from gdb: the hostile tests' tools (hostile_python.py, hostile_go.py)."""
import subprocess
import struct


def gdb_values(exe, core, exprs, language=None):
    """gdb's `p/x` of each expression in @exprs (in @language when given: Go binaries need "c")."""
    args = ["gdb", "-batch", "-nx", "-q"] + (["-ex", "set language " + language] if language else [])
    for e in exprs:
        args += ["-ex", "p/x " + e]
    out = subprocess.run(args + [exe, core], capture_output=True, text=True, timeout=120).stdout
    vals = [int(l.split("=", 1)[1], 16) for l in out.splitlines() if l.startswith("$")]
    if len(vals) != len(exprs):
        raise SystemExit(f"gdb could not evaluate the addresses: {out[-500:]}")
    return vals


def file_offset(path, vaddr):
    """Offset in ELF file @path of virtual address @vaddr (a PT_LOAD with file bytes there)."""
    with open(path, "rb") as f:
        ident = f.read(64)
        phoff, = struct.unpack_from("<Q", ident, 32)
        phentsize, phnum = struct.unpack_from("<HH", ident, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    for i in range(phnum):
        p_type, _, off, va, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", table, i * phentsize)
        if p_type == 1 and va <= vaddr < va + filesz:
            return off + vaddr - va
    raise SystemExit(f"0x{vaddr:x} is not in the file bytes of {path}")


def patch(path, vaddr, value):
    off = file_offset(path, vaddr)
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(struct.pack("<Q", value))


def section(path, name):
    """(file offset, size) of section @name of ELF file @path."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    strtab = sh(shstrndx)[4]
    for i in range(shnum):
        h = sh(i)
        n = data[strtab + h[0]:data.index(b"\0", strtab + h[0])].decode()
        if n == name:
            return h[4], h[5]
    raise SystemExit(f"no section {name} in {path}")


def patch_at(path, off, value, fmt="<Q"):
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(struct.pack(fmt, value))
